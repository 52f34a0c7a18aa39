# shellcheck shell=bash
# The bench's time left. bench/plan (eta.go) owns the estimate: the steps
# of plan schedule still to walk, each costed as the phases it goes
# through (a window's restart and warm-up, the window), at the mean of
# those measured so far (a guess until one was), and the quiet-host waits
# still to come. Here each phase is timed and told to plan eta, each step
# walked is ended there (walk, bench-run.sh), and the lines printed are
# what plan says; its state is a file of the bench's scratch folder. At
# the end, bench/record compares the first estimate with the wall time
# and the measured windows. Sourced by scripts/bench.

ETA_T0_MS=0 ETA_FIRST_S="" ETA_NOW_S=0 MEASURED_WINDOWS=0 ETA_MARKS=()

eta_now() { echo $((${EPOCHREALTIME/./} / 1000)); }

# eta PLAN_ETA_ARGS...: plan eta on the bench's state file
eta() { lab_tool plan eta "$WORK/eta.json" "$@"; }

# eta_start [--paired]: the schedule's steps costed, the first estimate printed
eta_start() {
  local line
  line=$(plan_walk eta-start --state "$WORK/eta.json" "$@" --runs "$RUNS" --warmup "$WARMUP" --duration "$DURATION" \
    --warm-each "$WARM_EACH" --quiet-gate "$QUIET_GATE" --quiet-for "$QUIET_FOR" --quiet-timeout "$QUIET_TIMEOUT" \
    --quiet-load "$QUIET_LOAD") || die "bench: plan eta-start failed (above)"
  ETA_T0_MS=$(eta_now)
  ETA_FIRST_S=$(eta first)
  note "bench: $line"
}

# eta_mark: the time left now into ETA_NOW_S, as the progress line shows
# it; each estimate is kept (ms since the start:seconds left) to score the
# ETA at the end. Not in $(…): the marks would be lost with the subshell.
eta_mark() {
  ETA_NOW_S=$(eta left)
  ETA_MARKS+=("$(($(eta_now) - ETA_T0_MS)):$ETA_NOW_S")
}

eta_fmt() { echo "$(($1 / 60))m$(printf '%02d' $(($1 % 60)))s"; }

# eta_done KIND[:WINDOW] T0_MS: a phase of KIND (a window's: of WINDOW)
# that began at T0_MS is over
eta_done() {
  local kind=${1%%:*} id=""
  [[ "$1" != *:* ]] || id=${1#*:}
  eta "done" "$kind" $(($(eta_now) - $2)) ${id:+"$id"}
}

# eta_timed KIND[:WINDOW] CMD...: run CMD (in this shell) as a phase of KIND; its status
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
  local phase phases=()
  while read -r phase; do phases+=(--phase "$phase"); done < <(eta phases)
  ((ETA_BUILD_N == 0)) || phases+=(--phase "build=$ETA_BUILD_N:$ETA_BUILD_MS")
  local mark marks=()
  for mark in "${ETA_MARKS[@]}"; do marks+=(--eta-at "$mark"); done
  lab_tool record timing "$RUN_DIR" --wall-ms $(($(eta_now) - ETA_T0_MS)) --eta-first-s "$ETA_FIRST_S" \
    --windows "$MEASURED_WINDOWS" --window-s "$DURATION" "${phases[@]}" "${marks[@]}" || true
}
