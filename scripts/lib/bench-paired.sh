# shellcheck shell=bash
# The paired profile (issue #15, item 8): every row of the study up at once,
# each on its own port, and the load alternating between them in short
# slices, each slice's rows in a shuffled order. A slow period of the vCPU
# then falls on every row of the slices it spans, so a ratio between two
# rows taken slice by slice keeps steadier than one between two sequential
# windows. Slice k of every row is written where run k's window would be
# (raw/run-k/<row>/<case>.json), so the summary's tables, the self-test and
# `just compare` read a paired folder as they read any other; the summary's
# "paired slices" section gives the per-slice ratios.
#
# Sourced by scripts/bench after bench-run.sh and bench-case.sh.

declare -gA P_PORT=() P_CONTAINER=() P_DB=() P_CID=() P_PID=() P_PLAN=()

# slice_order K: the rows of slice K, shuffled by plan with K as the seed
# (the same on every host; the same order for every case, so the manifest
# can record it once per slice)
slice_order() {
  lab_tool plan order "$1" "${ROWS[@]}"
}

# paired_use ROW: point the session globals (the ones run_case and the
# sampler read) at ROW's container
paired_use() {
  APP_PORT=${P_PORT[$1]} CONTAINER=${P_CONTAINER[$1]} DB_DIR=${P_DB[$1]}
  CID=${P_CID[$1]:-} APP_PID=${P_PID[$1]:-} PLAN=${P_PLAN[$1]}
}

# paired_start ROW FIRST: ROW's container on a fresh database at its port,
# its checks on its first start (FIRST=1, into run-1's verify.txt), its
# warm-up; returns 1 (its windows are failed) when it did not come up
paired_start() {
  local row=$1 first=$2 dir="$RUN_DIR/raw/run-1/$1" w
  paired_use "$row"
  mkdir -p "$dir"
  if ! session_start 1 "$row"; then
    P_CID[$row]=""
    return 1
  fi
  P_CID[$row]=$CID P_PID[$row]=$APP_PID
  if ((first)); then
    lab_tool record resources "$dir/resources.json" --boot-ms "$BOOT_MS"
    check_row "$row" "$dir" || { P_CID[$row]=""; return 2; }
  fi
  return 0
}

# paired_warm ROW WINDOW: the window's load on ROW for the warm-up
paired_warm() {
  paired_use "$1"
  oha_window "$WORK/warmup.json" "$WARMUP" "$PLAN/$2.oha" || true
}

paired_plan() {
  local i=0 row w
  for row in "${ROWS[@]}"; do
    P_PORT[$row]=$((APP_PORT + i))
    P_CONTAINER[$row]=$(container_name "$row")
    P_DB[$row]=$(app_data_dir "${P_CONTAINER[$row]}")
    P_PLAN[$row]="$WORK/plan/row-$i"
    mkdir -p "${P_PLAN[$row]}"
    for w in "${WINDOWS[@]}"; do plan_app_load "$w" "${P_PORT[$row]}" "${P_PLAN[$row]}"; done
    i=$((i + 1))
  done
}

# paired_without ROW WINDOW DIR: the slice beside a measured one, without
# what the study's paired_check names (plan describe): every instrument
# (no cgroup sampler, no store of every answer, no hiccup meters:
# <window>.nosampler.json, the default), the latency timeline (oha's
# store and the hiccup meters, the sampler on: .notimeline.json) or the
# hiccup meters alone (.nohiccup.json); the summary's cost sections read
# each against the measured slice.
paired_without() {
  container_running "$CONTAINER" || return 0
  local out
  case "${PAIRED_CHECK:-all}" in
    timeline)
      out="$3/$2.notimeline.json"
      sampler_start "$WORK/check.cgroup.jsonl"
      window_start "$out" "$DURATION" "$PLAN/$2.oha"
      window_finish "$BG_PID" "$out" || true
      sampler_stop
      ;;
    hiccup)
      out="$3/$2.nohiccup.json"
      sampler_start "$WORK/check.cgroup.jsonl"
      window_start "$out" "$DURATION" "$PLAN/$2.oha" timeline
      window_finish "$BG_PID" "$out" || true
      sampler_stop
      rm -f "$3/$2.nohiccup.latency.jsonl"
      ;;
    *)
      out="$3/$2.nosampler.json"
      window_start "$out" "$DURATION" "$PLAN/$2.oha"
      window_finish "$BG_PID" "$out" || true
      ;;
  esac
  rm -f "$WORK"/check.*
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

