# shellcheck shell=bash
# Host profiles (hosts/<name>.env): which CPUs each role gets, the app's memory
# limit, connections and the quiet-host thresholds. See hosts/README.md.

# host_profile_path: hosts/$HOST_PROFILE.env (or HOST_PROFILE itself when
# it is a path), or the machine's own profile
# (hosts/<hostname>.env if there is one, else hosts/local.env).
host_profile_path() {
  if [[ "${HOST_PROFILE:-}" == */* ]]; then
    echo "$HOST_PROFILE"
  elif [[ -n "${HOST_PROFILE:-}" ]]; then
    echo "$LAB_ROOT/hosts/$HOST_PROFILE.env"
  elif [[ -f "$LAB_ROOT/hosts/$(hostname).env" ]]; then
    echo "$LAB_ROOT/hosts/$(hostname).env"
  else
    echo "$LAB_ROOT/hosts/local.env"
  fi
}

host_profiles() {
  local f
  for f in "$LAB_ROOT"/hosts/*.env; do basename "$f" .env; done | tr '\n' ' '
}

# load_host_profile: the profile's values as bench/host reads and checks them
# (a profile this host cannot honour: its one line, exit 2)
load_host_profile() {
  HOST_PROFILE_FILE=$(host_profile_path)
  [[ -f "$HOST_PROFILE_FILE" ]] || die "host profile $HOST_PROFILE_FILE: no such file (profiles: $(host_profiles))"
  local values rc=0
  values=$(lab_tool host profile "$HOST_PROFILE_FILE" 2>&1) || rc=$?
  if ((rc)); then
    echo "$values" >&2
    exit 2
  fi
  assign_lines "$values"
  cpu_mode
  export HOST_NAME APP_CPUS LOADGEN_CPUS UPSTREAM_CPUS APP_MEMORY CONNECTIONS APP_CPU_COUNT HOST_PROFILE_FILE \
    APP_CPU_MODE APP_CPU_QUOTA ROLE_APP_ADDR ROLE_UPSTREAM_ADDR ROLE_LOADGEN_ENGINE ROLE_UPSTREAM_ENGINE ROLE_APP_ENGINE ROLE_CEILING_ADDR ROLE_SAMPLER_CPUS ROLE_ENGINES
}

# cpu_mode: APP_CPU_FLAGS, the app's docker run CPU flags: its cpuset, and in
# quota mode a CFS quota on top (host profile decides both)
cpu_mode() {
  APP_CPU_FLAGS=(--cpuset-cpus "$APP_CPUS")
  if [[ "$APP_CPU_MODE" == quota ]]; then APP_CPU_FLAGS+=(--cpus "$APP_CPU_QUOTA"); fi
}
