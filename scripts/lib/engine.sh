# shellcheck shell=bash
# Docker engines per role (hosts/README.md, "Roles and engines"): each role's
# programs run where its engine is, checked and fingerprinted before anything
# starts; the profile's values are bench/host's.

# engine_docker ENGINE ARGS...: docker against ENGINE: "" is the bench's
# own engine, a value with :// a DOCKER_HOST, anything else a context
engine_docker() {
  local e=$1
  shift
  if [[ -z "$e" ]]; then
    docker "$@"
  elif [[ "$e" == *://* ]]; then
    DOCKER_HOST=$e DOCKER_CONTEXT="" docker "$@"
  else
    docker --context "$e" "$@"
  fi
}

# app_docker ARGS...: docker against the app's engine (ROLE_APP_ENGINE;
# unset: the bench's own)
app_docker() { engine_docker "${ROLE_APP_ENGINE:-}" "$@"; }

# role_engine ROLE: the engine a role runs on ("" the bench's own)
role_engine() {
  case "$1" in
    app) echo "${ROLE_APP_ENGINE:-}" ;; loadgen) echo "${ROLE_LOADGEN_ENGINE:-}" ;; upstream) echo "${ROLE_UPSTREAM_ENGINE:-}" ;;
  esac
}

# role_contained ROLE: do the role's programs run in containers of the lab's
# image (the role has an engine of its own)?
role_contained() { [[ -n "$(role_engine "$1")" ]]; }

# role_port_free ROLE PORT WHAT: port_free for a role on this machine (a
# port on another machine is not the bench's to look at)
role_port_free() { role_contained "$1" || port_free "$2" "$3"; }

# role_run ROLE CPUS NAME ARGS...: loadrun run ARGS in a container NAME of the
# lab's image on the role's engine, pinned, no capabilities, the bench's
# label; kept after it exits with LOADGEN_KEEP=1 (its files are copied out),
# this shell's stdin with LOADGEN_STDIN=1. Beside the app it shares the
# host's pid and cgroup namespaces (the instruments find the app's cgroup by
# its pid, as here), plus APP_TOOL_FLAGS (the caller's local array).
role_run() {
  local role=$1 cpus=$2 name=$3 rm=(--rm) in=() beside=()
  shift 3
  [[ "${LOADGEN_KEEP:-}" == 1 ]] && rm=()
  [[ "${LOADGEN_STDIN:-}" == 1 ]] && in=(-i)
  [[ "$role" == app ]] && beside=(--pid host --cgroupns host -v /sys/fs/cgroup:/sys/fs/cgroup:ro ${APP_TOOL_FLAGS[@]+"${APP_TOOL_FLAGS[@]}"})
  engine_docker "$(role_engine "$role")" run --pull never "${rm[@]}" "${in[@]}" --name "$name" --label "stacklab.bench=$BENCH_ID" --network host \
    --cpuset-cpus "$cpus" --cap-drop ALL --security-opt no-new-privileges ${beside[@]+"${beside[@]}"} "$LOADGEN_IMAGE" run "$@"
}

