# shellcheck shell=bash
# The bench's outer loop: the lock, the results folder, runs in alternating
# order, the quiet-host gate, and a cleanup that leaves nothing behind on any
# exit path. Sourced by scripts/bench after its arguments are parsed.

APP_PORT=${LAB_APP_PORT:-8080}
UPSTREAM_PORT=${LAB_UPSTREAM_PORT:-9090}
BENCH_ID="bench-$$"
WORK="$LAB_ROOT/.work/$BENCH_ID"
BG_PIDS=()          # samplers, watchers and load generators running now
FINISHED=0          # set once the manifest is closed normally
INTERRUPTED=""      # the signal that ended the bench, if any
FAILED_CASES=0
LATE_STACKS=()      # quick: stacks whose image is built just before their turn

bench_lock() {
  mkdir -p "$LAB_ROOT/.work"
  exec 9>"$LAB_ROOT/.work/bench.lock"
  if ! flock -n 9; then
    orphan_lock_holders
    flock -w 10 9 ||
      die "bench: another bench holds the lab ($(cat "$LAB_ROOT/.work/bench.owner" 2>/dev/null || echo 'owner unknown')); wait for it or stop it"
  fi
  reap_dead_bench
  lab_tool record own "$LAB_ROOT" --pid $$ --results "$RESULTS_ROOT"
}

# orphan_lock_holders: what a dead bench started in groups of their own
# (they outlive a SIGKILL of its group) still holds the lock: record reap
# names them, and they end, so the next bench can take it.
orphan_lock_holders() {
  local p
  for p in $(lab_tool record reap "$LAB_ROOT" --lock-holders --self $$); do kill -KILL "$p" 2>/dev/null || true; done
}

# reap_dead_bench: what a dead bench left would block this one: record reap
# judges it (and marks its folder incomplete), the containers it names go,
# and its one line says what was found and done.
reap_dead_bench() {
  local kind what
  while read -r kind what; do
    case "$kind" in
      container) docker rm -f -v "$what" >/dev/null 2>&1 || true ;;
      say) note "$what" ;;
    esac
  done < <(docker ps -a --filter label=stacklab.bench --format '{{.ID}} {{.Label "stacklab.bench"}}' 2>/dev/null |
    lab_tool record reap "$LAB_ROOT" --self $$ --native "$(native_reap)")
}

# cleanup runs on every exit: stop what the bench started, close the manifest.
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  ((${OHA_LATER:-0})) && oha_stop
  local pid
  for pid in "${BG_PIDS[@]}"; do kill_tree "$pid"; done
  for pid in "${BG_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  docker ps -aq --filter "label=stacklab.bench=$BENCH_ID" | xargs -r docker rm -f -v >/dev/null 2>&1 || true
  engines_cleanup
  if native_mode; then native_cleanup; fi
  if declare -F size_cleanup >/dev/null; then size_cleanup; fi
  if ((FINISHED == 0)) && [[ -n "${RUN_DIR:-}" && -f "$RUN_DIR/manifest.json" ]]; then
    local why=${INTERRUPTED:+interrupted by $INTERRUPTED}
    lab_tool record finish "$RUN_DIR" --incomplete "${why:-bench exited early (status $rc)}" || true
    note "bench: stopped; ${RUN_DIR#"$LAB_ROOT"/} is marked incomplete (its raw files are kept)"
  fi
  rm -rf "$WORK"
  rm -f "$LAB_ROOT/.work/bench.owner"
  exit "$rc"
}

on_signal() {
  INTERRUPTED=$1
  note "bench: $1 received, cleaning up"
  [[ "$1" == SIGINT ]] && exit 130
  exit 143
}

# in_background CMD...: start CMD, remember its pid in BG_PID and BG_PIDS
in_background() {
  "$@" &
  BG_PID=$!
  BG_PIDS+=("$BG_PID")
}

# finish_background PID: wait for PID (interruptible by a signal) and forget it
finish_background() {
  local rc=0 p keep=()
  wait "$1" || rc=$?
  for p in "${BG_PIDS[@]}"; do [[ "$p" != "$1" ]] && keep+=("$p"); done
  BG_PIDS=("${keep[@]}")
  return "$rc"
}

