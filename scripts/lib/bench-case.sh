# shellcheck shell=bash
# One row's session and one window of a case: the app up, warmed up,
# measured with its instruments, its raw files kept, a crash a failed case.
# What a window sends and watches is bench/plan's: nothing here names a case.

# plan_windows: each window's facts (plan window) into $WORK/plan/WINDOW.facts
# and its load's arguments beside them, once a bench
plan_windows() {
  local w
  mkdir -p "$WORK/plan"
  for w in "${WINDOWS[@]}"; do
    lab_tool plan window "$STUDY_FILE" "$w" --connections "$CONNECTIONS" --warm-each "$WARM_EACH" >"$WORK/plan/$w.facts"
    if win_is "$w" ramp; then
      vegeta_check
      plan_capacity "$w"
      continue
    fi
    # A window that signs in gets its arguments once it has (window_sign_in).
    win_is "$w" session || plan_app_load "$w" "$APP_PORT" "$WORK/plan"
    ! win_is "$w" ceiling || lab_tool plan oha "$STUDY_FILE" "$w" --ceiling --connections "$CONNECTIONS" \
      --url "http://${ROLE_CEILING_ADDR:-127.0.0.1}:$UPSTREAM_PORT" >"$WORK/plan/$w.ceiling"
  done
}

# win WINDOW KEY: the window's KEY as plan window gave it (a line each when
# it repeats); win_is WINDOW KEY: is it 1?
win() { awk -v k="$2" '$1 == k { sub(/^[^ ]+ /, ""); print }' "$WORK/plan/$1.facts"; }
win_is() { [[ "$(win "$@")" == 1 ]]; }

# plan_app_load WINDOW PORT DIR: the window's oha arguments against the app
# on PORT (and its companion's) into DIR/WINDOW.oha (.companion)
plan_app_load() {
  lab_tool plan oha "$STUDY_FILE" "$1" --connections "$CONNECTIONS" --url "http://${ROLE_APP_ADDR:-127.0.0.1}:$2" >"$3/$1.oha"
  win_is "$1" companion || return 0
  lab_tool plan oha "$STUDY_FILE" "$1" --companion --url "http://${ROLE_APP_ADDR:-127.0.0.1}:$2" >"$3/$1.companion"
}

# window_sign_in WINDOW: the window's load signed in (verify signin, plan
# signin's credentials) and its oha arguments made with that session; false,
# the app's answer in SIGNIN_ERR, when it refused. The session is a
# credential: it stays in the scratch folder.
window_sign_in() {
  local w=$1 a=() url="http://${ROLE_APP_ADDR:-127.0.0.1}:$APP_PORT"
  mkdir -p "$WORK/session"
  mapfile -d '' -t a < <(lab_tool plan signin "$STUDY_FILE" "$w" --url "$url")
  SIGNIN_ERR=$(lab_tool verify signin "${a[@]}" -out "$WORK/session/$w.json" 2>&1 >/dev/null) || return 1
  lab_tool plan oha "$STUDY_FILE" "$w" --connections "$CONNECTIONS" --url "$url" --session "$WORK/session/$w.json" >"$WORK/plan/$w.oha"
}

# oha_window OUT SECONDS ARGS_FILE [timeline]: oha for the generator's role
# (role_tool), JSON to OUT, CPU time to OUT.time. -w counts what is in flight
# at the deadline; -t makes an unanswered request an error (the window fails
# its gate) rather than a window that never ends, and a generator still
# running WINDOW_GRACE_S past the deadline is stopped (124). A timeline keeps
# every answer (OUT.db, OUT.start) for record window to compact.
oha_window() {
  local out=$1 secs=$2 args=() db=()
  mapfile -d '' -t args <"$3"
  if [[ "${4:-}" == timeline ]] && ((TIMELINE)); then
    rm -f "$out.db"
    db=(--start "$out.start" --keep "db=$out.db")
    args=(--db-url @db "${args[@]}")
  fi
  role_tool loadgen "$LOADGEN_CPUS" - --time "$out.time" --deadline "$((secs + WINDOW_GRACE_S))" ${db[@]+"${db[@]}"} -- \
    oha --no-tui --output-format json --disable-compression -w -z "${secs}s" -t "${REQUEST_TIMEOUT_S}s" "${args[@]}" >"$out" 2>"$out.stderr"
}