bench_paired_main() {
  local w k row first=1 rows=${#ROWS[@]} up=()
  ((rows >= 2)) || die "bench: the paired profile compares rows: ${STUDY_FILE#"$LAB_ROOT"/} runs ${rows} (give two or more with --stacks)"
  for w in "${WINDOWS[@]}"; do
    ! win_is "$w" ramp || die "bench: the paired profile runs closed-loop cases; '$w' is a capacity ramp"
  done
  paired_plan
  eta_start --paired
  ((NEEDS_UPSTREAM)) && upstream_start
  # one wait and one watch for every slice: each slice's evidence is theirs
  QUIET_GATE_FILE="$WORK/paired.gate.json"
  rm -f "$QUIET_GATE_FILE"
  eta_timed quiet quiet_wait "before the first slice"
  quiet_watch_start "$WORK/paired.quiet.json"
  for ((k = 1; k <= RUNS; k++)); do mkdir -p "$RUN_DIR/raw/run-$k"; done
  # the mock's own ceiling, once (run-1), for the upstream rows to be read against
  (($(eta left-of ceilings))) && eta_timed ceilings upstream_ceilings 1
  local wi t0 rc gone=" " # gone: the rows out (they did not come up, or failed their checks)
  for ((wi = 0; wi < ${#WINDOWS[@]}; wi++)); do
    w=${WINDOWS[wi]}
    # Every row comes up (again, on a fresh database) for the first case and
    # for each fresh_db case; the others keep their containers. A row that
    # failed to come up or failed its checks is out for the cases left.
    if ((first)) || win_is "$w" fresh_db; then
      up=()
      for row in "${ROWS[@]}"; do
        [[ "$gone" != *" $row "* ]] || continue
        t0=$(eta_now) rc=0
        paired_start "$row" "$first" || rc=$?
        eta_done "$( ((first)) && echo boot || echo restart)" "$t0"
        case $rc in
          0) up+=("$row") ;;
          1) gone+="$row "
            paired_fail "$row" "did not answer 200 on $(ready_path "$(row_stack "$row")") within 60 s of starting" "${WINDOWS[@]:wi}" ;;
          *) gone+="$row "
            paired_fail "$row" "failed its checks (see run-1's verify.txt): its numbers would not be comparable" "${WINDOWS[@]:wi}" ;;
        esac
      done
      first=0
    fi
    # (each row's warm-up for the case is timed as a window: the ETA counts it so)
    for row in ${up[@]+"${up[@]}"}; do
      [[ -n "${P_CID[$row]:-}" ]] && container_running "${P_CONTAINER[$row]}" && eta_timed window paired_warm "$row" "$w"
    done
    for ((k = 1; k <= RUNS; k++)); do
      while read -r row; do
        [[ -n "${P_CID[$row]:-}" ]] || continue
        paired_use "$row"
        if ! container_running "$CONTAINER"; then
          mkdir -p "$RUN_DIR/raw/run-$k/$row"
          fail_cases "$k" "$row" "the container had exited before this slice" "$w"
          continue
        fi
        mkdir -p "$RUN_DIR/raw/run-$k/$row"
        progress "$k" "$row" "$w"
        # The study's sampler check, on the first row: the same slice again
        # without the sampler, right before it in even slices and right
        # after in odd ones, so the summary's sampler cost is a median of
        # RUNS adjacent pairs.
        local check=0
        ((SAMPLER)) && [[ "$w" == "$SAMPLER_CHECK" && "$row" == "${ROWS[0]}" ]] && check=1
        ((check && k % 2 == 0)) && eta_timed sampler paired_without "$row" "$w" "$RUN_DIR/raw/run-$k/$row"
        eta_timed window run_case "$k" "$row" "$w" "$RUN_DIR/raw/run-$k/$row"
        ((check && k % 2 == 1)) && eta_timed sampler paired_without "$row" "$w" "$RUN_DIR/raw/run-$k/$row"
        [[ -s "$RUN_DIR/raw/run-$k/$row/$w.json" ]] && MEASURED_WINDOWS=$((MEASURED_WINDOWS + 1))
        WINDOWS_DONE=$((WINDOWS_DONE + 1))
      done < <(slice_order "$k")
    done
  done
  for row in "${ROWS[@]}"; do
    [[ -n "${P_CID[$row]:-}" ]] || continue
    eta_timed stop stack_stop "${P_CONTAINER[$row]}" >/dev/null
  done
  quiet_watch_stop "$WORK/paired.quiet.json"
  local evidence=()
  [[ -f "$WORK/paired.quiet.json" ]] && evidence=(--quiet "$WORK/paired.quiet.json")
  for ((k = 1; k <= RUNS; k++)); do
    lab_tool record run "$RUN_DIR" "$k" --order "$(slice_order "$k" | paste -sd,)" ${evidence[@]+"${evidence[@]}"}
  done
  bench_finish
}