# new_results_dir: RUN_DIR, this bench's new results folder (record new-dir
# names it in the owner file, for the next bench's reap)
new_results_dir() {
  RUN_DIR=$(lab_tool record new-dir "$RESULTS_ROOT" --host "$HOST_NAME" --study "$STUDY" --label "$LABEL" --owner "$LAB_ROOT") ||
    die "bench: could not make a results folder in $RESULTS_ROOT (above)"
}

lab_commit() {
  local c
  c=$(git -C "$LAB_ROOT" rev-parse HEAD 2>/dev/null || echo unknown)
  [[ -n "$(git -C "$LAB_ROOT" status --porcelain -- . ':!results' 2>/dev/null)" ]] && c="$c-dirty"
  echo "$c"
}

bench_prepare() {
  trap cleanup EXIT
  trap 'on_signal SIGINT' INT
  trap 'on_signal SIGTERM' TERM
  mkdir -p "$WORK"
  local NATIVE="" NOW="" LATE="" WHILE_OHA="" now=() native=() r s
  images_plan
  read -ra now <<<"$NOW"
  read -ra LATE_STACKS <<<"$LATE"
  # The native mode builds each stack with its own toolchain, here, and
  # needs none of their images; the lab's own roles (the mock upstream,
  # Postgres) stay in Docker.
  if native_mode; then
    app_remote && bad "bench: --mode native runs the stacks on this machine; ${HOST_PROFILE_FILE#"$LAB_ROOT"/} gives the app an engine (APP_ENGINE)"
    lab_tool native check --cpus "$APP_CPUS" --memory "$APP_MEMORY" ${APP_CPU_QUOTA:+--quota "$APP_CPU_QUOTA"} || exit 2
    read -ra native <<<"$NATIVE"
    native_build "${native[@]}"
  fi
  if ((NEEDS_POSTGRES)); then
    # the server role stays on the bench's engine, and an app elsewhere
    # would reach it over the network: not built
    app_remote && die "bench: ${STUDY_FILE#"$LAB_ROOT"/}: a row on Postgres with the app on its own engine (APP_ENGINE=$ROLE_APP_ENGINE in ${HOST_PROFILE_FILE#"$LAB_ROOT"/}) is not built: the server role runs on the bench's engine"
    pg_role_check
  fi
  # While oha compiles, the first row's late image too (LATE's first); if
  # it fails, late_image tries again in its turn and records the failure.
  if [[ -n "$WHILE_OHA" ]]; then
    note "bench: building $WHILE_OHA's image while oha compiles"
    ! "$LAB_ROOT/scripts/images" "$WHILE_OHA" || { now+=("$WHILE_OHA"); LATE_STACKS=("${LATE_STACKS[@]:1}"); }
  fi
  ((${#now[@]} == 0)) || "$LAB_ROOT/scripts/images" "${now[@]}"
  for s in "${now[@]}"; do IMAGE_TAG[$s]=$(require_image "$s"); done
  ((OHA_LATER == 0)) || oha_wait
  ((${#LATE_STACKS[@]} == 0)) || note "bench: not built yet, measured once built: ${LATE_STACKS[*]}"
  # a build variant's row runs its own image, built with its arguments
  for r in "${ROWS[@]}"; do
    [[ -n "${ROW_BUILD[$r]:-}" ]] || continue
    LAB_BUILD_ARGS=${ROW_BUILD[$r]} "$LAB_ROOT/scripts/images" "$(row_stack "$r")"
    IMAGE_TAG[$r]=$(LAB_BUILD_ARGS=${ROW_BUILD[$r]} image_tag "$(row_stack "$r")")
  done
  plan_windows
  local commit
  commit=$(lab_commit)
  # Refused before anything is written: a port another server holds.
  role_port_free app "$APP_PORT" "the bench's first stack"
  ((NEEDS_UPSTREAM)) && role_port_free upstream "$UPSTREAM_PORT" "the mock upstream"
  new_results_dir
  [[ -n "${BENCH_DIR_OUT:-}" ]] && echo "$RUN_DIR" >"$BENCH_DIR_OUT"
  local tools=() name version
  while read -r name version; do tools+=(--tool "$name=$version"); done < <(tool_versions)
  local engines=()
  if ((ROLE_ENGINES)); then
    engines_record "$WORK/engines.json"
    engines=(--engines "$WORK/engines.json")
  fi
  seed_record
  note "bench: study $STUDY, profile $PROFILE, host profile $HOST_NAME, stacks ${ROWS[*]} -> ${RUN_DIR#"$LAB_ROOT"/}"
  # record start derives the rest from the study, profile, host profile and stacks
  lab_tool record start "$RUN_DIR" --study-file "$STUDY_FILE" --profile "$PROFILE" --label "$LABEL" \
    --host-profile "$HOST_PROFILE_FILE" --lab-root "$LAB_ROOT" --extra-stacks "${LAB_EXTRA_STACKS:-}" \
    --runs "$RUNS" --warmup "$WARMUP" --duration "$DURATION" --stacks "$(IFS=,; echo "${ROWS[*]}")" \
    --app-port "$APP_PORT" --quiet-gate "$QUIET_GATE" --seed-checksum "$SEED_CHECKSUM" --mode "${RUN_MODE:-docker}" \
    "${tools[@]}" --lab-commit "$commit" --shared-host "${LAB_SHARED_HOST:-}" ${engines[@]+"${engines[@]}"}
  for s in "${now[@]}"; do record_image "$s"; done
  for r in "${ROWS[@]}"; do [[ -z "${ROW_BUILD[$r]:-}" ]] || record_image "$r" "${IMAGE_TAG[$r]}"; done
}

# oha_wait: bootstrap waits for oha's background compile and links it (or
# says why there is none); then that oha is checked
oha_wait() {
  local t0=$SECONDS
  # (in the background, so a signal to the bench is taken at once)
  in_background "$LAB_ROOT/scripts/bootstrap" >&2
  finish_background "$BG_PID" || exit 1
  OHA_LATER=0
  PATH="$PATH:$LAB_ROOT/.tools/bin"
  tool_check oha
  note "bench: oha built; waited $((SECONDS - t0)) s for it"
}

# late_stack ROW: does ROW's stack wait for its image (LATE_STACKS)?
late_stack() { [[ " ${LATE_STACKS[*]} " == *" $(row_stack "$1") "* ]]; }

# late_image RUN ROW: ROW's late image built now, then the host let settle
# before the row is measured; its time is the ETA's build phase, out of the
# bench's clock. A failed build fails the row's windows, not the bench.
late_image() {
  local s t0
  s=$(row_stack "$2")
  # (a build variant's row runs its own image, built before the bench)
  [[ -z "${IMAGE_TAG[$s]:-}" && -z "${ROW_BUILD[$2]:-}" ]] && late_stack "$2" || return 0
  t0=$(eta_now)
  note "bench: building $s's image before measuring it ($(late_left) left to build, this one included)"
  if ! "$LAB_ROOT/scripts/images" "$s"; then
    mkdir -p "$RUN_DIR/raw/run-$1/$2"
    CONTAINER=$(container_name "$2")
    fail_cases "$1" "$2" "its image did not build (see .tools/images/$s.build.log)" "${WINDOWS[@]}"
    eta_build_done "$t0"
    return 1
  fi
  IMAGE_TAG[$s]=$(require_image "$s")
  record_image "$s"
  sync
  quiet_wait "after building $s's image"
  eta_build_done "$t0"
}

# record_image NAME [TAG]: NAME's image (a stack's, or a build variant
# row's TAG) in the manifest
record_image() {
  local tag=${2:-}
  [[ -n "$tag" ]] || tag=$(require_image "$1")
  lab_tool record image "$RUN_DIR" "$1" --tag "$tag" \
    --id "$(docker image inspect -f '{{.Id}}' "$tag")" \
    --size "$(docker image inspect -f '{{.Size}}' "$tag")" \
    --compressed "$(cat "$LAB_ROOT/.tools/images/$(docker image inspect -f '{{.Id}}' "$tag" | sed 's/^sha256://').gz-bytes" 2>/dev/null || echo 0)" \
    --digest "$(image_files_digest "$tag")"
}

# images_plan: NOW, LATE, WHILE_OHA and NATIVE, the images built when (plan
# images decides, handed the rows' tags and the images Docker has)
images_plan() {
  local out
  out=$(lab_tool plan images "$STUDY_FILE" --rows "$(IFS=,; echo "${ROWS[*]}")" --connections "$CONNECTIONS" \
    --lab-root "$LAB_ROOT" --extra-stacks "${LAB_EXTRA_STACKS:-}" --mode "${RUN_MODE:-docker}" \
    --late-images "$LATE_IMAGES" --oha-later "$OHA_LATER" --tags <(stack_tool tags "${ROW_STACK[@]}") \
    --images <(docker images --format '{{.Repository}}:{{.Tag}}' 2>/dev/null)) || exit 1
  assign_lines "$out"
}

# plan_walk SUBCOMMAND FLAGS...: plan schedule or eta-start with this
# bench's flags, the same for both, so the ETA costs the steps walked
plan_walk() {
  local late
  late=$(IFS=,; echo "${LATE_STACKS[*]}")
  lab_tool plan "$1" "$STUDY_FILE" --rows "$(IFS=,; echo "${ROWS[*]}")" --connections "$CONNECTIONS" ${late:+--late "$late"} \
    --sampler-check "$SAMPLER_CHECK" --sampler "$SAMPLER" "${@:2}"
}

# schedule FLAGS...: plan schedule's steps into STEPS; a schedule it
# refuses ends the bench in its line
schedule() {
  local out rc=0
  out=$(plan_walk schedule "$@" 2>&1) || rc=$?
  out=${out#plan schedule: }
  ((rc == 0)) || bad "bench: ${out#"$LAB_ROOT"/}"
  mapfile -t STEPS <<<"$out"
}

# walk PREFIX: each of STEPS ("KIND RUN ROW WINDOW") run by PREFIX_KIND and
# ended in the ETA; a row that is out (ROWS_OUT) skips its other steps
walk() {
  local step kind run row w
  ROWS_OUT=" "
  for step in "${STEPS[@]}"; do
    read -r kind run row w <<<"$step"
    [[ "$ROWS_OUT" != *" $row "* ]] || continue
    "$1_$kind" "$run" "$row" "$w"
    if [[ "$ROWS_OUT" == *" $row "* ]]; then eta drop "$run" "$row"; else eta end "$kind" "$run" "$row" "$w"; fi
  done
}

# steps_rows KIND [RUN WINDOW]: the rows of STEPS' KIND steps (of RUN and
# WINDOW), in order
steps_rows() {
  local step kind run row w
  for step in "${STEPS[@]}"; do
    read -r kind run row w <<<"$step"
    [[ "$kind" != "$1" || ($# -gt 1 && "$run $w" != "$2 $3") ]] || echo "$row"
  done
}

bench_main() {
  local run attempt quiet_json
  # How often a run that was not quiet is redone; tests set it for quick.
  MAX_REDO=${LAB_MAX_REDO:-$MAX_REDO}
  eta_start
  ((NEEDS_UPSTREAM)) && upstream_start
  ((NEEDS_POSTGRES)) && pg_role_start
  for ((run = 1; run <= RUNS; run++)); do
    attempt=0
    while true; do
      # Every wait of this attempt goes into its gate file, and the watch
      # reads them back: a wait that gave up makes the run not quiet.
      QUIET_RUN=$run QUIET_GATE_FILE="$WORK/run-$run.gate.json"
      rm -f "$QUIET_GATE_FILE"
      eta_timed quiet quiet_wait
      quiet_json="$WORK/run-$run.quiet.json"
      quiet_watch_start "$quiet_json"
      bench_run "$run"
      mapfile -t ORDER < <(steps_rows boot)
      # The full profile measures again, at the run's end, each row during
      # one of whose windows the vCPU changed speed (the CPU-speed canary
      # moved), which no load average shows; the run's other rows stand.
      while redo_ask "$run" "$attempt" --raw "$RUN_DIR/raw/run-$run" && [[ "$REDO" == rows ]]; do
        attempt=$REDO_ATTEMPT
        redo_rows "$run" "$attempt" "$REDO_EVIDENCE" "$REDO_ROWS_FILE"
      done
      quiet_watch_stop "$quiet_json"
      QUIET_RUN=""
      redo_ask "$run" "$attempt" --quiet "$quiet_json"
      if [[ "$REDO" == run ]]; then
        attempt=$REDO_ATTEMPT
        discard_run "$run" "$attempt" "$REDO_EVIDENCE"
        continue
      fi
      local evidence=()
      [[ -f "$quiet_json" ]] && evidence=(--quiet "$quiet_json")
      # (the order the kept windows were measured in: rows measured again last)
      lab_tool record run "$RUN_DIR" "$run" --order "$(IFS=,; echo "${ORDER[*]}")" "${evidence[@]}"
      break
    done
  done
  bench_finish
}

# redo_ask RUN ATTEMPT (--raw DIR | --quiet FILE): plan redo's answer for
# RUN (REDO rows, run or keep; REDO_ATTEMPT), its note shown.
# (LAB_CANARY_THRESHOLD: the tests' own, to flag a window at will)
redo_ask() {
  local answer
  answer=$(lab_tool plan redo "$WORK" --run "$1" --attempt "$2" --max "$MAX_REDO" --canary-redo "$CANARY_REDO" \
    --quiet-gate "$QUIET_GATE" ${LAB_CANARY_THRESHOLD:+--threshold "$LAB_CANARY_THRESHOLD"} "${@:3}") ||
    die "bench: plan redo failed (above)"
  REDO="" REDO_ATTEMPT="" REDO_NOTE="" REDO_EVIDENCE="" REDO_ROWS_FILE=""
  assign_lines "$answer"
  [[ -z "$REDO_NOTE" ]] || note "bench: $REDO_NOTE"
}

# redo_rows RUN ATTEMPT EVIDENCE ROWS_FILE: ROWS_FILE's rows of RUN
# measured again, their raw files moved aside and EVIDENCE kept in the
# manifest; each goes to the end of ORDER, the order as measured
redo_rows() {
  local row r keep rows=() aside="$RUN_DIR/raw/discarded/run-$1-attempt-$2"
  mapfile -t rows <"$4"
  mkdir -p "$aside"
  for row in "${rows[@]}"; do mv "$RUN_DIR/raw/run-$1/$row" "$aside/$row"; done
  lab_tool record run "$RUN_DIR" "$1" --discarded "$3"
  eta add-rows "$1" "$(IFS=,; echo "${rows[*]}")"
  for row in "${rows[@]}"; do
    keep=()
    for r in "${ORDER[@]}"; do [[ "$r" == "$row" ]] || keep+=("$r"); done
    ORDER=(${keep[@]+"${keep[@]}"} "$row")
  done
  schedule --run "$1" --only "$(IFS=,; echo "${rows[*]}")"
  walk seq
}

# discard_run RUN ATTEMPT EVIDENCE: move a run's raw files aside and keep
# EVIDENCE (JSON) in the manifest as the reason it is measured again
discard_run() {
  mkdir -p "$RUN_DIR/raw/discarded"
  mv "$RUN_DIR/raw/run-$1" "$RUN_DIR/raw/discarded/run-$1-attempt-$2"
  lab_tool record run "$RUN_DIR" "$1" --discarded "$3"
  eta add-run "$1"
}

# bench_pause: while LAB_PAUSE_FILE exists (someone else needs a shared
# host), wait before the next stack, saying so in LAB_PAUSE_FILE.ack; the
# manifest's shared_host says how often and how long.
PAUSES=0 PAUSED_S=0
bench_pause() {
  [[ -n "${LAB_PAUSE_FILE:-}" && -e "$LAB_PAUSE_FILE" ]] || return 0
  local t0=$SECONDS
  note "bench: $LAB_PAUSE_FILE exists: pausing before the next stack until it goes"
  : >"$LAB_PAUSE_FILE.ack"
  while [[ -e "$LAB_PAUSE_FILE" ]]; do sleep 2; done
  rm -f "$LAB_PAUSE_FILE.ack"
  PAUSES=$((PAUSES + 1)) PAUSED_S=$((PAUSED_S + SECONDS - t0))
  note "bench: $LAB_PAUSE_FILE is gone after $((SECONDS - t0)) s: going on"
}

# bench_run RUN: run RUN's schedule walked
bench_run() {
  mkdir -p "$RUN_DIR/raw/run-$1"
  schedule --run "$1"
  walk seq
}

# verify_collect: the rows' verify verdicts and snapshot parity into
# raw/verify.json (verify collect), when any row was verified
verify_collect() {
  compgen -G "$RUN_DIR/raw/run-*/*/verify.verdict.json" >/dev/null || return 0
  local out
  out=$("$(lab_tool_path verify)" collect -raw "$RUN_DIR/raw" -out "$RUN_DIR/raw/verify.json" 2>&1) || true
  note "bench: $(tail -n1 <<<"$out")"
}

# row_line RUN ROW: the row's figures in this run, on one line, as soon as
# its windows are done (summarize --row: the numbers its tables will show)
row_line() {
  local line
  line=$(lab_tool summarize --row "$2" --run "$1" "$RUN_DIR" 2>/dev/null) && note "bench: row $line"
  return 0
}

bench_finish() {
  eta_finish
  verify_collect
  if ((PAUSES)); then
    lab_tool record shared "$RUN_DIR" "${LAB_SHARED_HOST:+$LAB_SHARED_HOST; }the bench paused $PAUSES time(s), $PAUSED_S s in all, between stacks while someone else used the host (LAB_PAUSE_FILE)"
  fi
  lab_tool record finish "$RUN_DIR"
  FINISHED=1
  local rc=0
  note "bench: measured; summarizing ${RUN_DIR#"$LAB_ROOT"/}"
  lab_tool summarize "$RUN_DIR" || rc=$?
  if ((FAILED_CASES)); then
    note "bench: $FAILED_CASES case(s) failed; see the .error and .log files under ${RUN_DIR#"$LAB_ROOT"/}/raw"
    rc=1
  fi
  return "$rc"
}

# The quiet-host gate (docs/bench.md); --no-quiet skips it (tests).
# quiet_wait [AT]: wait for a low load before AT; with QUIET_GATE_FILE the
# wait is kept there, and with QUIET_RUN it is that run's evidence at once.
quiet_wait() {
  ((QUIET_GATE)) || return 0
  local threshold=$QUIET_LOAD out=()
  [[ -n "${QUIET_GATE_FILE:-}" ]] && out=(--out "$QUIET_GATE_FILE" --at "${1:-before the run}")
  # In the background, so a SIGTERM to the bench is handled at once rather
  # than after a wait that may last minutes.
  in_background "$(lab_tool_path quiet)" wait --load "$threshold" --for "${QUIET_FOR}s" --timeout "${QUIET_TIMEOUT}s" ${out[@]+"${out[@]}"}
  if ! finish_background "$BG_PID"; then
    ((QUIET_REQUIRED)) && die "bench: the host did not quiet down (1-minute load under $threshold for ${QUIET_FOR} s) within ${QUIET_TIMEOUT} s"
    local said=""
    [[ -n "${QUIET_GATE_FILE:-}" ]] && said="; the run's quiet evidence and its summary will say so"
    note "bench: host not quiet, measuring anyway ($PROFILE profile)$said"
  fi
  if [[ -n "${QUIET_RUN:-}" && -f "${QUIET_GATE_FILE:-}" ]]; then
    lab_tool record run "$RUN_DIR" "$QUIET_RUN" --quiet "$QUIET_GATE_FILE"
  fi
}

quiet_watch_start() {
  QUIET_PID=""
  ((QUIET_GATE)) || return 0
  # LAB_QUIET_SHARE overrides the profile's share (the tests lower it).
  local gate=()
  [[ -n "${QUIET_GATE_FILE:-}" ]] && gate=(--gate "$QUIET_GATE_FILE")
  in_background "$(lab_tool_path quiet)" watch --share "${LAB_QUIET_SHARE:-$QUIET_CPU_SHARE}" --out "$1" ${gate[@]+"${gate[@]}"} --exclude-sid "$(ps -o sid= $$ | tr -d ' ')"
  QUIET_PID=$BG_PID
}

quiet_watch_stop() {
  [[ -n "${QUIET_PID:-}" ]] || return 0
  kill -TERM "$QUIET_PID" 2>/dev/null || true
  finish_background "$QUIET_PID" || true
  QUIET_PID=""
}