# window_start OUT SECONDS ARGS_FILE: a measured oha window in the
# background (BG_PID); window_finish collects it.
window_start() { in_background oha_window "$@"; }

# window_finish PID OUT: wait for the window, write OUT's .loadgen.json beside
# it, drop the scratch files; returns oha's status.
window_finish() {
  local rc=0
  finish_background "$1" || rc=$?
  window_record "$2" || ((rc)) || rc=1
  return "$rc"
}

# window_record OUT: OUT's .loadgen.json and .latency.jsonl from what the
# generator left beside it (record window); false when its CPU time was not
window_record() { lab_tool record window "$1" --cpus "$LOADGEN_CPUS"; }

# memory_read FILE: the app's memory now (cgsample memory) appended to FILE
memory_read() {
  role_tool app "$ROLE_SAMPLER_CPUS" "$1" -- cgsample memory --pid "$APP_PID" --out @OUT 2>>"$WORK/cgsample.log" || true
}

# db_rows ROW TABLE: the table's rows in ROW's live database, read beside
# the app; nothing when it cannot be read
db_rows() {
  role_tool app "$ROLE_SAMPLER_CPUS" - --data -- seed rows "$(row_db_target "$1" @DATA)" "$2" 2>/dev/null || true
}

# container_name ROW: a Docker name for the row, and a native row's group's
# (lower case, a variant's brackets dropped)
container_name() { echo "stacklab-$BENCH_ID-$(tr -c 'a-zA-Z0-9_.\n-' '-' <<<"$1" | tr 'A-Z' 'a-z' | sed 's/-*$//')"; }

# session_start RUN ROW: fresh database, app up; sets CID, APP_PID (the
# sampler finds the cgroup by it, with no docker CLI in a window), BOOT_MS,
# and CASES_HERE (the windows this app has run) to 0
session_start() {
  local row=$2
  CONTAINER=$(container_name "$row")
  DB_DIR=$(app_data_dir "$CONTAINER")
  CASES_HERE=0
  CID=$(app_start "$row" "$DB_DIR" "$CONTAINER" "$APP_PORT" "http://${ROLE_UPSTREAM_ADDR:-127.0.0.1}:$UPSTREAM_PORT" --label "stacklab.bench=$BENCH_ID" --label "stacklab.root=$LAB_ROOT")
  # The manifest says how each row's container was confined (the last start).
  app_confine_record "$row" "$CONTAINER" || note "bench: could not record $row's confinement"
  BOOT_MS=$(app_ready "$row" "$APP_PORT" 60) || return 1
  # (on the app's machine: its instruments run there)
  APP_PID=$(app_pid "$CID")
}

# The sequential bench's runners (walk seq). seq_boot RUN ROW: the row's
# app up (its late image built first), checked, its idle memory read; a row
# that did not come up or failed its checks is out (ROWS_OUT).
seq_boot() {
  local run=$1 row=$2 t0 why=""
  ROW_DIR="$RUN_DIR/raw/run-$1/$2"
  MEM_IDLE="$WORK/mem/$2.idle.jsonl" MEM_AFTER="$WORK/mem/$2.after.jsonl"
  bench_pause
  if ! late_image "$run" "$row"; then
    ROWS_OUT+="$row "
    return 0
  fi
  mkdir -p "$ROW_DIR" "$WORK/mem"
  rm -f "$MEM_IDLE" "$MEM_AFTER"
  t0=$(eta_now)
  if ! session_start "$run" "$row"; then
    why="did not answer 200 on $(ready_path "$(row_stack "$row")") within 60 s of starting"
  elif ! check_row "$row" "$ROW_DIR"; then
    why="failed its checks (see verify.txt): its numbers would not be comparable"
  fi
  eta_done boot "$t0"
  ROW_BOOT_MS=${BOOT_MS:-0}
  if [[ -n "$why" ]]; then
    fail_cases "$run" "$row" "$why" "${WINDOWS[@]}"
    eta_timed stop stack_stop "$CONTAINER" >/dev/null
    row_line "$run" "$row"
    ROWS_OUT+="$row "
    return 0
  fi
  memory_read "$MEM_IDLE"
}

