# shellcheck shell=bash
# The app runner of RUN_MODE native (docs/bench.md, "Native mode"): a stack's
# native-build started as a host process, as the lab's uid, in a cgroup
# bench/native makes with its container's limits; the instruments find it by
# its pid. Its files are in its folder under NATIVE_DIR.

NATIVE_DIR=${LAB_NATIVE_DIR:-/tmp/stacklab-native}

# native_mode: does this bench run its stacks natively?
native_mode() { [[ "${RUN_MODE:-docker}" == native ]]; }

# native_data_dir NAME: the folder of the native app NAME (a container's
# name in Docker mode, the group's here): its database, app.log, app.pid
# and start.json
native_data_dir() { echo "$NATIVE_DIR/.bench/${BENCH_ID:-none}/$1"; }

# native_env STACK PORT DBDIR UPSTREAM_URL: NATIVE_ENV, the environment
# STACK's app gets in its container (stack_app_env, DBDIR for its /data),
# and the PATH and HOME its image would give it
native_env() {
  stack_app_env "$1" "$2" "$4" "$3" || return 1
  NATIVE_ENV=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/ "${APP_ENV[@]}")
}

# native_start ROW DATA_DIR NAME PORT UPSTREAM_URL ENV [DOCKER_ARGS...]:
# app_start's runner for a host process in the cgroup /stacklab/NAME, on
# DATA_DIR (native_data_dir's), with its container's environment then ENV's;
# its output stamped into app.log, its pid into app.pid. DOCKER_ARGS are
# left alone. Prints NAME; app_ready waits for it.
native_start() {
  local stack name=$3 port=$4 upstream=$5 dir build ENV_LIST=()
  stack=$(row_stack "$1")
  env_list "$6"
  dir=$(native_data_dir "$name")
  build=$NATIVE_DIR/$stack
  [[ -x "$build" ]] || { note "$stack has no native build in $build (scripts/native-stack build $stack)"; return 1; }
  native_env "$stack" "$port" "$dir" "$upstream" || return 1
  rm -f "$dir/app.log" "$dir/app.pid" "$dir/start.json"
  env -i "${NATIVE_ENV[@]}" ${ENV_LIST[@]+"${ENV_LIST[@]}"} "$(lab_tool_path native)" start --name "$name" --cpus "$APP_CPUS" --memory "$APP_MEMORY" \
    ${APP_CPU_QUOTA:+--quota "$APP_CPU_QUOTA"} --dir "$build" --log "$dir/app.log" --log-cpus "$ROLE_SAMPLER_CPUS" --pid-file "$dir/app.pid" \
    -- "$(stack_dir "$stack")/native-start" "$build" >"$dir/start.json" || return 1
  echo "$name"
}

# native_build STACK...: each built by scripts/native-stack; a stack that
# cannot be built natively ends the bench in one line naming it, exit 2
native_build() {
  local s rc
  for s in "$@"; do
    note "bench: building $s natively (stacks/$s/native-build)"
    rc=0
    "$LAB_ROOT/scripts/native-stack" build "$s" || rc=$?
    ((rc != 2)) || bad "bench: --mode native: $s cannot run natively (the line above); leave it out with --stacks"
    ((rc == 0)) || die "bench: --mode native: $s's native build failed (its errors above)"
  done
}

# native_pid NAME: the app's pid; native_running NAME: is it alive, in its
# group; native_logs NAME [SINCE]: its output (native logs: from SINCE
# with the copier's stamps, else without them); native_stop
# NAME: SIGTERM, SIGKILL after 5 s, the group removed (bench/native)
native_pid() { cat "$(native_data_dir "$1")/app.pid" 2>/dev/null; }
native_running() {
  local pid
  pid=$(native_pid "$1") && [[ -n "$pid" ]] && grep -qs "/stacklab/$1\$" "/proc/$pid/cgroup"
}
native_logs() { lab_tool native logs --file "$(native_data_dir "$1")/app.log" ${2:+--since "$2"}; }
native_stop() { lab_tool native stop --name "$1" >/dev/null 2>&1 || true; }
native_remove() { native_stop "$1"; }
native_exit_words() { echo "its process is gone"; }

# native_cleanup: stop this bench's groups and remove its apps' folders;
# native_reap: those of the benches that died (bench/native reap says how
# many groups it stopped)
native_cleanup() { lab_tool native reap --dir "$NATIVE_DIR" --bench "$BENCH_ID" >/dev/null 2>&1 || true; }
native_reap() { lab_tool native reap --dir "$NATIVE_DIR" 2>/dev/null || true; }
