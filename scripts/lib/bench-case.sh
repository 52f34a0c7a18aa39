# shellcheck shell=bash
# One stack's session within a run, and one case's window: start the
# container, warm up, measure with oha while cgsample watches the cgroup,
# keep the raw files, and turn a crash into a failed case, not a dead bench.

WRITE_RATE=${LAB_WRITE_RATE:-500}  # req/s cap of the writers in read-under-writes
WRITERS=${LAB_WRITERS:-8}          # connections of those writers

case_path() { # case_path CASE: method and path of the case's requests
  case "$1" in
    up) echo "GET /up" ;;
    json) echo "GET /json" ;;
    items) echo "GET /items" ;;
    page) echo "GET /page" ;;
    upstream) echo "GET /bench/upstream" ;;
    write) echo "POST /bench/write" ;;
    read | read-under-writes) echo "GET /bench/read" ;;
  esac
}

case_connections() { [[ "$1" == upstream ]] && echo "${IO_CONNECTIONS:-512}" || echo "$CONNECTIONS"; }

# A case that reads or writes bench_events starts from the seeded 1,000 rows.
case_needs_fresh_db() { [[ "$1" == write || "$1" == read || "$1" == read-under-writes ]]; }

# oha_window OUT SECONDS CONNECTIONS METHOD URL [EXTRA...]: oha pinned to the
# load generator's CPUs, JSON to OUT, its CPU time to OUT.time; in-flight
# requests at the deadline are waited for and counted (-w).
oha_window() {
  local out=$1 secs=$2 conns=$3 method=$4 url=$5
  shift 5
  (
    TIMEFORMAT='%3U %3S %3R'
    time taskset -c "$LOADGEN_CPUS" oha --no-tui --output-format json --disable-compression -w -z "${secs}s" -c "$conns" \
      -m "$method" "$@" "$url" >"$out" 2>"$out.stderr"
  ) 2>"$out.time"
}

# window_start OUT SECONDS CONNECTIONS METHOD URL [EXTRA...]: a measured
# oha window in the background (BG_PID); window_finish collects it.
window_start() { in_background oha_window "$@"; }

# window_finish PID OUT: wait for the window, write OUT's .loadgen.json beside
# it, drop the scratch files; returns oha's status.
window_finish() {
  local rc=0 out=$2
  finish_background "$1" || rc=$?
  loadgen_json "$out.time" >"${out%.json}.loadgen.json"
  rm -f "$out.time"
  [[ -s "$out.stderr" ]] || rm -f "$out.stderr"
  return "$rc"
}

# loadgen_json TIMEFILE: the generator's CPU seconds over the window, and
# whether it saturated the CPUs it was pinned to (over 90%).
loadgen_json() {
  local ncpu
  ncpu=$(cpu_count "$LOADGEN_CPUS")
  awk -v cpus="$LOADGEN_CPUS" -v n="$ncpu" '{ cpu = $1 + $2; sat = (cpu > 0.9 * n * $3) ? "true" : "false";
    printf "{\"cpus\": \"%s\", \"cpu_seconds\": %.3f, \"window_s\": %.3f, \"saturated\": %s}\n", cpus, cpu, $3, sat }' "$1"
}

# cgroup_memory ID: the container's memory use in bytes (v1, or v2 in either layout)
cgroup_memory() {
  local f
  for f in "/sys/fs/cgroup/memory/docker/$1/memory.usage_in_bytes" \
    "/sys/fs/cgroup/system.slice/docker-$1.scope/memory.current" \
    "/sys/fs/cgroup/docker/$1/memory.current"; do
    [[ -r "$f" ]] && { cat "$f"; return 0; }
  done
  echo 0
}

db_rows() { sqlite3 "file:$1?mode=ro" 'SELECT COUNT(*) FROM bench_events' 2>/dev/null || echo -1; }

