# shellcheck shell=bash
# Docker engines per role (hosts/README.md, "Roles and engines"): the load
# generator in a container on the engine LOADGEN_ENGINE names, the mock
# upstream on UPSTREAM_ENGINE's (scripts/lib/session.sh), and each
# role's engine checked and fingerprinted before anything starts. The
# profile's values come from bench/host (scripts/lib/host.sh).

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

# role_words ROLE: what the one-line messages call a role
role_words() {
  case "$1" in
    app) echo "the app" ;; loadgen) echo "the load generator" ;; upstream) echo "the mock upstream" ;; *) echo "$1" ;;
  esac
}

# engines_check: when the profile names engines, each role's engine must
# answer (docker info within 20 s) and have the role's CPUs; otherwise one
# line naming the role and the engine, exit 2, before anything starts.
# Leaves each role's docker info in $WORK/engines/ROLE.info.json.
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

# engines_record OUT: the load generator's image on its engine (LOADGEN_IMAGE),
# and every role's engine fingerprinted into the engines file OUT (docker
# info there, and bench/loadrun's reading of its machine from a container)
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

# loadgen_run NAME ARGS...: one of the generator image's programs
# (loadrun run ARGS) in a container NAME on the load generator's engine,
# pinned to its CPUs, on the host network, labelled as the bench's;
# removed when it exits unless LOADGEN_KEEP=1 (its files are copied out);
# LOADGEN_STDIN=1 gives it this shell's stdin
loadgen_run() {
  local name=$1 rm=(--rm) in=()
  shift
  [[ "${LOADGEN_KEEP:-}" == 1 ]] && rm=()
  [[ "${LOADGEN_STDIN:-}" == 1 ]] && in=(-i)
  engine_docker "$ROLE_LOADGEN_ENGINE" run --pull never "${rm[@]}" "${in[@]}" --name "$name" --label "stacklab.bench=$BENCH_ID" --network host \
    --cpuset-cpus "$LOADGEN_CPUS" --cap-drop ALL --security-opt no-new-privileges "$LOADGEN_IMAGE" run "$@"
}

# loadgen_oha OUT SECONDS DB ARGS...: oha in a container on the load
# generator's engine (DB: 1 keeps its answers' file, as OUT.db); its JSON to
# OUT, stderr to OUT.stderr, CPU time to OUT.time, as oha_window on this
# machine writes them; returns oha's status (124: past its deadline)
loadgen_oha() {
  local out=$1 secs=$2 keep=$3 name rc=0 db=()
  shift 3
  name="stacklab-$BENCH_ID-gen-$BASHPID-$RANDOM"
  ((keep)) && db=(--db-url /tmp/oha.db)
  LOADGEN_KEEP=1 loadgen_run "$name" --time /tmp/time --start /tmp/start --deadline "$((secs + WINDOW_GRACE_S))" -- oha --no-tui --output-format json \
    --disable-compression -w -z "${secs}s" -t "${REQUEST_TIMEOUT_S}s" "${db[@]}" "$@" >"$out" 2>"$out.stderr" || rc=$?
  engine_docker "$ROLE_LOADGEN_ENGINE" cp "$name:/tmp/time" "$out.time" >/dev/null 2>&1 || true
  if ((keep)); then
    engine_docker "$ROLE_LOADGEN_ENGINE" cp "$name:/tmp/oha.db" "$out.db" >/dev/null 2>&1 || true
    engine_docker "$ROLE_LOADGEN_ENGINE" cp "$name:/tmp/start" "$out.start" >/dev/null 2>&1 || true
  fi
  engine_docker "$ROLE_LOADGEN_ENGINE" rm -f "$name" >/dev/null 2>&1 || true
  return "$rc"
}

# loadgen_vegeta OUT BIN TARGETS SECONDS ARGS...: vegeta ARGS (an attack
# of SECONDS) in a container on the load generator's engine, TARGETS on
# its stdin; its results to BIN, its stderr to OUT.stderr and its CPU time
# to OUT.time, as vegeta_lane writes them on this machine; returns
# vegeta's status (124: past its deadline). Encoding and reporting the
# results is this machine's work: it measures nothing.
loadgen_vegeta() {
  local out=$1 bin=$2 targets=$3 secs=$4 name rc=0
  shift 4
  name="stacklab-$BENCH_ID-vegeta-$BASHPID-$RANDOM"
  LOADGEN_KEEP=1 LOADGEN_STDIN=1 loadgen_run "$name" --time /tmp/time --deadline "$((secs + WINDOW_GRACE_S))" -- vegeta "$@" -output /tmp/results.bin \
    <"$targets" >/dev/null 2>"$out.stderr" || rc=$?
  engine_docker "$ROLE_LOADGEN_ENGINE" cp "$name:/tmp/time" "$out.time" >/dev/null 2>&1 || true
  engine_docker "$ROLE_LOADGEN_ENGINE" cp "$name:/tmp/results.bin" "$bin" >/dev/null 2>&1 || true
  engine_docker "$ROLE_LOADGEN_ENGINE" rm -f "$name" >/dev/null 2>&1 || true
  return "$rc"
}

# engine_image ENGINE TAG: the bench's image TAG on ENGINE too, copied with
# docker save | docker load when that engine lacks it (no registry)
engine_image() {
  engine_docker "$1" image inspect "$2" >/dev/null 2>&1 && return 0
  docker save "$2" | engine_docker "$1" load -q >/dev/null || return 1
  note "engine: copied $2 to the engine $1"
}

# engines_cleanup: the bench's containers on the load generator's and the
# upstream's engines
engines_cleanup() {
  local e
  while read -r e; do
    [[ -n "$e" ]] || continue
    engine_docker "$e" ps -aq --filter "label=stacklab.bench=$BENCH_ID" 2>/dev/null |
      xargs -r bash -c "$(declare -f engine_docker); engine_docker \"\$0\" rm -f \"\$@\"" "$e" >/dev/null 2>&1 || true
  done < <(printf '%s\n' "${ROLE_LOADGEN_ENGINE:-}" "${ROLE_UPSTREAM_ENGINE:-}" | sort -u)
}