# seq_window RUN ROW WINDOW: restarted for a fresh_db case (or when it
# exited), signed in for a session, warmed up as plan window says, measured
seq_window() {
  local run=$1 row=$2 w=$3
  WINDOW_RAN=0
  if win_is "$w" fresh_db || ! container_running "$CONTAINER"; then
    ((CASES_HERE)) && memory_read "$MEM_AFTER"
    if ! eta_timed restart session_start "$run" "$row"; then
      fail_cases "$run" "$row" "did not come back on $(ready_path "$(row_stack "$row")") after a restart" "$w"
      return 0
    fi
  fi
  progress "$run" "$row" "$w"
  if win_is "$w" session && ! window_sign_in "$w"; then
    fail_cases "$run" "$row" "could not sign in before the window: ${SIGNIN_ERR:-no answer}" "$w"
    return 0
  fi
  if warm_before "$w" $((CASES_HERE == 0)); then
    eta_timed warmup warm_up "$ROW_DIR/$w.warmup.json" "$WORK/plan/$w.oha" || true
  fi
  eta_timed "window:$w" run_case "$run" "$row" "$w" "$ROW_DIR"
  CASES_HERE=$((CASES_HERE + 1))
  [[ -s "$ROW_DIR/$w.json" ]] && MEASURED_WINDOWS=$((MEASURED_WINDOWS + 1))
  WINDOW_RAN=1
}

# seq_sampler RUN ROW WINDOW: the sampler check after the window it
# follows, when that window ran
seq_sampler() { ((WINDOW_RAN == 0)) || sampler_check "$1" "$2" "$3" "$ROW_DIR"; }

# seq_stop RUN ROW: the row's memory after its windows, its resources
# record, its app stopped, its figures in one line
seq_stop() {
  ((CASES_HERE)) && container_running "$CONTAINER" && memory_read "$MEM_AFTER"
  local memory=()
  [[ -s "$MEM_IDLE" && -s "$MEM_AFTER" ]] && memory=(--memory-idle-file "$MEM_IDLE" --memory-after-file "$MEM_AFTER")
  lab_tool record resources "$ROW_DIR/resources.json" --boot-ms "$ROW_BOOT_MS" "${memory[@]}"
  eta_timed stop stack_stop "$CONTAINER" >/dev/null
  row_line "$1" "$2"
}

seq_ceilings() { eta_timed ceilings upstream_ceilings "$1"; }
seq_headroom() { eta_timed headroom generator_headroom "$1"; }

# warm_up OUT ARGS_FILE: slices of WARMUP_SLICE_S until record warmup
# (its rule) says steady or the profile's most ran; its verdict into OUT
warm_up() {
  local out=$1 slices=() n=0 word most
  most=$((WARMUP_MAX_S / WARMUP_SLICE_S))
  while :; do
    n=$((n + 1))
    oha_window "$WORK/warmup-$n.json" "$WARMUP_SLICE_S" "$2" || true
    [[ -s "$WORK/warmup-$n.json" ]] || break
    slices+=("$WORK/warmup-$n.json")
    word=$(lab_tool record warmup "$out" --slice-s "$WARMUP_SLICE_S" --min "$((WARMUP > 2 ? WARMUP : 2))" --max "$most" "${slices[@]}") || break
    [[ "$word" == again ]] || break
  done
  [[ "${word:-}" == unsteady ]] && note "bench: not steady after ${WARMUP_MAX_S} s of warm-up (its table cell is flagged)"
  rm -f "$WORK"/warmup-*.json "$WORK"/warmup-*.json.*
  return 0
}

# warm_before WINDOW FIRST: does WINDOW get a warm-up (FIRST=1: the app's
# first window)? plan window's "warm" says each, first or never.
warm_before() {
  local warm
  warm=$(win "$1" warm)
  [[ "$warm" == each || ("$warm" == first && $2 == 1) ]]
}