# role_tool ROLE CPUS OUT [OPTIONS] -- PROGRAM ARGS...: the one runner of a
# role's programs, instruments and generators alike: PROGRAM (the lab's, else
# on PATH) under bench/loadrun, pinned to CPUS, here or in a container on the
# role's engine (role_run). PROGRAM writes OUT as @OUT (in a container a file
# of its own, appended to OUT after), its stdout then on stderr; with OUT "-"
# its stdout is the caller's. OPTIONS:
#   --data          @DATA in ARGS is the app's data folder (DB_DIR here,
#                   handed back to the app's uid afterwards; in the
#                   container the app's volume, /data, lent with that uid)
#   --time FILE     its CPU time (user, system, real) into FILE
#   --start FILE    the Unix ns it started at into FILE
#   --deadline S    stopped after S seconds (status 124)
#   --keep T=FILE   the argument @T is a file PROGRAM writes: FILE here,
#                   copied back to FILE from the container
#   --stdin FILE    FILE on its stdin
# (loadrun puts the tokens in, only those given: ARGS carry a study's
# bodies.) In the background, role_tool_wait and role_tool_stop find it by
# the job's pid.
role_tool() {
  local role=$1 cpus=$2 out=$3 data=0 run=() keeps=() stdin="" prog k p rc=0 there=0
  shift 3
  role_contained "$role" && there=1
  while [[ "$1" != -- ]]; do
    case "$1" in
      --data) data=1 && shift ;;
      --time | --start) keeps+=("${1#--}=$2") run+=("$1" "@${1#--}") && shift 2 ;;
      --deadline) run+=(--deadline "$2") && shift 2 ;;
      --keep) keeps+=("$2") && shift 2 ;;
      --stdin) stdin=$2 && shift 2 ;;
      *) die "role_tool: '$1' is not an option (--data, --time, --start, --deadline, --keep, --stdin, then --)" ;;
    esac
  done
  prog=$2
  shift 2
  # what each token names on the machine the program runs on (loadrun puts them in)
  local o=$out d=${DB_DIR:-}
  ((there == 0)) || o=/tmp/out d=/data
  for k in ${keeps[@]+"${keeps[@]}"}; do
    p=${k#*=}
    ((there == 0)) || p=/tmp/${k%%=*}
    run+=(--arg "@${k%%=*}=$p")
  done
  [[ "$out" == - ]] || run+=(--token "@OUT=$o")
  ((data == 0)) || run+=(--token "@DATA=$d")
  if ((there == 0)); then
    local bin=$LAB_ROOT/.tools/bin/$prog
    [[ -x "$bin" ]] || bin=$(command -v "$prog") || die "role_tool: no program '$prog' (not the lab's, not on PATH)"
    # (stdout: the caller's with OUT "-", else stderr)
    local to=1
    [[ "$out" == - ]] || to=2
    local cmd=(taskset -c "$cpus" "$(lab_tool_path loadrun)" run ${run[@]+"${run[@]}"} -- "$bin" "$@")
    if [[ -n "$stdin" ]]; then "${cmd[@]}" <"$stdin" >&"$to" || rc=$?; else "${cmd[@]}" >&"$to" || rc=$?; fi
    ((data == 0)) || confine_data_dir "$DB_DIR"
    return "$rc"
  fi
  # (the name of a background job's container is its pid's: BASHPID here,
  # not in the $(...) below)
  local name APP_TOOL_FLAGS=() me=$BASHPID
  name=$(role_tool_name "$role" "$prog" "$me")
  ((data == 0)) || APP_TOOL_FLAGS=(--volumes-from "$CONTAINER" --user "$CONFINE_USER")
  if [[ "$out" == - ]]; then
    LOADGEN_KEEP=1 LOADGEN_STDIN=$([[ -n "$stdin" ]] && echo 1) role_run "$role" "$cpus" "$name" ${run[@]+"${run[@]}"} -- "$prog" "$@" \
      <"${stdin:-/dev/null}" || rc=$?
  else
    LOADGEN_KEEP=1 role_run "$role" "$cpus" "$name" --emit /tmp/out "${run[@]}" -- "$prog" "$@" >>"$out" || rc=$?
    [[ -s "$out" ]] || rm -f "$out"
  fi
  for k in ${keeps[@]+"${keeps[@]}"}; do
    engine_docker "$(role_engine "$role")" cp "$name:/tmp/${k%%=*}" "${k#*=}" >/dev/null 2>&1 || true
  done
  engine_docker "$(role_engine "$role")" rm -f "$name" >/dev/null 2>&1 || true
  return "$rc"
}

# role_tool_name ROLE PROGRAM PID: the container of role_tool's PROGRAM for
# ROLE run by the shell PID (a background job's pid)
role_tool_name() { echo "stacklab-$BENCH_ID-$1-$2-$3"; }

# role_tool_wait ROLE PROGRAM PID: a window must not begin before what
# watches it runs: role_tool in the background as PID, once running
role_tool_wait() {
  role_contained "$1" || return 0
  wait_running "$(role_engine "$1")" "$(role_tool_name "$@")" "$3"
}

# role_tool_stop ROLE PROGRAM PID: TERM the program alone (its last line and
# CPU time still get written), then wait for the job PID
role_tool_stop() {
  if role_contained "$1"; then
    stop_in_container "$(role_engine "$1")" "$(role_tool_name "$@")" "$3"
  else
    kill_leaves "$3"
  fi
  finish_background "$3" 2>/dev/null || true
}

# wait_running ENGINE NAME PID: wait (at most 15 s) until the container NAME
# runs or its client PID ended: over an engine's connection a start takes a
# second or more, and a window must not begin before what watches it
wait_running() {
  local i
  for ((i = 0; i < 75; i++)); do
    kill -0 "$3" 2>/dev/null || return 0
    [[ "$(engine_docker "$1" inspect -f '{{.State.Running}}' "$2" 2>/dev/null)" == true ]] && return 0
    sleep 0.2
  done
  note "bench: $2 was not running 15 s after it was started"
}

