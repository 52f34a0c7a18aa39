# shellcheck shell=bash
# Stacks and their images: find a stack's image, start it exactly as the bench
# does, wait for it, stop it. scripts/verify and scripts/bench both use these,
# so a stack is verified the way it is measured.

# shellcheck source=scripts/lib/confine.sh
source "$LAB_ROOT/scripts/lib/confine.sh"
# shellcheck source=scripts/lib/engine.sh
source "$LAB_ROOT/scripts/lib/engine.sh"
# shellcheck source=scripts/lib/native.sh
source "$LAB_ROOT/scripts/lib/native.sh"

# A stack's declaration (its stack.env) is read by Go alone (package
# analysis/stackenv, through the stack program): which folders are stacks,
# where one's folder is, its values and its image's tag. Stack folders live
# in stacks/; tests add fixture stacks from the folder LAB_EXTRA_STACKS
# (never set by the bench itself).
stack_tool() { lab_tool stack --lab-root "$LAB_ROOT" --extra-stacks "${LAB_EXTRA_STACKS:-}" "$@"; }

# stack_dir NAME: NAME's folder (stacks/NAME, else LAB_EXTRA_STACKS/NAME)
stack_dir() { stack_tool dir "$1" || exit 1; }

# stack_names: every stack folder (those with a stack.env), base and upstream excluded
stack_names() { stack_tool names || exit 1; }

# build_env NAME [BASE_TAG]: BUILD_ENV, the `env` arguments NAME's
# build-image runs under with LAB_BUILD_ARGS, as stack build-env gives them
# (BASE_TAG: base's tag, when the caller fixed it)
build_env() {
  local out
  out=$(stack_tool build-env "$1" --build-args "${LAB_BUILD_ARGS:-}" ${2:+--base "$2"}) || exit 1
  mapfile -t BUILD_ENV <<<"$out"
}

# image_tag NAME: the lab's tag for NAME's image (stack tag, the hash of its
# inputs), a build variant's when LAB_BUILD_ARGS ("K=V" lines) is set
image_tag() { stack_tool tag "$1" --build-args "${LAB_BUILD_ARGS:-}"; }

# stack_env_get NAME KEY: one value of stacks/NAME/stack.env, as Go reads it
stack_env_get() { stack_tool get "$1" "$2" || exit 1; }

# Tags the caller has settled on (the bench fixes them once, before its first
# run, so an edit to a stack folder mid-bench cannot change what is measured).
declare -gA IMAGE_TAG=()

# stack_image NAME: TAG, the image NAME runs (stack image: its IMAGE, else
# the lab's tag), and MISSING, Go's line saying to build or load it, set
# in the caller's scope (which declares them local)
stack_image() {
  local out
  out=$(stack_tool image "$1" --build-args "${LAB_BUILD_ARGS:-}") || exit
  assign_lines "$out"
}

# require_image NAME: the tag of the image NAME runs, or its MISSING line
require_image() {
  local TAG="" MISSING=""
  [[ -z "${IMAGE_TAG[$1]:-}" ]] || { echo "${IMAGE_TAG[$1]}"; return 0; }
  stack_image "$1"
  docker image inspect "$TAG" >/dev/null 2>&1 || die "$MISSING"
  echo "$TAG"
}

