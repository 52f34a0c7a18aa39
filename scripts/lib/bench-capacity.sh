# shellcheck shell=bash
# A capacity case's window: a ramp of open-loop steps (vegeta) or of users'
# steps (k6). Every decision is plan ramp's, asked once a step; this file runs
# what it is told and keeps raw/run-N/<row>/<case>/step-NN.*.

# plan_capacity WINDOW: the targets of each of the window's lanes (one
# vegeta each, plan window's "lane" lines)
plan_capacity() {
  local lane
  [[ -z "$(win "$1" users)" ]] || k6_check
  for lane in $(win "$1" lane); do
    lab_tool plan targets "$STUDY_FILE" "$1" --lane "$lane" --url "http://${ROLE_APP_ADDR:-127.0.0.1}:$APP_PORT" >"$WORK/plan/$1.$lane.targets"
  done
}

# vegeta_check: the pinned vegeta (a capacity study needs it)
vegeta_check() {
  tool_ensure vegeta
  tool_check vegeta
}

# k6_check: the pinned k6 (a users ramp needs it), and the generator runs
# on this machine
k6_check() {
  [[ -z "${ROLE_LOADGEN_ENGINE:-}" ]] || die "bench: a users ramp runs k6 on this machine; the host profile gives the generator an engine"
  tool_ensure k6
  tool_check k6
}

# lane_file BASE LANE: a lane's report of a step (BASE.json for main)
lane_file() {
  if [[ "$2" == main ]]; then echo "$1.json"; else echo "$1.$2.json"; fi
}

# vegeta_lane OUT WINDOW LANE RATE SECONDS [FROM_NS LEAD]: LANE's share of
# RATE for SECONDS on the generator's CPUs: CPU time to OUT.time, report to
# OUT, every result to OUT.csv (the timeline). With LEAD it runs LEAD s more
# first and record cut keeps what was sent from FROM_NS. The report reads the
# results after the step: a live one cost 60 µs a request against 43
# (results/2026-12-01-local-capacity/NOTES.md).
vegeta_lane() {
  local out=$1 from=${6:-} lead=${7:-0} args=() bin rc=0 secs=$5 targets="$WORK/plan/$2.$3.targets"
  bin="$WORK/vegeta.$(basename "$out" .json).bin"
  [[ -z "$from" ]] || secs=$(($5 + lead))
  # (its targets on its stdin, here as on the generator's engine)
  mapfile -d '' -t args < <(lab_tool plan vegeta "$STUDY_FILE" "$2" --lane "$3" --targets /dev/stdin --rate "$4" --duration "$secs")
  role_tool loadgen "$LOADGEN_CPUS" - --time "$out.time" --deadline "$((secs + WINDOW_GRACE_S))" --stdin "$targets" --keep "bin=$bin" -- \
    vegeta "${args[@]}" -output @bin >/dev/null 2>"$out.stderr" || rc=$?
  if [[ -s "$bin" && -n "$from" ]]; then
    # the window only: what was sent after the lead-in
    taskset -c "$LOADGEN_CPUS" vegeta encode -to csv "$bin" >"$out.all.csv" 2>>"$out.stderr" &&
      taskset -c "$LOADGEN_CPUS" "$(lab_tool_path record)" cut "$out.csv" --from-ns "$from" --duration "$5" "$out.all.csv" 2>>"$out.stderr" &&
      taskset -c "$LOADGEN_CPUS" vegeta report -type=json "$out.csv" >"$out" 2>>"$out.stderr" || rc=1
    rm -f "$out.all.csv"
  elif [[ -s "$bin" ]]; then
    taskset -c "$LOADGEN_CPUS" vegeta report -type=json "$bin" >"$out" 2>>"$out.stderr" || rc=1
    # every result, for the step's latency timeline (vegeta_step compacts
    # the lanes into one); a warm-up keeps none
    [[ "$(basename "$out")" == warmup* ]] || taskset -c "$LOADGEN_CPUS" vegeta encode -to csv "$bin" >"$out.csv" 2>>"$out.stderr" || rc=1
  fi
  rm -f "$bin"
  return "$rc"
}

