# shellcheck shell=bash
# The bench's time left: every phase a run goes through (the quiet-host
# wait, the ceiling windows, each row's boot and checks, its warm-ups and windows, the
# restarts of fresh_db windows, the sampler check, the stop), each counted
# from the plan and costed by the mean of the phases of its kind measured
# so far (a guess from the profile until one was). At the end, analysis/record
# compares the first estimate with the wall time and the measured windows.
# Sourced by scripts/bench; plain integer arithmetic, no statistics.

declare -gA ETA_LEFT=() ETA_SUM_MS=() ETA_N=() ETA_GUESS_MS=()
ETA_KINDS=(quiet ceilings boot warmup window restart sampler stop)
ETA_T0_MS=0 ETA_WARMUPS_PER_ROW=0 ETA_FIRST_S="" ETA_NOW_S=0 MEASURED_WINDOWS=0 ETA_MARKS=()

eta_now() { echo $((${EPOCHREALTIME/./} / 1000)); }

declare -gA ETA_PER_RUN=()

# eta_start: the plan's phases counted, the first estimate printed
eta_start() {
  local w ceilings=0 fresh=0 rows=${#ROWS[@]}
  for w in "${WINDOWS[@]}"; do
    ((WIN_CEILING[$w])) && ceilings=$((ceilings + 1))
    ((WIN_FRESH[$w])) && fresh=$((fresh + 1))
  done
  # warm-ups (warm_before): a container's first window is the row's first
  # and each fresh_db one
  local warmups=0 i=0
  for w in "${WINDOWS[@]}"; do
    if warm_before "$w" $((i == 0 || WIN_FRESH[$w])); then warmups=$((warmups + 1)); fi
    i=$((i + 1))
  done
  ETA_WARMUPS_PER_ROW=$warmups
  ETA_PER_RUN=([quiet]=$QUIET_GATE [ceilings]=$((ceilings > 0 ? 1 : 0)) [boot]=$rows [warmup]=$((rows * warmups)) [window]=$((rows * ${#WINDOWS[@]}))
    [restart]=$((rows * fresh)) [sampler]=$((SAMPLER && ${#SAMPLER_CHECK} > 0 ? 1 : 0)) [stop]=$rows)
  # Until a phase of a kind has been measured: the profile's own lengths,
  # with what a phase took on this project's machines around them (traced
  # 2026-12-01: a window 0.3 s more than its length (warm-up apart), the
  # canary's four readings 0.18 s of it; a warm-up 40 ms more than its
  # length; boot and checks 2.6 s and a restart 1.45 s on average over the
  # nine stacks, 0.3 s for go and c, 8 s for java-spring).
  # A capacity window is a ramp: plan's guess of its steps, each a warm-up
  # and a window plus about a second around it.
  # A warm-up runs until the app is steady: 5.0 s on average over the 72
  # of the default quick study, nine stacks
  # (results/2026-12-01-local-all-quick-steady), never under the profile's
  # WARMUP; a ramp's step warms up for WARMUP exactly.
  local warm=$((WARMUP * 1000 + 40)) steady=$(((WARMUP > 5 ? WARMUP : 5) * 1000 + 40)) win=$((DURATION * 1000 + 300)) all=0
  for w in "${WINDOWS[@]}"; do
    if ((WIN_RAMP[$w])); then
      all=$((all + ${WIN_RAMP_STEPS[$w]:-10} * (warm + win + 500)))
    else
      all=$((all + win))
    fi
  done
  ETA_GUESS_MS=([quiet]=$(eta_quiet_guess_ms) [ceilings]=$((ceilings * (DURATION * 1000 + 100))) [boot]=2600
    [warmup]=$steady [window]=$((all / ${#WINDOWS[@]})) [restart]=1450 [sampler]=$((warm + 3 * win)) [stop]=150)
  eta_add_runs "$RUNS"
  ETA_T0_MS=$(eta_now)
  ETA_FIRST_S=$(eta_left_s)
  note "bench: $(eta_plan_line), about $(eta_fmt "$ETA_FIRST_S")"
}

# eta_quiet_guess_ms: how long the quiet-host gate should wait, from the
# load average now. The 1-minute load decays by e^(-t/60) on an idle host,
# so from L above the gate G it takes 60·ln(L/G) s to get under it, then
# QUIET_FOR s under it; never more than the gate's timeout.
eta_quiet_guess_ms() {
  local load
  load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
  awk -v l="$load" -v g="${QUIET_LOAD:-2.0}" -v f="$QUIET_FOR" -v t="$QUIET_TIMEOUT" -v on="$QUIET_GATE" 'BEGIN {
    if (!on) { print 0; exit }
    s = f + 1
    if (l + 0 >= g + 0) s += 60 * log(l / g)
    if (s > t + 1) s = t + 1
    printf "%d\n", s * 1000
  }'
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

# late_left: the late images (bench-run.sh's LATE_STACKS) not built yet
late_left() {
  local s n=0
  for s in "${LATE_STACKS[@]}"; do [[ -n "${IMAGE_TAG[$s]:-}" ]] || n=$((n + 1)); done
  echo "$n"
}

# eta_build_done T0_MS: a late image build (and the settling after it)
# that began at T0_MS is over. Its time is not the bench's: the ETA never
# counted it (the progress line says how many builds are still to come),
# so the bench's clock skips it, and the wall time, the overhead and the
# ETA's error are those of the measuring alone. record timing keeps it
# apart, as the phase "build".
ETA_BUILD_N=0 ETA_BUILD_MS=0
eta_build_done() {
  local took=$(($(eta_now) - $1))
  ETA_BUILD_N=$((ETA_BUILD_N + 1)) ETA_BUILD_MS=$((ETA_BUILD_MS + took)) ETA_T0_MS=$((ETA_T0_MS + took))
}

# eta_finish: the ETA's error and the orchestration overhead, into the
# manifest (record prints the line)
eta_finish() {
  local kind phases=()
  for kind in "${ETA_KINDS[@]}"; do
    phases+=(--phase "$kind=${ETA_N[$kind]:-0}:${ETA_SUM_MS[$kind]:-0}")
  done
  ((ETA_BUILD_N == 0)) || phases+=(--phase "build=$ETA_BUILD_N:$ETA_BUILD_MS")
  local mark marks=()
  for mark in "${ETA_MARKS[@]}"; do marks+=(--eta-at "$mark"); done
  lab_tool record timing "$RUN_DIR" --wall-ms $(($(eta_now) - ETA_T0_MS)) --eta-first-s "$ETA_FIRST_S" \
    --windows "$MEASURED_WINDOWS" --window-s "$DURATION" "${phases[@]}" "${marks[@]}" || true
}