# check_row ROW DIR: docs/app.md's checks (a lab stack) and the study's
# per-case checks, before any window counts, into DIR/verify.txt, with the
# verdict and parity snapshot beside it for verify_collect
check_row() {
  local row=$1 dir=$2 stack rc=0
  stack=$(row_stack "$row")
  : >"$dir/verify.txt"
  if [[ "$(contract "$stack")" == app && -x "$(lab_tool_path verify)" ]]; then
    verify_app "$row" "$APP_PORT" "$DB_DIR" "http://${ROLE_UPSTREAM_ADDR:-127.0.0.1}:$UPSTREAM_PORT" "$dir/verify.txt" "$dir/verify.parity.json" || rc=1
  fi
  if ((HAS_CHECKS)); then
    lab_tool plan checks "$STUDY_FILE" --url "http://${ROLE_APP_ADDR:-127.0.0.1}:$APP_PORT" >>"$dir/verify.txt" 2>&1 || rc=1
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
    app_logs "$CONTAINER" >"$dir/$w.log" || true
    lab_tool record failure "$RUN_DIR" --run "$run" --stack "$row" --case "$w" --reason "$reason"
    FAILED_CASES=$((FAILED_CASES + 1))
    note "bench: FAILED run $run $row $w: $reason (log: ${dir#"$LAB_ROOT"/}/$w.log)"
  done
}

run_case() {
  local run=$1 row=$2 w=$3 dir=$4 rows_before="" table jobs
  ! win_is "$w" ramp || { run_ramp "$@"; return 0; }
  table=$(win "$w" rows) jobs=$(win "$w" jobs)
  [[ -n "$table" ]] && rows_before=$(db_rows "$row" "$table")
  local done_before=""
  [[ -n "$jobs" ]] && done_before=$(db_rows "$row" audit)
  canary_read "$dir/$w.canary.jsonl" before
  local since from_ns
  since=$(date -u +%FT%T.%NZ) from_ns=$(date +%s%N)
  sampler_start "$dir/$w.cgroup.jsonl"
  [[ "$(row_db "$row")" == postgres ]] && pg_sampler_start "$dir/$w.pg.jsonl"
  hiccup_start "$dir/$w"
  local companion=""
  if win_is "$w" companion; then
    window_start "$dir/$w.writers.json" "$DURATION" "${PLAN:-$WORK/plan}/$w.companion" timeline
    companion=$BG_PID
  fi
  window_start "$dir/$w.json" "$DURATION" "${PLAN:-$WORK/plan}/$w.oha" timeline
  local oha_rc=0
  # The instruments stop with the load; compacting the answers comes after.
  finish_background "$BG_PID" || oha_rc=$?
  [[ -n "$companion" ]] && { finish_background "$companion" || oha_rc=$?; }
  hiccup_stop
  sampler_stop
  pg_sampler_stop
  runtime_pauses "$row" "$since" "$dir/$w.pauses.jsonl"
  upstream_lateness "$dir/$w" "$from_ns"
  window_record "$dir/$w.json" || ((oha_rc)) || oha_rc=1
  [[ -n "$companion" ]] && { window_record "$dir/$w.writers.json" || ((oha_rc)) || oha_rc=1; }
  canary_read "$dir/$w.canary.jsonl" after
  if [[ -n "$table" ]]; then
    lab_tool record rows "$dir/$w.rows.json" --before "${rows_before:--1}" --after "$(db_rows "$row" "$table")" ||
      note "bench: run $run $row $w: table $table could not be counted (its rows check will fail)"
  fi
  [[ -n "$done_before" ]] && job_pace "$row" "$dir/$w.jobs.json" "$done_before" "$jobs"
  if ! container_running "$CONTAINER"; then
    fail_cases "$run" "$row" "the container exited during the window ($(app_exit_words "$CONTAINER"))" "$w"
  elif ((oha_rc == 124 || oha_rc == 137)); then
    fail_cases "$run" "$row" "oha was still waiting for answers ${WINDOW_GRACE_S} s after the window's end: the stack stopped answering some requests" "$w"
  elif ((oha_rc != 0)) || [[ ! -s "$dir/$w.json" ]]; then
    fail_cases "$run" "$row" "oha exited with status $oha_rc (see $w.json.stderr)" "$w"
  fi
}

# job_pace ROW OUT DONE_BEFORE AFTER_S: the worker's pace, AFTER_S past the
# window (plan window's "jobs"): audit rows written and jobs left, into OUT
job_pace() {
  sleep "$4"
  lab_tool record jobs "$2" --done-before "$3" --done-after "$(db_rows "$1" audit)" \
    --backlog "$(db_rows "$1" jobs)" --window-s "$DURATION" --after-s "$4" ||
    note "bench: ${2#"$RUN_DIR"/}: the job pace could not be recorded (see the line above)"
}

