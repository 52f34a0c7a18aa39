# shellcheck shell=bash
# One row's session within a run, and one window of a case: start the
# container, warm up, measure with oha while cgsample watches the cgroup,
# keep the raw files, and turn a crash into a failed case, not a dead bench.
# What each window sends comes from the study, through analysis/plan
# (plan_windows fills WIN_* once per bench); nothing here names a case.

declare -gA WIN_FRESH=() WIN_COMPANION=() WIN_CEILING=() WIN_ROWS=() WIN_RAMP=()

# plan_windows: each window's facts, and its oha arguments in $WORK/plan/
# (NUL-separated, as analysis/plan writes them)
plan_windows() {
  local w key value
  mkdir -p "$WORK/plan"
  for w in "${WINDOWS[@]}"; do
    while read -r key value; do
      case "$key" in
        fresh_db) WIN_FRESH[$w]=$value ;;
        companion) WIN_COMPANION[$w]=$value ;;
        ceiling) WIN_CEILING[$w]=$value ;;
        rows) WIN_ROWS[$w]=$value ;;
        ramp) WIN_RAMP[$w]=$value ;;
      esac
    done < <(lab_tool plan window "$STUDY_FILE" "$w" --connections "$CONNECTIONS")
    if ((WIN_RAMP[$w])); then
      vegeta_check
      plan_capacity "$w"
      continue
    fi
    lab_tool plan oha "$STUDY_FILE" "$w" --connections "$CONNECTIONS" --url "http://127.0.0.1:$APP_PORT" >"$WORK/plan/$w.oha"
    ((WIN_COMPANION[$w])) && lab_tool plan oha "$STUDY_FILE" "$w" --companion --url "http://127.0.0.1:$APP_PORT" >"$WORK/plan/$w.companion"
    ((WIN_CEILING[$w])) && lab_tool plan oha "$STUDY_FILE" "$w" --ceiling --connections "$CONNECTIONS" \
      --url "http://127.0.0.1:$UPSTREAM_PORT" >"$WORK/plan/$w.ceiling"
  done
  return 0
}

# oha_window OUT SECONDS ARGS_FILE: oha pinned to the load generator's CPUs
# with the window's arguments, JSON to OUT, its CPU time to OUT.time;
# in-flight requests at the deadline are waited for and counted (-w).
oha_window() {
  local out=$1 secs=$2 args=()
  mapfile -d '' -t args <"$3"
  (
    TIMEFORMAT='%3U %3S %3R'
    time taskset -c "$LOADGEN_CPUS" oha --no-tui --output-format json --disable-compression -w -z "${secs}s" \
      "${args[@]}" >"$out" 2>"$out.stderr"
  ) 2>"$out.time"
}

# window_start OUT SECONDS ARGS_FILE: a measured oha window in the
# background (BG_PID); window_finish collects it.
window_start() { in_background oha_window "$@"; }

