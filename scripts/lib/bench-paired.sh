# shellcheck shell=bash
# The paired profile: every row up at once on its own port, the load
# alternating between them in short slices (plan schedule's order), so a slow
# vCPU falls on every row of a slice and a ratio taken slice by slice keeps
# steady. Slice k is written where run k's window would be, so a paired
# folder reads as any other. Sourced by scripts/bench after bench-case.sh.

# A row's port, container and files follow from its place in ROWS (the
# bench's port, then the next ones up); UP[place] is "CID PID" while it is up.
PAIRED_PORT=$APP_PORT UP=()

# paired_place ROW: ROW's place in ROWS, from 0
paired_place() {
  local i
  for i in "${!ROWS[@]}"; do [[ "${ROWS[i]}" != "$1" ]] || { echo "$i"; return; }; done
}

# paired_use ROW: point the session globals (the ones run_case and the
# sampler read) at ROW's container
paired_use() {
  PLACE=$(paired_place "$1")
  APP_PORT=$((PAIRED_PORT + PLACE)) CONTAINER=$(container_name "$1") PLAN="$WORK/plan/row-$PLACE"
  DB_DIR=$(app_data_dir "$CONTAINER")
  read -r CID APP_PID <<<"${UP[PLACE]:-}" || true
}

# paired_up ROW: is ROW's container up (started, and checked on its first start)?
paired_up() { [[ -n "${UP[$(paired_place "$1")]:-}" ]]; }

# paired_start ROW FIRST: ROW's container on a fresh database at its port,
# its checks on its first start (FIRST=1, into run-1's verify.txt), its
# warm-up; returns 1 (its windows are failed) when it did not come up
paired_start() {
  local row=$1 first=$2 dir="$RUN_DIR/raw/run-1/$1"
  paired_use "$row"
  mkdir -p "$dir"
  UP[PLACE]=""
  session_start 1 "$row" || return 1
  if ((first)); then
    lab_tool record resources "$dir/resources.json" --boot-ms "$BOOT_MS"
    check_row "$row" "$dir" || return 2
  fi
  UP[PLACE]="$CID $APP_PID"
}

# paired_warm ROW WINDOW: the window's load on ROW for the warm-up
paired_warm() {
  paired_use "$1"
  oha_window "$WORK/warmup.json" "$WARMUP" "$PLAN/$2.oha" || true
}

# paired_plan: each row's load files, against its own port
paired_plan() {
  local row w
  for row in "${ROWS[@]}"; do
    paired_use "$row"
    mkdir -p "$PLAN"
    for w in "${WINDOWS[@]}"; do plan_app_load "$w" "$APP_PORT" "$PLAN"; done
  done
}

# paired_without ROW WINDOW DIR: the slice beside a measured one without
# what the study's paired_check names: every instrument (.nosampler.json,
# the default), the timeline (.notimeline.json) or the hiccup meters
# (.nohiccup.json); the summary reads each against the measured slice.
paired_without() {
  container_running "$CONTAINER" || return 0
  case "${PAIRED_CHECK:-all}" in
    timeline) window_with "$3/$2.notimeline.json" "$PLAN/$2.oha" sampler ;;
    hiccup) window_with "$3/$2.nohiccup.json" "$PLAN/$2.oha" sampler timeline ;;
    *) window_with "$3/$2.nosampler.json" "$PLAN/$2.oha" ;;
  esac
}

# paired_fail ROW REASON WINDOW...: the row's windows of every slice failed
paired_fail() {
  local row=$1 reason=$2 k
  shift 2
  for ((k = 1; k <= RUNS; k++)); do
    mkdir -p "$RUN_DIR/raw/run-$k/$row"
    fail_cases "$k" "$row" "$reason" "$@"
  done
}

# The paired bench's runners (walk pair). pair_boot, pair_restart 1 ROW
# WINDOW: ROW up (again) for WINDOW, or out, its windows from WINDOW failed.
pair_boot() { pair_up boot "$2" "$3"; }
pair_restart() { pair_up restart "$2" "$3"; }
pair_up() {
  local kind=$1 row=$2 t0 rc=0 from=() w seen=0
  t0=$(eta_now)
  paired_start "$row" "$([[ "$kind" == boot ]] && echo 1 || echo 0)" || rc=$?
  eta_done "$kind" "$t0"
  ((rc)) || return 0
  for w in "${WINDOWS[@]}"; do
    [[ "$w" == "$3" ]] && seen=1
    ((seen == 0)) || from+=("$w")
  done
  ROWS_OUT+="$row "
  if ((rc == 1)); then
    paired_fail "$row" "did not answer 200 on $(ready_path "$(row_stack "$row")") within 60 s of starting" "${from[@]}"
  else
    paired_fail "$row" "failed its checks (see run-1's verify.txt): its numbers would not be comparable" "${from[@]}"
  fi
}

# pair_warmup 1 ROW WINDOW: ROW's warm-up for the case
pair_warmup() {
  paired_up "$2" && container_running "$(container_name "$2")" || return 0
  eta_timed warmup paired_warm "$2" "$3"
}

# pair_window K ROW WINDOW: slice K of ROW's case, measured where run K's
# window would be
pair_window() {
  local k=$1 row=$2 w=$3
  paired_up "$row" || return 0
  paired_use "$row"
  mkdir -p "$RUN_DIR/raw/run-$k/$row"
  if ! container_running "$CONTAINER"; then
    fail_cases "$k" "$row" "the container had exited before this slice" "$w"
    return 0
  fi
  progress "$k" "$row" "$w"
  eta_timed "window:$w" run_case "$k" "$row" "$w" "$RUN_DIR/raw/run-$k/$row"
  [[ -s "$RUN_DIR/raw/run-$k/$row/$w.json" ]] && MEASURED_WINDOWS=$((MEASURED_WINDOWS + 1))
}

# pair_sampler K ROW WINDOW: the study's sampler check beside slice K of ROW
# (where plan schedule puts it)
pair_sampler() {
  paired_up "$2" || return 0
  paired_use "$2"
  mkdir -p "$RUN_DIR/raw/run-$1/$2"
  eta_timed sampler paired_without "$2" "$3" "$RUN_DIR/raw/run-$1/$2"
}

pair_ceilings() { eta_timed ceilings upstream_ceilings 1; }

pair_stop() {
  paired_up "$2" || return 0
  eta_timed stop stack_stop "$(container_name "$2")" >/dev/null
}

bench_paired_main() {
  local k
  # (its steps: scripts/bench asked plan schedule before the bench began)
  paired_plan
  eta_start --paired
  ((NEEDS_UPSTREAM)) && upstream_start
  # one wait and one watch for every slice: each slice's evidence is theirs
  QUIET_GATE_FILE="$WORK/paired.gate.json"
  rm -f "$QUIET_GATE_FILE"
  eta_timed quiet quiet_wait "before the first slice"
  quiet_watch_start "$WORK/paired.quiet.json"
  for ((k = 1; k <= RUNS; k++)); do mkdir -p "$RUN_DIR/raw/run-$k"; done
  walk pair
  quiet_watch_stop "$WORK/paired.quiet.json"
  local evidence=()
  [[ -f "$WORK/paired.quiet.json" ]] && evidence=(--quiet "$WORK/paired.quiet.json")
  for ((k = 1; k <= RUNS; k++)); do
    # (slice K's order: the same for every case)
    lab_tool record run "$RUN_DIR" "$k" --order "$(steps_rows window "$k" "${WINDOWS[0]}" | paste -sd,)" ${evidence[@]+"${evidence[@]}"}
  done
  bench_finish
}