# session_start RUN STACK: fresh database, container up; sets CID and BOOT_MS
session_start() {
  local run=$1 stack=$2
  CONTAINER="stacklab-$BENCH_ID-$stack"
  DB_DIR="$WORK/$stack"
  stack_stop "$CONTAINER"
  fresh_database "$DB_DIR"
  CID=$(stack_start "$stack" "$DB_DIR" "$CONTAINER" "$APP_PORT" "http://127.0.0.1:$UPSTREAM_PORT" --label "stacklab.bench=$BENCH_ID")
  BOOT_MS=$(wait_up "http://127.0.0.1:$APP_PORT/up" 60) || return 1
}

stack_session() {
  local run=$1 stack=$2 dir="$RUN_DIR/raw/run-$1/$2" c mem_idle mem_after
  mkdir -p "$dir"
  if ! session_start "$run" "$stack"; then
    fail_cases "$run" "$stack" "did not answer 200 on /up within 60 s of starting" "${CASES[@]}"
    return 0
  fi
  local boot=$BOOT_MS
  if ! verify_stack "$stack" "$dir"; then
    fail_cases "$run" "$stack" "failed verify (see verify.txt): its numbers would not be comparable" "${CASES[@]}"
    stack_stop "$CONTAINER"
    return 0
  fi
  mem_idle=$(cgroup_memory "$CID")
  for c in "${CASES[@]}"; do
    if case_needs_fresh_db "$c" || ! container_running "$CONTAINER"; then
      if ! session_start "$run" "$stack"; then
        fail_cases "$run" "$stack" "did not come back on /up after a restart" "$c"
        continue
      fi
    fi
    progress "$run" "$stack" "$c"
    run_case "$run" "$stack" "$c" "$dir"
    WINDOWS_DONE=$((WINDOWS_DONE + 1))
    sampler_check "$run" "$stack" "$c" "$dir"
  done
  mem_after=$(cgroup_memory "$CID")
  printf '{"boot_ms": %d, "memory_idle_bytes": %d, "memory_after_bytes": %d}\n' "$boot" "$mem_idle" "$mem_after" >"$dir/resources.json"
  stack_stop_graceful "$CONTAINER"
}

# verify_stack STACK DIR: the APP.md checks, on the container just started
verify_stack() {
  local stack=$1 dir=$2
  [[ -x "$(lab_tool_path verify)" ]] || return 0
  "$(lab_tool_path verify)" -stack "$stack" -url "http://127.0.0.1:$APP_PORT" -db "$DB_DIR/app.db" \
    -upstream "http://127.0.0.1:$UPSTREAM_PORT" \
    >"$dir/verify.txt" 2>&1
}

# fail_cases RUN STACK REASON CASE...: record each case as failed, keep the log
fail_cases() {
  local run=$1 stack=$2 reason=$3 dir="$RUN_DIR/raw/run-$1/$2" c
  shift 3
  for c in "$@"; do
    echo "$reason" >"$dir/$c.error"
    docker logs "$CONTAINER" >"$dir/$c.log" 2>&1 || true
    lab_tool record failure "$RUN_DIR" --run "$run" --stack "$stack" --case "$c" --reason "$reason"
    FAILED_CASES=$((FAILED_CASES + 1))
    note "bench: FAILED run $run $stack $c: $reason (log: ${dir#"$LAB_ROOT"/}/$c.log)"
  done
}