# window_finish PID OUT: wait for the window, write OUT's .loadgen.json beside
# it, drop the scratch files; returns oha's status.
window_finish() {
  local rc=0 out=$2
  finish_background "$1" || rc=$?
  lab_tool record loadgen "${out%.json}.loadgen.json" --time "$out.time" --cpus "$LOADGEN_CPUS" || rc=1
  rm -f "$out.time"
  [[ -s "$out.stderr" ]] || rm -f "$out.stderr"
  return "$rc"
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

# db_rows DB TABLE: the table's row count, or nothing when it cannot be read
db_rows() { sqlite3 "file:$1?mode=ro" "SELECT COUNT(*) FROM \"$2\"" 2>/dev/null || true; }

# container_name ROW: a Docker name for the row (a variant's brackets dropped)
container_name() { echo "stacklab-$BENCH_ID-$(tr -c 'a-zA-Z0-9_.\n-' '-' <<<"$1" | sed 's/-*$//')"; }

# session_start RUN ROW: fresh database, container up; sets CID and BOOT_MS
session_start() {
  local row=$2
  CONTAINER=$(container_name "$row")
  DB_DIR="$WORK/db/$CONTAINER"
  CID=$(app_start "$row" "$DB_DIR" "$CONTAINER" "$APP_PORT" "http://127.0.0.1:$UPSTREAM_PORT" --label "stacklab.bench=$BENCH_ID" --label "stacklab.root=$LAB_ROOT")
  # The manifest says how each row's container was confined (the last start).
  confine_record "$RUN_DIR" "$row" "$CONTAINER" || note "bench: could not record $row's confinement"
  BOOT_MS=$(app_ready "$row" "$APP_PORT" 60) || return 1
}

stack_session() {
  local run=$1 row=$2 dir="$RUN_DIR/raw/run-$1/$2" w mem_idle mem_after
  mkdir -p "$dir"
  if ! session_start "$run" "$row"; then
    fail_cases "$run" "$row" "did not answer 200 on $(ready_path "$(row_stack "$row")") within 60 s of starting" "${WINDOWS[@]}"
    stack_stop "$CONTAINER"
    return 0
  fi
  local boot=$BOOT_MS
  if ! check_row "$row" "$dir"; then
    fail_cases "$run" "$row" "failed its checks (see verify.txt): its numbers would not be comparable" "${WINDOWS[@]}"
    stack_stop "$CONTAINER"
    return 0
  fi
  mem_idle=$(cgroup_memory "$CID")
  for w in "${WINDOWS[@]}"; do
    if ((WIN_FRESH[$w])) || ! container_running "$CONTAINER"; then
      if ! session_start "$run" "$row"; then
        fail_cases "$run" "$row" "did not come back on $(ready_path "$(row_stack "$row")") after a restart" "$w"
        continue
      fi
    fi
    progress "$run" "$row" "$w"
    run_case "$run" "$row" "$w" "$dir"
    WINDOWS_DONE=$((WINDOWS_DONE + 1))
    sampler_check "$run" "$row" "$w" "$dir"
  done
  mem_after=$(cgroup_memory "$CID")
  lab_tool record resources "$dir/resources.json" --boot-ms "$boot" --memory-idle "$mem_idle" --memory-after "$mem_after"
  stack_stop_graceful "$CONTAINER"
}

# check_row ROW DIR: before any window counts, APP.md's checks for a lab
# stack and the study's per-case checks for every row, into DIR/verify.txt
check_row() {
  local row=$1 dir=$2 stack rc=0
  stack=$(row_stack "$row")
  : >"$dir/verify.txt"
  if [[ "$(contract "$stack")" == app && -x "$(lab_tool_path verify)" ]]; then
    verify_app "$stack" "$APP_PORT" "$DB_DIR/app.db" "http://127.0.0.1:$UPSTREAM_PORT" "$dir/verify.txt" || rc=1
  fi
  if ((HAS_CHECKS)); then
    lab_tool plan checks "$STUDY_FILE" --url "http://127.0.0.1:$APP_PORT" >>"$dir/verify.txt" 2>&1 || rc=1
  fi
  [[ -s "$dir/verify.txt" ]] || rm -f "$dir/verify.txt"
  return "$rc"
}

# fail_cases RUN ROW REASON WINDOW...: record each window as failed, keep the log
fail_cases() {
  local run=$1 row=$2 reason=$3 dir="$RUN_DIR/raw/run-$1/$2" w
  shift 3
  for w in "$@"; do
    echo "$reason" >"$dir/$w.error"
    docker logs "$CONTAINER" >"$dir/$w.log" 2>&1 || true
    lab_tool record failure "$RUN_DIR" --run "$run" --stack "$row" --case "$w" --reason "$reason"
    FAILED_CASES=$((FAILED_CASES + 1))
    note "bench: FAILED run $run $row $w: $reason (log: ${dir#"$LAB_ROOT"/}/$w.log)"
  done
}

run_case() {
  local run=$1 row=$2 w=$3 dir=$4 rows_before="" table=${WIN_ROWS[$3]:-}
  ((WIN_RAMP[$w])) && { run_ramp "$@"; return 0; }
  oha_window "$WORK/warmup.json" "$WARMUP" "$WORK/plan/$w.oha" || true
  [[ -n "$table" ]] && rows_before=$(db_rows "$DB_DIR/app.db" "$table")
  sampler_start "$dir/$w.cgroup.jsonl"
  local companion=""
  if ((WIN_COMPANION[$w])); then
    window_start "$dir/$w.writers.json" "$DURATION" "$WORK/plan/$w.companion"
    companion=$BG_PID
  fi
  window_start "$dir/$w.json" "$DURATION" "$WORK/plan/$w.oha"
  local oha_rc=0
  window_finish "$BG_PID" "$dir/$w.json" || oha_rc=$?
  [[ -n "$companion" ]] && { window_finish "$companion" "$dir/$w.writers.json" || oha_rc=$?; }
  sampler_stop
  if [[ -n "$table" ]]; then
    lab_tool record rows "$dir/$w.rows.json" --before "${rows_before:--1}" --after "$(db_rows "$DB_DIR/app.db" "$table")" ||
      note "bench: run $run $row $w: table $table could not be counted (its rows check will fail)"
  fi
  if ! container_running "$CONTAINER"; then
    fail_cases "$run" "$row" "the container exited during the window ($(docker inspect -f 'exit code {{.State.ExitCode}}, OOM killed {{.State.OOMKilled}}' "$CONTAINER" 2>/dev/null))" "$w"
  elif ((oha_rc != 0)) || [[ ! -s "$dir/$w.json" ]]; then
    fail_cases "$run" "$row" "oha exited with status $oha_rc (see $w.json.stderr)" "$w"
  fi
}

# sampler_check RUN ROW WINDOW DIR: once per run, on the run's first row,
# measure the study's sampler_check window again with no sampler
# (<window>.nosampler.json), so the summary can show what watching the
# cgroup costs in req/s, within the same run.
sampler_check() {
  local run=$1 row=$2 w=$3 dir=$4
  ((SAMPLER)) && [[ "$w" == "$SAMPLER_CHECK" && "$row" == "$(run_order "$run" | head -n1)" ]] || return 0
  container_running "$CONTAINER" || return 0
  local saved=$SAMPLER
  SAMPLER=0
  note "bench: run $run · $row $w again without the cgroup sampler (its cost)"
  oha_window "$WORK/warmup.json" "$WARMUP" "$WORK/plan/$w.oha" || true
  window_start "$dir/$w.nosampler.json" "$DURATION" "$WORK/plan/$w.oha"
  window_finish "$BG_PID" "$dir/$w.nosampler.json" || true
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
  upstream_run "stacklab-$BENCH_ID-upstream" "$UPSTREAM_PORT" --label "stacklab.bench=$BENCH_ID" --label "stacklab.root=$LAB_ROOT"
  confine_record "$RUN_DIR" upstream "stacklab-$BENCH_ID-upstream" || note "bench: could not record the upstream's confinement"
}

# upstream_ceilings RUN: for each window that asks for one, oha straight at
# the mock with the window's connections: a stack cannot beat it.
upstream_ceilings() {
  local w out
  for w in "${WINDOWS[@]}"; do
    ((WIN_CEILING[$w])) || continue
    out="$RUN_DIR/raw/run-$1/$w-ceiling.json"
    window_start "$out" "$DURATION" "$WORK/plan/$w.ceiling"
    window_finish "$BG_PID" "$out" || true
  done
}