# stop_in_container ENGINE NAME PID: TERM the program in the container (not
# its client, whose child may be the engine's ssh), then wait for the client
# PID; after 30 s the client is stopped instead
stop_in_container() {
  local i
  wait_running "$1" "$2" "$3"
  engine_docker "$1" kill --signal TERM "$2" >/dev/null 2>&1 || true
  for ((i = 0; i < 150; i++)); do
    kill -0 "$3" 2>/dev/null || return 0
    sleep 0.2
  done
  note "bench: $2 on ${1:-the default engine} did not stop within 30 s of its TERM; its client is stopped"
  kill -TERM "$3" 2>/dev/null || true
}

# app_remote: does the app run on an engine of its own?
app_remote() { role_contained app; }

# role_words ROLE: what the one-line messages call a role
role_words() {
  case "$1" in
    app) echo "the app" ;; loadgen) echo "the load generator" ;; upstream) echo "the mock upstream" ;; *) echo "$1" ;;
  esac
}

# engines_check: each role's engine answers (docker info within 20 s, kept in
# $WORK/engines/ROLE.info.json) and has the role's CPUs, or one line, exit 2
engines_check() {
  ((ROLE_ENGINES)) || return 0
  local role engine cpus container err key
  mkdir -p "$WORK/engines"
  while read -r role engine cpus container; do
    [[ "$engine" == - ]] && engine=""
    key=${role^^}_ENGINE
    if ! timeout 20 bash -c "$(declare -f engine_docker); engine_docker \"\$1\" info --format '{{json .}}'" _ "$engine" \
      >"$WORK/engines/$role.info.json" 2>"$WORK/engines/$role.err"; then
      err=$(grep -v '^\s*$' "$WORK/engines/$role.err" | tail -n1)
      echo "bench: host profile ${HOST_PROFILE_FILE#"$LAB_ROOT"/}: $(role_words "$role")'s engine ${engine:-(the default)} ($key) does not answer: ${err:-no answer within 20 s}" >&2
      rm -rf "$WORK"
      exit 2
    fi
    lab_tool host check-engine "$HOST_PROFILE_FILE" "$role" --info "$WORK/engines/$role.info.json" || { rm -rf "$WORK"; exit 2; }
  done < <(lab_tool host roles "$HOST_PROFILE_FILE")
}

# engines_record OUT: the lab's image on the generator's engine
# (LOADGEN_IMAGE), and every role's engine fingerprinted into OUT
engines_record() {
  ((ROLE_ENGINES)) || return 0
  local out=$1 role engine cpus container flags
  LOADGEN_IMAGE=$("$LAB_ROOT/scripts/loadgen-image" ${ROLE_LOADGEN_ENGINE:+--engine "$ROLE_LOADGEN_ENGINE"}) ||
    die "bench: the load generator's image could not be built or copied (errors above)"
  export LOADGEN_IMAGE
  rm -f "$out"
  while read -r role engine cpus container; do
    [[ "$engine" == - ]] && engine=""
    # an engine that is not the load generator's gets the image too, for the fingerprint
    [[ -z "$engine" || "$engine" == "$ROLE_LOADGEN_ENGINE" ]] || "$LAB_ROOT/scripts/loadgen-image" --engine "$engine" >/dev/null
    engine_docker "$engine" run --pull never --rm --network host --cap-drop ALL --label "stacklab.bench=$BENCH_ID" "$LOADGEN_IMAGE" fingerprint \
      >"$WORK/engines/$role.machine.json" || die "bench: could not read the machine behind $(role_words "$role")'s engine ${engine:-(the default)}"
    flags=()
    ((container)) && flags=(--container)
    lab_tool record engine "$out" "$role" --engine "$engine" --cpus "$cpus" --info "$WORK/engines/$role.info.json" \
      --machine "$WORK/engines/$role.machine.json" "${flags[@]}"
  done < <(lab_tool host roles "$HOST_PROFILE_FILE")
}

# engine_image ENGINE TAG: the bench's image TAG on ENGINE too, copied with
# docker save | docker load when that engine lacks it (no registry)
engine_image() {
  engine_docker "$1" image inspect "$2" >/dev/null 2>&1 && return 0
  docker save "$2" | engine_docker "$1" load -q >/dev/null || return 1
  note "engine: copied $2 to the engine $1"
}

# engines_cleanup: the bench's containers (and the app's database
# volume) on the load generator's, the upstream's and the app's engines
engines_cleanup() {
  local e
  while read -r e; do
    [[ -n "$e" ]] || continue
    engine_docker "$e" ps -aq --filter "label=stacklab.bench=$BENCH_ID" 2>/dev/null |
      xargs -r bash -c "$(declare -f engine_docker); engine_docker \"\$0\" rm -f -v \"\$@\"" "$e" >/dev/null 2>&1 || true
  done < <(printf '%s\n' "${ROLE_LOADGEN_ENGINE:-}" "${ROLE_UPSTREAM_ENGINE:-}" "${ROLE_APP_ENGINE:-}" | sort -u)
}
