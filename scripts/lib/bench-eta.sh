# shellcheck shell=bash
# The bench's time left: every phase a run goes through (the quiet-host
# wait, the ceiling windows, each row's boot and checks, its windows, the
# restarts of fresh_db windows, the sampler check, the stop), each counted
# from the plan and costed by the mean of the phases of its kind measured
# so far (a guess from the profile until one was). At the end, analysis/record
# compares the first estimate with the wall time and the measured windows.
# Sourced by scripts/bench; plain integer arithmetic, no statistics.

declare -gA ETA_LEFT=() ETA_SUM_MS=() ETA_N=() ETA_GUESS_MS=()
ETA_KINDS=(quiet ceilings boot window restart sampler stop)
ETA_T0_MS=0 ETA_FIRST_S="" ETA_NOW_S=0 MEASURED_WINDOWS=0 ETA_MARKS=()

eta_now() { echo $((${EPOCHREALTIME/./} / 1000)); }

declare -gA ETA_PER_RUN=()

# eta_start: the plan's phases counted, the first estimate printed
eta_start() {
  local w ceilings=0 fresh=0 rows=${#ROWS[@]}
  for w in "${WINDOWS[@]}"; do
    ((WIN_CEILING[$w])) && ceilings=$((ceilings + 1))
    ((WIN_FRESH[$w])) && fresh=$((fresh + 1))
  done
  ETA_PER_RUN=([quiet]=$QUIET_GATE [ceilings]=$((ceilings > 0 ? 1 : 0)) [boot]=$rows [window]=$((rows * ${#WINDOWS[@]}))
    [restart]=$((rows * fresh)) [sampler]=$((SAMPLER && ${#SAMPLER_CHECK} > 0 ? 1 : 0)) [stop]=$rows)
  # Until a phase of a kind has been measured: the profile's own lengths,
  # with what a phase took on this project's machines around them (a
  # window 0.2–0.5 s more than warm-up + window, boot and checks 0.6 s for
  # go and rust, ~2 s for the interpreters).
  # A capacity window is a ramp: plan's guess of its steps, each a warm-up
  # and a window plus about a second around it.
  local win=$(((WARMUP + DURATION) * 1000 + 500)) all=0
  for w in "${WINDOWS[@]}"; do
    if ((WIN_RAMP[$w])); then
      all=$((all + ${WIN_RAMP_STEPS[$w]:-10} * (win + 500)))
    else
      all=$((all + win))
    fi
  done
  ETA_GUESS_MS=([quiet]=$(((QUIET_FOR + 1) * 1000)) [ceilings]=$((ceilings * (DURATION * 1000 + 500))) [boot]=2000
    [window]=$((all / ${#WINDOWS[@]})) [restart]=1500 [sampler]=$win [stop]=500)
  eta_add_runs "$RUNS"
  ETA_T0_MS=$(eta_now)
  ETA_FIRST_S=$(eta_left_s)
  note "bench: $(eta_plan_line), about $(eta_fmt "$ETA_FIRST_S")"
}

# eta_add_runs N: N more runs' phases to do (the plan, or a run redone)
eta_add_runs() {
  local kind
  for kind in "${ETA_KINDS[@]}"; do ETA_LEFT[$kind]=$((${ETA_LEFT[$kind]:-0} + $1 * ${ETA_PER_RUN[$kind]:-0})); done
}

eta_plan_line() {
  echo "$RUNS run(s) of ${#ROWS[@]} row(s) × ${#WINDOWS[@]} window(s)"
}

# eta_mark: the time left now into ETA_NOW_S, as the progress line shows
# it; each estimate is kept (ms since the start:seconds left) to score the
# ETA at the end. Not in $(…): the marks would be lost with the subshell.
eta_mark() {
  ETA_NOW_S=$(eta_left_s)
  ETA_MARKS+=("$(($(eta_now) - ETA_T0_MS)):$ETA_NOW_S")
}

# eta_left_s: the seconds the phases still to do should take
eta_left_s() {
  local kind ms=0 mean
  for kind in "${ETA_KINDS[@]}"; do
    if ((${ETA_N[$kind]:-0} > 0)); then
      mean=$((ETA_SUM_MS[$kind] / ETA_N[$kind]))
    else
      mean=${ETA_GUESS_MS[$kind]:-0}
    fi
    ms=$((ms + ${ETA_LEFT[$kind]:-0} * mean))
  done
  echo $((ms / 1000))
}

eta_fmt() { echo "$(($1 / 60))m$(printf '%02d' $(($1 % 60)))s"; }

# eta_done KIND T0_MS: a phase of KIND that began at T0_MS is over
eta_done() {
  local took=$(($(eta_now) - $2))
  ETA_SUM_MS[$1]=$((${ETA_SUM_MS[$1]:-0} + took))
  ETA_N[$1]=$((${ETA_N[$1]:-0} + 1))
  eta_skip "$1" 1
}

# eta_skip KIND N: N phases of KIND will not happen (a row that failed)
eta_skip() {
  ETA_LEFT[$1]=$((${ETA_LEFT[$1]:-0} - $2))
  ((ETA_LEFT[$1] >= 0)) || ETA_LEFT[$1]=0
}

# eta_timed KIND CMD...: run CMD (in this shell) as a phase of KIND; its status
eta_timed() {
  local kind=$1 t0 rc=0
  shift
  t0=$(eta_now)
  "$@" || rc=$?
  eta_done "$kind" "$t0"
  return "$rc"
}

# eta_finish: the ETA's error and the orchestration overhead, into the
# manifest (record prints the line)
eta_finish() {
  local kind phases=()
  for kind in "${ETA_KINDS[@]}"; do
    phases+=(--phase "$kind=${ETA_N[$kind]:-0}:${ETA_SUM_MS[$kind]:-0}")
  done
  local mark marks=()
  for mark in "${ETA_MARKS[@]}"; do marks+=(--eta-at "$mark"); done
  lab_tool record timing "$RUN_DIR" --wall-ms $(($(eta_now) - ETA_T0_MS)) --eta-first-s "$ETA_FIRST_S" \
    --windows "$MEASURED_WINDOWS" --window-s "$DURATION" "${phases[@]}" "${marks[@]}" || true
}