# stack_start NAME DATA_DIR CONTAINER PORT UPSTREAM_URL: start NAME's image
# pinned to the app CPUs with the memory limit, on the host network, with
# DATA_DIR (holding a fresh app.db, handed to the lab's user) as /data, under
# the lab's confinement (confine_flags, Go's: tmpfs at /tmp and at each of
# the stack's SCRATCH dirs), with the environment the lab gives the app
# (stack_app_env). Extra arguments go to docker run. STACK_IMAGE,
# when set, is the image to start (a build variant's) instead of NAME's.
# Prints the container id.
stack_start() {
  local name=$1 data=$2 container=$3 port=$4 upstream=$5 tag CONFINE
  shift 5
  tag=${STACK_IMAGE:-$(require_image "$name")}
  confine_flags "$name" || return 1
  stack_app_env "$name" "$port" "$upstream" || return 1
  # The app's environment first: a variant's (in "$@") may change the stack's.
  local kv flags=(--name "$container" --label stacklab=1)
  for kv in "${APP_ENV[@]}"; do flags+=(-e "$kv"); done
  flags+=("$@" --network host "${APP_CPU_FLAGS[@]}" --memory "$APP_MEMORY" ${CONFINE[@]+"${CONFINE[@]}"})
  if app_remote; then
    # On the app's own engine (APP_ENGINE) its image is copied there, and
    # /data is a volume of that machine's disk (the container's own,
    # removed with it), filled with DATA_DIR's files, handed to the uid
    # the app runs as, before the app starts.
    engine_image "$ROLE_APP_ENGINE" "$tag" || { note "could not copy $tag to the app's engine $ROLE_APP_ENGINE"; return 1; }
    app_docker create "${flags[@]}" -v /data "$tag" >/dev/null || return 1
    # (docker cp cannot hand files to a uid the image has no name for:
    # the lab's image unpacks them and gives them to it, with CAP_CHOWN
    # alone)
    tar -C "$data" -cf - . | app_docker run --rm -i --pull never --network none --volumes-from "$container" --cap-drop ALL --cap-add CHOWN \
      --security-opt no-new-privileges --label "stacklab.bench=${BENCH_ID:-none}" "$LOADGEN_IMAGE" fill /data "$CONFINE_USER" ||
      { note "could not copy the database to the app's engine $ROLE_APP_ENGINE"; return 1; }
    app_docker start "$container" >/dev/null || return 1
  else
    docker run -d "${flags[@]}" -v "$data:/data" "$tag" >/dev/null
  fi
  app_docker inspect -f '{{.Id}}' "$container"
}

# upstream_start_container ROLE CONTAINER CPUS PORT: the mock upstream
# (the lab's own image), confined like a stack but with no /data at all,
# on ROLE's engine (scripts/lib/engine.sh: the mock's own, or the app's
# when it stands in the app's place), its image copied there first when
# that engine lacks it. Extra arguments go to docker run.
upstream_start_container() {
  local role=$1 container=$2 cpus=$3 port=$4 tag CONFINE engine
  shift 4
  tag=$(require_image upstream)
  engine=$(role_engine "$role")
  if [[ -n "$engine" ]] && ! engine_image "$engine" "$tag"; then
    note "could not copy $tag to $(role_words "$role")'s engine $engine"
    return 1
  fi
  confine_flags || return 1
  engine_docker "$engine" run -d --name "$container" --label stacklab=1 "$@" --network host --cpuset-cpus "$cpus" \
    ${CONFINE[@]+"${CONFINE[@]}"} -e PORT="$port" "$tag" >/dev/null
}

# wait_up URL TIMEOUT_S: poll until the first 200, print the milliseconds it took
wait_up() {
  local url=$1 timeout=$2 start now
  start=$(date +%s%N)
  while true; do
    if curl -fsS -o /dev/null --max-time 1 "$url" 2>/dev/null; then
      now=$(date +%s%N)
      echo $(((now - start) / 1000000))
      return 0
    fi
    now=$(date +%s%N)
    (((now - start) / 1000000000 >= timeout)) && return 1
    sleep 0.02
  done
}

# The app runner: what the bench asks of a running app, one function each,
# answered by the runner of the bench's mode (RUN_MODE, chosen once): the
# docker_* functions below, for a container on the app's engine, or the
# native_* ones (scripts/lib/native.sh), for a host process in the lab's
# cgroup. container_running CONTAINER: is it still up? app_pid CONTAINER:
# its main process's pid (on its machine). app_logs CONTAINER [SINCE]: its
# output, each line time-stamped, from SINCE (RFC 3339) when given.
# app_exit_words CONTAINER: how it ended. app_data_dir CONTAINER: the
# folder its database is seeded into (its /data in a container).
# app_remove CONTAINER: gone, at once (a fresh_db window's restart).
# stack_stop CONTAINER: the one way the lab stops a stack: SIGTERM, then
# SIGKILL if it is still running after the 5 s docs/app.md allows; prints
# one line, a cause, when the app needed SIGKILL (the bench ignores it,
# verify fails on it). Starting one is app_start's (scripts/lib/session.sh),
# which ends in the runner's docker_start or native_start.
container_running() { "${RUN_MODE:-docker}_running" "$@"; }
app_pid() { "${RUN_MODE:-docker}_pid" "$@"; }
app_logs() { "${RUN_MODE:-docker}_logs" "$@"; }
app_exit_words() { "${RUN_MODE:-docker}_exit_words" "$@"; }
app_data_dir() { "${RUN_MODE:-docker}_data_dir" "$@"; }
app_remove() { "${RUN_MODE:-docker}_remove" "$@"; }
stack_stop() { "${RUN_MODE:-docker}_stop" "$@"; }