# canary_read OUT WHEN: the CPU-speed canary (bench/canary) on the app's
# CPUs, with the app's CPU time meanwhile (a JIT still busy is not a slow
# vCPU), then on the generator's; each reading appended to OUT
canary_read() {
  local set cpus app
  for set in app loadgen; do
    cpus=$APP_CPUS app=(--app-pid "$APP_PID")
    [[ "$set" == loadgen ]] && cpus=$LOADGEN_CPUS app=()
    # Its error goes in the line itself: the bench's scratch folder is
    # removed when the bench ends, so a path into it would name nothing.
    role_tool "$set" "$cpus" "$1" -- canary --out @OUT --label "$2 $set" --cpus "$cpus" ${app[@]+"${app[@]}"} 2>"$WORK/canary.err" ||
      note "bench: the CPU-speed canary failed on $(role_words "$set")'s CPUs $cpus ($2 the window): $(tail -n1 "$WORK/canary.err" 2>/dev/null || echo 'no message')"
  done
}

# sampler_check RUN ROW WINDOW DIR: plan schedule's sampler step: the window
# again without the sampler (.nosampler.json), then without the timeline and
# hiccup meters (.notimeline.json), then with all on (.recheck.json), so the
# summary reads what watching costs within one run
sampler_check() {
  local run=$1 row=$2 w=$3 dir=$4 t0
  container_running "$CONTAINER" || return 0
  t0=$(eta_now)
  note "bench: run $run · $row $w again without the cgroup sampler, then without the latency timeline and hiccup meters (their cost)"
  oha_window "$WORK/warmup.json" "$WARMUP" "$WORK/plan/$w.oha" || true
  window_with "$dir/$w.nosampler.json" "$WORK/plan/$w.oha" hiccup timeline
  window_with "$dir/$w.notimeline.json" "$WORK/plan/$w.oha" sampler
  window_with "$dir/$w.recheck.json" "$WORK/plan/$w.oha" sampler hiccup timeline
  eta_done sampler "$t0"
}

# window_with OUT ARGS_FILE INSTRUMENT...: one more window into OUT with only
# the instruments named (sampler, hiccup, timeline); their records not kept
window_with() {
  local out=$1 load=$2 on=" ${*:3} "
  [[ "$on" != *" sampler "* ]] || sampler_start "$WORK/check.cgroup.jsonl"
  [[ "$on" != *" hiccup "* ]] || hiccup_start "$WORK/check"
  window_start "$out" "$DURATION" "$load" "$([[ "$on" == *" timeline "* ]] && echo timeline)"
  window_finish "$BG_PID" "$out" || true
  hiccup_stop
  sampler_stop
  rm -f "$WORK"/check.* "${out%.json}.latency.jsonl"
}

# sampler_start OUT: the cgroup sampler beside the app into OUT, its own CPU
# time to OUT.time; the generator's CPUs too when they share the app's engine
SAMPLER_PID="" SAMPLER_OUT=""
sampler_start() {
  ((SAMPLER)) || return 0
  local sets=(--cpuset "app=$APP_CPUS")
  [[ "$(role_engine loadgen)" != "$(role_engine app)" ]] || sets+=(--cpuset "loadgen=$LOADGEN_CPUS")
  in_background role_tool app "$ROLE_SAMPLER_CPUS" "$1" --time "$1.time" -- cgsample --pid "$APP_PID" --interval "$SAMPLER_INTERVAL" \
    "${sets[@]}" --out @OUT 2>>"$WORK/cgsample.log"
  SAMPLER_PID=$BG_PID SAMPLER_OUT=$1
  role_tool_wait app cgsample "$SAMPLER_PID"
}

# kill_leaves PID: TERM the processes at the bottom of PID's tree only (the
# sampler itself, not the subshells around it, so that `time` reports)
kill_leaves() {
  local child children
  children=$(pgrep -P "$1" 2>/dev/null) || { kill -TERM "$1" 2>/dev/null || true; return 0; }
  for child in $children; do kill_leaves "$child"; done
}

