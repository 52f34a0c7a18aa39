# shellcheck shell=bash
# The bench's time left, which bench/plan/eta.go estimates: here each phase
# is timed and told to plan eta, and the lines printed are plan's; its state
# is a file of the scratch folder. Sourced by scripts/bench.

MEASURED_WINDOWS=0

eta_now() { echo $((${EPOCHREALTIME/./} / 1000)); }

# eta PLAN_ETA_ARGS...: plan eta on the bench's state file
eta() { lab_tool plan eta "$WORK/eta.json" "$@"; }

# eta_start [--paired]: the schedule's steps costed, the first estimate printed
eta_start() {
  local line
  line=$(plan_walk eta-start --state "$WORK/eta.json" "$@" --runs "$RUNS" --warmup "$WARMUP" --duration "$DURATION" \
    --warm-each "$WARM_EACH" --quiet-gate "$QUIET_GATE" --quiet-for "$QUIET_FOR" --quiet-timeout "$QUIET_TIMEOUT" \
    --quiet-load "$QUIET_LOAD") || die "bench: plan eta-start failed (above)"
  note "bench: $line"
}

# progress RUN ROW WINDOW: the line before a window, plan eta's (the case
# among those planned, the time left, the image builds still to come)
progress() { note "bench: $(eta progress "$1" "$2" "$3" "$(late_left)")"; }

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
# that began at T0_MS is over: plan eta keeps it apart (phase "build")
# and out of the bench's clock, which the ETA never counted it in
eta_build_done() { eta build-done $(($(eta_now) - $1)); }

# eta_finish: the ETA's error and the orchestration overhead, into the
# manifest (record prints the line), from plan eta's account
eta_finish() {
  local timing=()
  mapfile -t timing < <(eta timing)
  lab_tool record timing "$RUN_DIR" "${timing[@]}" --windows "$MEASURED_WINDOWS" --window-s "$DURATION" || true
}