# docker_start ROW DATA_DIR CONTAINER PORT UPSTREAM_URL ENV [DOCKER_ARGS...]:
# app_start's runner for a container: the row's stack, from the row's own
# image when its variant has build arguments (IMAGE_TAG[ROW]), started by
# stack_start with DOCKER_ARGS and then ENV's K=V lines as -e flags;
# prints the container id
docker_start() {
  local row=$1 data=$2 container=$3 port=$4 upstream=$5 kv flags=() ENV_LIST=()
  env_list "$6"
  shift 6
  for kv in ${ENV_LIST[@]+"${ENV_LIST[@]}"}; do flags+=(-e "$kv"); done
  STACK_IMAGE=${IMAGE_TAG[$row]:-} stack_start "$(row_stack "$row")" "$data" "$container" "$port" "$upstream" "$@" ${flags[@]+"${flags[@]}"}
}

# env_list ENV: ENV's K=V lines, blank ones left out, into ENV_LIST (the
# caller's local)
env_list() {
  local kv
  while IFS= read -r kv; do
    [[ -z "$kv" ]] || ENV_LIST+=("$kv")
  done <<<"$1"
}

docker_running() { [[ "$(app_docker inspect -f '{{.State.Running}}' "$1" 2>/dev/null)" == true ]]; }
docker_pid() { app_docker inspect -f '{{.State.Pid}}' "$1"; }
docker_logs() { app_docker logs ${2:+--timestamps --since "$2"} "$1" 2>&1; }
docker_exit_words() { app_docker inspect -f 'exit code {{.State.ExitCode}}, OOM killed {{.State.OOMKilled}}' "$1" 2>/dev/null; }
docker_data_dir() { echo "$WORK/db/$1"; }
docker_remove() { app_docker rm -f -v "$1" >/dev/null 2>&1 || true; }

# docker_stop: docker stop -t 5 on the app's engine (a container that
# already exited stops at once), then the container and its /data volume
# there removed
docker_stop() {
  local start ms code
  start=$(date +%s%N)
  app_docker stop -t 5 "$1" >/dev/null 2>&1 || true
  ms=$((($(date +%s%N) - start) / 1000000))
  code=$(app_docker inspect -f '{{.State.ExitCode}}' "$1" 2>/dev/null || echo "?")
  app_docker rm -f -v "$1" >/dev/null 2>&1 || true
  [[ "$code" != 137 ]] || echo "sigterm: expected an exit within 5 s of SIGTERM, got SIGKILL after $ms ms"
}

# fresh_database DIR [STACK]: DIR/app.db freshly seeded at the study's size
# (SEED_ARGS) and checked against SEED_CHECKSUM when the bench set it (DIR
# is created or emptied),
# or, for a STACK whose stack.env names its own DATA, a copy of that; DIR
# and what is in it owned by the uid the app runs as (confine_data_dir)
fresh_database() {
  local dir=$1 src=""
  mkdir -p "$dir"
  # the stack's own data in place of the lab's (stack data: Go checks DATA)
  [[ -z "${2:-}" ]] || src=$(stack_tool data "$2") || exit 1
  if [[ -n "$src" ]]; then
    find "$dir" -mindepth 1 -delete
    if [[ -d "$src" ]]; then cp -R "$src"/. "$dir"/; else cp "$src" "$dir"/; fi
  else
    rm -f "$dir"/app.db "$dir"/app.db-wal "$dir"/app.db-shm
    lab_tool seed ${SEED_ARGS[@]+"${SEED_ARGS[@]}"} "$dir/app.db" >/dev/null
    # the study's seed, as the bench recorded it before its first window
    [[ -z "${SEED_CHECKSUM:-}" ]] || lab_tool seed checksum --want "$SEED_CHECKSUM" "$dir/app.db" >/dev/null ||
      die "bench: $dir/app.db is not the seed the bench recorded (see the line above)"
  fi
  confine_data_dir "$dir"
}