# vegeta_step BASE WINDOW RATE SECONDS [LEAD]: every lane at once, reports
# beside BASE; false when one failed. LEAD: one lead-in clock for all lanes.
vegeta_step() {
  local base=$1 lane pids=() outs=() i rc=0 lead=${5:-0} cut=()
  ((lead <= 0)) || cut=("$(($(date +%s%N) + lead * 1000000000))" "$lead")
  for lane in $(win "$2" lane); do
    in_background vegeta_lane "$(lane_file "$base" "$lane")" "$2" "$lane" "$3" "$4" "${cut[@]}"
    pids+=("$BG_PID") outs+=("$(lane_file "$base" "$lane")")
  done
  for i in "${!pids[@]}"; do
    finish_background "${pids[i]}" || rc=1
  done
  # the instruments stop with the load (ramp_step), before the compaction
  [[ "$(basename "$base")" == warmup* ]] || { hiccup_stop; sampler_stop; }
  local csvs=()
  for i in "${!outs[@]}"; do
    window_record "${outs[i]}" || rc=1
    [[ -s "${outs[i]}" ]] || rc=1
    [[ -s "${outs[i]}.csv" ]] && csvs+=(--vegeta-csv "${outs[i]}.csv")
  done
  if ((${#csvs[@]})); then
    lab_tool record timeline "$base.latency.jsonl" "${csvs[@]}" ||
      note "bench: ${base#"$RUN_DIR"/}: its latency timeline could not be written (see the line above)"
  fi
  for i in "${!outs[@]}"; do rm -f "${outs[i]}.csv"; done
  return "$rc"
}

# run_ramp RUN ROW WINDOW DIR: step after step until plan ramp says stop
run_ramp() {
  local run=$1 row=$2 w=$3 sdir="$4/$3" base warm
  mkdir -p "$sdir"
  while true; do
    RAMP_STEP="" RAMP_RATE="" RAMP_MAX_STEPS="" RAMP_UNIT="" RAMP_WHY="" RAMP_COOLDOWN="" RAMP_RESTART="" RAMP_TRIM="" RAMP_STOP="" RAMP_VERDICT=""
    RAMP_USERS="" RAMP_MEASURE_S="" RAMP_STEP_S="" RAMP_WARM_S="" RAMP_RESTART_WARM_S="" RAMP_AFTER=""
    assign_lines "$(lab_tool plan ramp "$STUDY_FILE" "$w" --dir "$sdir" --warmup "$WARMUP" --warmup-max "$WARMUP_MAX_S" \
      --lead-in "${LEAD_IN_S:-0}" --duration "$DURATION")"
    [[ -z "$RAMP_STOP" ]] || break
    [[ -n "$RAMP_STEP" && -n "$RAMP_RATE" ]] || { fail_cases "$run" "$row" "plan ramp gave no next step" "$w"; return 0; }
    base="$sdir/$(printf 'step-%02d' "$RAMP_STEP")" warm=$RAMP_WARM_S
    note "bench: run $run · $row $w step $RAMP_STEP (of at most $RAMP_MAX_STEPS, $RAMP_STEP_S s each): $RAMP_RATE $RAMP_UNIT${RAMP_WHY:+ ($RAMP_WHY)}"
    if [[ -n "$RAMP_RESTART" ]]; then
      ramp_restart "$run" "$row" "$base" "$RAMP_RESTART" || return 0
    elif [[ "$RAMP_COOLDOWN" == yes ]]; then
      ramp_cooldown "$run" "$row" "$base" || return 0
      [[ ! -e "$base.restart" ]] || warm=$RAMP_RESTART_WARM_S
    fi
    if [[ -n "$RAMP_USERS" ]]; then
      users_step "$run" "$row" "$w" "$sdir" "$RAMP_STEP" "$RAMP_USERS" "$RAMP_MEASURE_S" "$RAMP_TRIM" || return 0
    else
      ramp_step "$run" "$row" "$w" "$sdir" "$RAMP_STEP" "$RAMP_RATE" "$warm" "$RAMP_TRIM" || return 0
    fi
  done
  note "bench: run $run · $row $w: stopped ($RAMP_STOP); $RAMP_VERDICT"
}

# ports_settle: wait while too many of this machine's sockets are in
# TIME_WAIT after a failed step (bench/settle ports: its limits, and why)
ports_settle() { "$(lab_tool_path settle)" ports || true; }

# ramp_cooldown RUN ROW BASE: after a failed step, bench/settle beside the app
# into BASE.settle.json; an app that does not settle is restarted
ramp_cooldown() {
  local base=$3
  ports_settle
  # beside the app (on its machine when it has an engine): its cgroup, and
  # a probe of its ready path from there
  role_tool app "$ROLE_SAMPLER_CPUS" "$base.settle.json" -- settle --pid "$APP_PID" \
    --url "http://127.0.0.1:$APP_PORT$(ready_path "$(row_stack "$2")")" --out @OUT 2>>"$WORK/settle.log" && return 0
  ramp_restart "$1" "$2" "$base" "the app did not settle after the step before (within bench/settle's limit)"
}

# ramp_restart RUN ROW BASE WHY: a fresh app before the next step,
# BASE.restart saying why and (plan ramp's RAMP_AFTER) how that step warms up
ramp_restart() {
  note "bench: run $1 · $2: restarting the app before the next step: $4"
  echo "restarted: $4; $RAMP_AFTER" >"$3.restart"
  stack_stop "$CONTAINER" >/dev/null 2>&1 || true
  if ! session_start "$1" "$2"; then
    fail_cases "$1" "$2" "did not come back after a restart before a step" "${WINDOWS[@]}"
    return 1
  fi
}

# ramp_trim ROW BASE WHEN: delete the rows the app wrote since the seed
# (plan ramp says "trim yes" when the mix writes), a line to BASE.trim
ramp_trim() {
  local out rc=0
  # beside the app, on the sampler's CPUs: nothing of the lab's runs on
  # the app's CPUs just before its window
  out=$(role_tool app "$ROLE_SAMPLER_CPUS" - --data -- seed trim ${SEED_ARGS[@]+"${SEED_ARGS[@]}"} "$(row_db_target "$1" @DATA)" 2>&1) || rc=$?
  if ((rc == 0)); then
    echo "$3: $out" >>"$2.trim"
  else
    echo "$3: the trim failed: $out" >>"$2.trim"
    note "bench: ${2#"$RUN_DIR"/}: the rows written since the seed could not be deleted $3: $out"
  fi
}

# ramp_step RUN ROW WINDOW SDIR N RATE WARM [TRIM]: WARM s at RATE, then the
# step measured (on the seeded rows with TRIM yes); false when the ramp cannot
# go on. The attack starts LEAD_IN_S early, so the window never begins on an
# idle app (docs/capacity.md, "One stall is not a capacity").
ramp_step() {
  local run=$1 row=$2 w=$3 sdir=$4 n=$5 rate=$6 warm=$7 trim=${8:-} base rc=0
  base="$sdir/$(printf 'step-%02d' "$n")"
  ports_settle
  lab_tool record step "$base.target.json" --step "$n" --rate "$rate" --duration "$DURATION" --lead-in "${LEAD_IN_S:-0}"
  [[ "$trim" != yes ]] || ramp_trim "$row" "$base" "before the warm-up"
  vegeta_step "$WORK/warmup" "$w" "$rate" "$warm" || true
  [[ "$trim" != yes ]] || ramp_trim "$row" "$base" "before the window"
  local since from_ns
  since=$(date -u +%FT%T.%NZ) from_ns=$(date +%s%N)
  sampler_start "$base.cgroup.jsonl"
  hiccup_start "$base"
  vegeta_step "$base" "$w" "$rate" "$DURATION" "${LEAD_IN_S:-0}" || rc=$?
  runtime_pauses "$row" "$since" "$base.pauses.jsonl"
  upstream_lateness "$base" "$from_ns"
  step_end "$rc" "$run" "$row" "$w" "$base" "$n" "$rate req/s" vegeta "$(basename "$base").*.stderr"
}

# step_end RC RUN ROW WINDOW BASE N LOAD TOOL FILES: false, BASE.error written
# and the window failed, when the app exited or TOOL failed (RC)
step_end() {
  if ! container_running "$CONTAINER"; then
    echo "the container exited during the step" >"$5.error"
    fail_cases "$2" "$3" "the container exited during step $6 ($7)" "$4"
    return 1
  elif (($1 != 0)); then
    echo "$8 failed (see $9)" >"$5.error"
    fail_cases "$2" "$3" "$8 failed at step $6 (see $9)" "$4"
    return 1
  fi
}

# users_step RUN ROW WINDOW SDIR N USERS MEASURE [TRIM]: k6 runs plan k6's
# script with USERS users, the instruments over all of it, its summary into
# BASE.k6.json; false when the ramp cannot go on
users_step() {
  local run=$1 row=$2 w=$3 sdir=$4 n=$5 users=$6 measure=$7 trim=${8:-} base rc=0 since
  base="$sdir/$(printf 'step-%02d' "$n")"
  ports_settle
  lab_tool plan k6 "$STUDY_FILE" --url "http://${ROLE_APP_ADDR:-127.0.0.1}:$APP_PORT" --case "$w" --vus "$users" --seed "$run" >"$WORK/users.js"
  lab_tool record step "$base.target.json" --step "$n" --rate "$users" --duration "$measure" --lead-in 0
  [[ "$trim" != yes ]] || ramp_trim "$row" "$base" "before the step"
  since=$(date -u +%FT%T.%NZ)
  sampler_start "$base.cgroup.jsonl"
  hiccup_start "$base"
  LAB_K6_SUMMARY="$base.k6.json" K6_NO_USAGE_REPORT=true role_tool loadgen "$LOADGEN_CPUS" - --time "$base.json.time" -- \
    k6 run --quiet --no-color "$WORK/users.js" >/dev/null 2>"$base.json.stderr" || rc=$?
  hiccup_stop
  sampler_stop
  window_record "$base.json" || rc=1
  [[ -s "$base.k6.json" ]] || rc=1
  runtime_pauses "$row" "$since" "$base.pauses.jsonl"
  step_end "$rc" "$run" "$row" "$w" "$base" "$n" "$users users" k6 "$(basename "$base").json.stderr"
}