run_case() {
  local run=$1 stack=$2 c=$3 dir=$4 method path url conns rows_before
  read -r method path <<<"$(case_path "$c")"
  url="http://127.0.0.1:$APP_PORT$path"
  conns=$(case_connections "$c")
  oha_window "$WORK/warmup.json" "$WARMUP" "$conns" "$method" "$url" || true
  [[ "$c" == write ]] && rows_before=$(db_rows "$DB_DIR/app.db")
  sampler_start "$dir/$c.cgroup.jsonl"
  local writers=""
  if [[ "$c" == read-under-writes ]]; then
    window_start "$dir/$c.writers.json" "$DURATION" "$WRITERS" POST "http://127.0.0.1:$APP_PORT/bench/write" -q "$WRITE_RATE"
    writers=$BG_PID
  fi
  window_start "$dir/$c.json" "$DURATION" "$conns" "$method" "$url"
  local oha_rc=0
  window_finish "$BG_PID" "$dir/$c.json" || oha_rc=$?
  [[ -n "$writers" ]] && { window_finish "$writers" "$dir/$c.writers.json" || oha_rc=$?; }
  sampler_stop
  if [[ "$c" == write ]]; then
    printf '{"before": %d, "after": %d}\n' "$rows_before" "$(db_rows "$DB_DIR/app.db")" >"$dir/$c.rows.json"
  fi
  if ! container_running "$CONTAINER"; then
    fail_cases "$run" "$stack" "the container exited during the window ($(docker inspect -f 'exit code {{.State.ExitCode}}, OOM killed {{.State.OOMKilled}}' "$CONTAINER" 2>/dev/null))" "$c"
  elif ((oha_rc != 0)) || [[ ! -s "$dir/$c.json" ]]; then
    fail_cases "$run" "$stack" "oha exited with status $oha_rc (see $c.json.stderr)" "$c"
  fi
}

# sampler_check RUN STACK CASE DIR: once per run, on the run's first stack,
# measure `json` again with no sampler (json.nosampler.json), so the summary
# can show what watching the cgroup costs in req/s, within the same run.
sampler_check() {
  local run=$1 stack=$2 c=$3 dir=$4
  ((SAMPLER)) && [[ "$c" == json && "$stack" == "$(run_order "$run" | head -n1)" ]] || return 0
  container_running "$CONTAINER" || return 0
  local saved=$SAMPLER
  SAMPLER=0
  note "bench: run $run · $stack json again without the cgroup sampler (its cost)"
  oha_window "$WORK/warmup.json" "$WARMUP" "$CONNECTIONS" GET "http://127.0.0.1:$APP_PORT/json" || true
  window_start "$dir/json.nosampler.json" "$DURATION" "$CONNECTIONS" GET "http://127.0.0.1:$APP_PORT/json"
  window_finish "$BG_PID" "$dir/json.nosampler.json" || true
  SAMPLER=$saved
}

SAMPLER_PID=""
sampler_start() {
  ((SAMPLER)) || return 0
  in_background taskset -c "$LOADGEN_CPUS" "$(lab_tool_path cgsample)" --container "$CID" --interval 100ms --out "$1" 2>>"$WORK/cgsample.log"
  SAMPLER_PID=$BG_PID
}

sampler_stop() {
  [[ -n "$SAMPLER_PID" ]] || return 0
  kill -TERM "$SAMPLER_PID" 2>/dev/null || true
  finish_background "$SAMPLER_PID" 2>/dev/null || true
  SAMPLER_PID=""
}

# The mock upstream runs for the whole bench on its own CPUs.
upstream_start() {
  local tag
  tag=$(require_image upstream)
  docker run -d --name "stacklab-$BENCH_ID-upstream" --label stacklab=1 --label "stacklab.bench=$BENCH_ID" \
    --network host --cpuset-cpus "$UPSTREAM_CPUS" -e PORT="$UPSTREAM_PORT" "$tag" >/dev/null
  wait_up "http://127.0.0.1:$UPSTREAM_PORT/delay?ms=0" 30 >/dev/null || die "bench: the mock upstream did not answer on 127.0.0.1:$UPSTREAM_PORT"
}

# upstream_ceiling RUN: oha straight at the mock, at the upstream case's
# connections: its ceiling is connections / delay, and a stack cannot beat it.
upstream_ceiling() {
  local out="$RUN_DIR/raw/run-$1/upstream-ceiling.json"
  window_start "$out" "$DURATION" "${IO_CONNECTIONS:-512}" GET "http://127.0.0.1:$UPSTREAM_PORT/delay?ms=100"
  window_finish "$BG_PID" "$out" || true
}