# sampler_stop: TERM the sampler, then its CPU time into <window>.sampler.json
sampler_stop() {
  [[ -n "$SAMPLER_PID" ]] || return 0
  role_tool_stop app cgsample "$SAMPLER_PID"
  lab_tool record loadgen "${SAMPLER_OUT%.cgroup.jsonl}.sampler.json" --time "$SAMPLER_OUT.time" --cpus "$ROLE_SAMPLER_CPUS" 2>/dev/null || true
  rm -f "$SAMPLER_OUT.time"
  SAMPLER_PID="" SAMPLER_OUT=""
}

# runtime_pauses ROW SINCE OUT: a runtime's own pauses (stack.env PAUSE_LOG)
# from the app's log since SINCE, kept by record pauses into OUT
runtime_pauses() {
  local kind
  kind=$(stack_env_get "$(row_stack "$1")" PAUSE_LOG)
  [[ -n "$kind" ]] || return 0
  app_logs "$CONTAINER" "$2" | lab_tool record pauses "$3" --runtime "$kind" ||
    note "bench: ${3#"$RUN_DIR"/}: the runtime's pauses could not be kept"
}

# upstream_lateness BASE FROM_NS: the mock upstream's own lateness from
# FROM_NS (unix ns) to now into BASE.upstream.jsonl, when the study runs it
upstream_lateness() {
  ((NEEDS_UPSTREAM)) || return 0
  lab_tool record upstream "$1.upstream.jsonl" --url "http://${ROLE_UPSTREAM_ADDR:-127.0.0.1}:$UPSTREAM_PORT" \
    --from-ns "$2" --to-ns "$(date +%s%N)" ||
    note "bench: ${1#"$RUN_DIR"/}: the upstream's own lateness could not be kept (see the line above)"
}

# hiccup_start BASE: a hiccup meter (bench/hiccup) on the app's CPUs and one
# on the generator's, each where its role runs, into BASE.hiccup-ROLE.jsonl:
# the host's own stalls; the window waits until both run.
HICCUP_PIDS=() # "ROLE PID" of each meter running
hiccup_start() {
  ((HICCUP)) || return 0
  local role cpus
  for role in app loadgen; do
    cpus=$APP_CPUS
    [[ "$role" == loadgen ]] && cpus=$LOADGEN_CPUS
    in_background role_tool "$role" "$cpus" "$1.hiccup-$role.jsonl" -- hiccup --out @OUT --label "$role" --cpus "$cpus" 2>>"$WORK/hiccup.log"
    HICCUP_PIDS+=("$role $BG_PID")
    role_tool_wait "$role" hiccup "$BG_PID"
  done
}

# hiccup_stop: TERM the meters; each writes its last line as it exits
hiccup_stop() {
  local m
  for m in "${HICCUP_PIDS[@]}"; do role_tool_stop "${m% *}" hiccup "${m#* }"; done
  HICCUP_PIDS=()
}

# pg_sampler_start OUT: the Postgres role's own view of the window
# (bench/pgsample) on the generator's CPUs; pg_sampler_stop ends it
PG_SAMPLER_PID=""
pg_sampler_start() {
  ((SAMPLER)) || return 0
  in_background taskset -c "$LOADGEN_CPUS" "$(lab_tool_path pgsample)" --url "$(pg_admin_url)" --database app \
    --interval "$SAMPLER_INTERVAL" --out "$1" 2>>"$WORK/pgsample.log"
  PG_SAMPLER_PID=$BG_PID
}
pg_sampler_stop() {
  [[ -n "$PG_SAMPLER_PID" ]] || return 0
  kill_leaves "$PG_SAMPLER_PID"
  finish_background "$PG_SAMPLER_PID" 2>/dev/null || true
  PG_SAMPLER_PID=""
}

# The Postgres server role runs for the whole bench on DB_CPUS; each
# session of a row on it seeds a fresh app database (app_start).
pg_role_start() {
  pg_start "stacklab-$BENCH_ID-postgres" "$WORK/pg" --label "stacklab.bench=$BENCH_ID" --label "stacklab.root=$LAB_ROOT"
  confine_record "$RUN_DIR" postgres "stacklab-$BENCH_ID-postgres" || note "bench: could not record the Postgres role's confinement"
}

