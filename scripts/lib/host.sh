# shellcheck shell=bash
# Host profiles (hosts/<name>.env): which CPUs each role gets, the app's memory
# limit, connections and the quiet-host thresholds. See hosts/README.md.

# cpu_list_expand LIST: "0-2,5" -> "0 1 2 5"
cpu_list_expand() {
  local part out=() parts
  IFS=, read -ra parts <<<"$1"
  for part in "${parts[@]}"; do
    if [[ "$part" =~ ^([0-9]+)-([0-9]+)$ ]]; then
      local i
      for ((i = BASH_REMATCH[1]; i <= BASH_REMATCH[2]; i++)); do out+=("$i"); done
    elif [[ "$part" =~ ^[0-9]+$ ]]; then
      out+=("$part")
    else
      return 1
    fi
  done
  echo "${out[*]}"
}

# cpu_count LIST: how many CPUs a list names
cpu_count() { local c; c=$(cpu_list_expand "$1") || return 1; wc -w <<<"$c"; }

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

# load_host_profile: the profile's values, read and checked by Go
# (bench/host, package hostprofile: the one reader of a profile), which
# refuses a profile this host cannot honour in one line, exit 2. Its ROLE_*
# values: where each role runs (hosts/README.md, "Roles and engines").
load_host_profile() {
  HOST_PROFILE_FILE=$(host_profile_path)
  [[ -f "$HOST_PROFILE_FILE" ]] || die "host profile $HOST_PROFILE_FILE: no such file (profiles: $(host_profiles))"
  local values rc=0
  values=$(lab_tool host profile "$HOST_PROFILE_FILE" 2>&1) || rc=$?
  if ((rc)); then
    echo "$values" >&2
    exit 2
  fi
  eval "$values"
  APP_CPU_COUNT=$(cpu_count "$APP_CPUS")
  cpu_mode
  export HOST_NAME APP_CPUS LOADGEN_CPUS UPSTREAM_CPUS APP_MEMORY CONNECTIONS APP_CPU_COUNT HOST_PROFILE_FILE \
    APP_CPU_MODE APP_CPU_QUOTA ROLE_APP_ADDR ROLE_UPSTREAM_ADDR ROLE_LOADGEN_ENGINE ROLE_UPSTREAM_ENGINE ROLE_APP_ENGINE ROLE_CEILING_ADDR ROLE_SAMPLER_CPUS ROLE_ENGINES
}

# cpu_mode: APP_CPU_MODE (cpuset, the default, or quota) and, in quota
# mode, APP_CPU_QUOTA (default: the count of APP_CPUS), checked, and
# APP_CPU_FLAGS, the app's CPU flags for docker run: the cpuset of
# APP_CPUS, and in quota mode a CFS quota of APP_CPU_QUOTA CPUs on top, as
# a Kubernetes CPU limit sets it (hosts/README.md). The app's LAB_CPUS is
# then the quota rounded up: the CPUs' worth it may use per period.
cpu_mode() {
  APP_CPU_MODE=${APP_CPU_MODE:-cpuset}
  APP_CPU_FLAGS=(--cpuset-cpus "$APP_CPUS")
  case "$APP_CPU_MODE" in
    cpuset) APP_CPU_QUOTA="" ;;
    quota)
      APP_CPU_QUOTA=${APP_CPU_QUOTA:-$APP_CPU_COUNT}
      if ! [[ "$APP_CPU_QUOTA" =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
        ! awk -v q="$APP_CPU_QUOTA" -v n="$APP_CPU_COUNT" 'BEGIN { exit !(q > 0 && q <= n) }'; then
        die "host profile $HOST_PROFILE_FILE: APP_CPU_QUOTA=$APP_CPU_QUOTA: want a number of CPUs above 0 and at most the $APP_CPU_COUNT of APP_CPUS=$APP_CPUS"
      fi
      APP_CPU_COUNT=$(awk -v q="$APP_CPU_QUOTA" 'BEGIN { n = int(q); if (n < q) n++; print n }')
      APP_CPU_FLAGS+=(--cpus "$APP_CPU_QUOTA")
      ;;
    *) die "host profile $HOST_PROFILE_FILE: APP_CPU_MODE=$APP_CPU_MODE: want cpuset or quota" ;;
  esac
}