# stack_app_env NAME PORT UPSTREAM_URL [DATA]: APP_ENV, the environment
# ("K=V") the lab gives NAME's app: the lab's own variables, then what its
# stack.env's ENV adds with the lab's values put in (DATA: its data folder,
# /data in its container); stackenv decides them, and refuses what it
# cannot in one line
stack_app_env() {
  local out
  out=$(stack_tool app-env "$1" "$2" "$3" "$APP_CPU_COUNT" "${4:-/data}") || return 1
  mapfile -t APP_ENV <<<"$out"
}

# seed_record: SEED_CHECKSUM, the checksum of the study's seed (SEED_ARGS),
# before the first window; every fresh database is checked against it
# (fresh_database, pg_seed), and the manifest keeps both.
seed_record() {
  SEED_CHECKSUM=$(lab_tool seed ${SEED_ARGS[@]+"${SEED_ARGS[@]}"} --fingerprint) ||
    die "bench: the study's seed (${SEED_ARGS[*]}) could not be written"
}

# image_files TAG [--list]: bench/imagefiles over TAG's file tree, read by
# `docker export` of a container that is created and never started
image_files() {
  local cid rc=0
  cid=$(docker create --network none "$1" 2>/dev/null) || die "image $1: docker create failed (needed to read its files)"
  docker export "$cid" | lab_tool imagefiles "${@:2}" || rc=$?
  docker rm -f "$cid" >/dev/null 2>&1 || true
  ((rc == 0)) || die "image $1: could not read its files"
}

# image_files_digest TAG: the digest of TAG's files (paths, modes, owners,
# contents; not times), cached per image id. Two builds of the same pinned
# inputs may differ in id yet hold the same files.
image_files_digest() {
  local id cache
  id=$(docker image inspect -f '{{.Id}}' "$1") || die "image $1: not found"
  cache="$LAB_ROOT/.tools/images/${id#sha256:}.files"
  if [[ ! -s "$cache" ]]; then
    mkdir -p "${cache%/*}"
    image_files "$1" >"$cache.tmp"
    mv "$cache.tmp" "$cache"
  fi
  awk '{print $1}' "$cache"
}

# lab_tools_build: every lab program in .tools/bin brought up to date by
# scripts/build-tools (whose comment states the rule), once per process
# tree: LAB_TOOLS_BUILT is exported, so a bench's subshells and child scripts
# run what it built at its start and nothing compiles in a measured window.
lab_tools_build() {
  [[ "${LAB_TOOLS_BUILT:-}" == "$LAB_ROOT" ]] && return 0
  "$LAB_ROOT/scripts/build-tools" || die "lab tools: scripts/build-tools failed (errors above)"
  export LAB_TOOLS_BUILT=$LAB_ROOT
}

# lab_tool NAME ARGS...: run the lab's Go program NAME (scripts/build-tools --list)
lab_tool() {
  local bin
  lab_tools_build
  bin=$(lab_tool_path "$1") || exit 1
  shift
  "$bin" "$@"
}

# lab_tool_path NAME: the up-to-date binary of the lab's Go program NAME
lab_tool_path() {
  lab_tools_build
  [[ -x "$LAB_ROOT/.tools/bin/$1" ]] ||
    die "no lab program named '$1' (programs: $("$LAB_ROOT/scripts/build-tools" --list | awk '{print $1}' | paste -sd' '))"
  echo "$LAB_ROOT/.tools/bin/$1"
}

# Every function above asks Go (stack_tool, lab_tool): the programs are
# built once here, in the shell that sources this file, so that each
# $(stack_env_get ...) subshell runs them without building again.
lab_tools_build
# who the app runs as (CONFINE_USER, uid:gid) and its pid limit
# (CONFINE_PIDS_LIMIT), as Go's confinement has them
assign_lines "$(stack_tool confine-ids)"