# The mock upstream runs for the whole bench on its own CPUs, on its own
# engine when the profile gives it one (UPSTREAM_ENGINE).
upstream_start() {
  upstream_run "stacklab-$BENCH_ID-upstream" "$UPSTREAM_PORT" --label "stacklab.bench=$BENCH_ID" --label "stacklab.root=$LAB_ROOT"
  confine_record "$RUN_DIR" upstream "stacklab-$BENCH_ID-upstream" "${ROLE_UPSTREAM_ENGINE:-}" ||
    note "bench: could not record the upstream's confinement"
}

# upstream_ceilings RUN: for each window that asks for one, oha straight at
# the mock with the window's connections: a stack cannot beat it.
upstream_ceilings() {
  local w out
  for w in "${WINDOWS[@]}"; do
    win_is "$w" ceiling || continue
    out="$RUN_DIR/raw/run-$1/$w-ceiling.json"
    window_start "$out" "$DURATION" "$WORK/plan/$w.ceiling"
    window_finish "$BG_PID" "$out" || true
  done
}

# generator_headroom RUN: what the generator drives on its CPUs when the app
# costs next to nothing: the mock as a stub (MODE=stub) in the app's place,
# a warm-up, then one window (plan headroom) into raw/run-N/headroom.json.
# A stub that does not start costs the run its headroom, not the run.
generator_headroom() {
  local out="$RUN_DIR/raw/run-$1/headroom.json" name="stacklab-$BENCH_ID-headroom" url
  url="http://${ROLE_APP_ADDR:-127.0.0.1}:$APP_PORT"
  lab_tool plan headroom "$STUDY_FILE" --connections "$CONNECTIONS" --url "$url" >"$WORK/plan/headroom.oha" ||
    { note "bench: run $1: no generator headroom (plan headroom, above)"; return 0; }
  role_port_free app "$APP_PORT" "the generator's headroom (the stub in the app's place)"
  note "bench: run $1 · the generator's headroom: oha against a stub in the app's place ($((WARMUP + DURATION)) s)"
  if ! upstream_start_container app "$name" "$APP_CPUS" "$APP_PORT" -e MODE=stub --label "stacklab.bench=$BENCH_ID" --label "stacklab.root=$LAB_ROOT" ||
    ! wait_up "$url/delay?ms=0" 30 >/dev/null; then
    note "bench: run $1: the stub did not answer in the app's place; this run has no generator headroom"
    app_docker rm -f "$name" >/dev/null 2>&1 || true
    return 0
  fi
  oha_window "$WORK/headroom-warmup.json" "$WARMUP" "$WORK/plan/headroom.oha" || true
  rm -f "$WORK"/headroom-warmup.json*
  window_start "$out" "$DURATION" "$WORK/plan/headroom.oha"
  window_finish "$BG_PID" "$out" || note "bench: run $1: the generator's headroom window failed (see ${out#"$RUN_DIR"/}.stderr)"
  app_docker rm -f "$name" >/dev/null 2>&1 || true
  network_path "$1"
}

# network_path RUN: after the headroom, bench/netpath from the generator's
# CPUs to the mock as an echo (MODE=echo) in the app's place, into
# raw/run-N/netpath.json; an echo that does not start costs only the check
network_path() {
  local out="$RUN_DIR/raw/run-$1/netpath.json" name="stacklab-$BENCH_ID-echo" addr rc=0
  addr="${ROLE_APP_ADDR:-127.0.0.1}:$APP_PORT"
  role_port_free app "$APP_PORT" "the network path check (the echo in the app's place)"
  if ! upstream_start_container app "$name" "$APP_CPUS" "$APP_PORT" -e MODE=echo --label "stacklab.bench=$BENCH_ID" --label "stacklab.root=$LAB_ROOT"; then
    note "bench: run $1: the echo did not start in the app's place; this run has no network path check"
    app_docker rm -f "$name" >/dev/null 2>&1 || true
    return 0
  fi
  role_tool loadgen "$LOADGEN_CPUS" "$out" -- netpath --addr "$addr" --out @OUT 2>"$WORK/netpath.err" || rc=$?
  ((rc == 0)) || note "bench: run $1: the network path check failed: $(tail -n1 "$WORK/netpath.err" 2>/dev/null || echo 'no message')"
  app_docker rm -f "$name" >/dev/null 2>&1 || true
}
