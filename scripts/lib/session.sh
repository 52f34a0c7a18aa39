# shellcheck shell=bash
# An app's session as both the bench and scripts/verify run it: the mock
# upstream, a row's container (a stack, or a variant of one) started on a
# fresh database, its readiness, the docs/app.md checks, a graceful stop. One
# copy, so a stack is verified exactly the way it is measured.

# shellcheck source=scripts/lib/postgres.sh
source "$LAB_ROOT/scripts/lib/postgres.sh"

# upstream_run CONTAINER PORT [DOCKER_ARGS...]: the mock upstream on its
# CPUs, confined like the stacks (scripts/lib/stack.sh), on its role's
# engine (UPSTREAM_ENGINE, its image copied there; unset, the bench's
# own), answering at its role's address
upstream_run() {
  local name=$1 port=$2 addr=${ROLE_UPSTREAM_ADDR:-127.0.0.1}
  shift 2
  role_port_free upstream "$port" "the mock upstream"
  upstream_start_container upstream "$name" "$UPSTREAM_CPUS" "$port" "$@" ||
    die "could not start the mock upstream${ROLE_UPSTREAM_ENGINE:+ on its engine $ROLE_UPSTREAM_ENGINE}"
  wait_up "http://$addr:$port/delay?ms=0" 30 >/dev/null ||
    die "the mock upstream did not answer on $addr:$port"
}

# row_stack ROW: the stack folder a row runs (ROW_STACK, set from the
# study's plan; a plain stack name stands for itself)
row_stack() { echo "${ROW_STACK[$1]:-$1}"; }

# ready_path STACK: the path whose first 200 says the app is up
ready_path() { stack_tool ready-path "$1" || exit 1; }

# contract STACK: app (docs/app.md, checked by bench/verify) or none (an image
# of the user's own: only the study's per-case checks apply), as stackenv
# decides it
contract() { stack_tool contract "$1" || exit 1; }

# app_start ROW DATA_DIR CONTAINER PORT UPSTREAM_URL [DOCKER_ARGS...]: the
# row's stack with its variant's environment (ROW_ENV, "K=V" lines) on a
# freshly seeded DATA_DIR (app_data_dir's), started by the runner of the
# bench's mode (docker_start, native_start); prints what app_pid and the
# other runner functions then take (a container id, a native group's
# name). A row on Postgres also gets a freshly seeded app database on the
# server role and its DATABASE_URL (scripts/lib/postgres.sh).
app_start() {
  local row=$1 data=$2 container=$3 port=$4 upstream=$5 env=${ROW_ENV[$1]:-}
  shift 5
  # (a fresh_db window restarts the row: its app of that name goes first)
  app_remove "$container"
  role_port_free app "$port" "$row"
  fresh_database "$data" "$(row_stack "$row")"
  if [[ "$(row_db "$row")" == postgres ]]; then
    pg_seed >&2 || { note "the Postgres server role could not be seeded"; return 1; }
    env+="DATABASE_URL=$(pg_app_url)"$'\n'
  fi
  "${RUN_MODE:-docker}_start" "$row" "$data" "$container" "$port" "$upstream" "$env" "$@"
}

# app_ready ROW PORT TIMEOUT_S: wait for the row's first 200, print the ms
app_ready() {
  wait_up "http://${ROLE_APP_ADDR:-127.0.0.1}:$2$(ready_path "$(row_stack "$1")")" "$3"
}

# verify_app ROW PORT DATA_DIR UPSTREAM_URL OUT [SNAPSHOT]: bench/verify's
# docs/app.md checks against the running app, run for the app's role
# beside it (role_tool: on the sampler's CPUs, on this machine or in a
# container on the app's engine that shares the app's /data and uid, so
# they read its database, DATA_DIR here, as it is written); its report to
# OUT, its verdict as a row record (formats/verdict) to
# verify.verdict.json beside OUT, and each route's answer as captured on
# the wire to answers.json beside OUT. /bench/pragmas is sampled under
# writers at the host profile's connections, the write case's.
verify_app() {
  local dir db keep=() snap=()
  dir=$(dirname "$5")
  db=$(row_db_target "$1" @DATA)
  [[ -z "${6:-}" ]] || snap=(-snapshot @snap) keep=(--keep "snap=$6")
  DB_DIR=$3 role_tool app "$ROLE_SAMPLER_CPUS" - --data --keep "verdict=$dir/verify.verdict.json" --keep "answers=$dir/answers.json" \
    ${keep[@]+"${keep[@]}"} -- verify -stack "$1" -url "http://127.0.0.1:$2" "$([[ "$db" == postgres://* ]] && echo -db-url || echo -db)" "$db" \
    -upstream "$4" ${snap[@]+"${snap[@]}"} -write-concurrency "${CONNECTIONS:-32}" -record @verdict -answers @answers >"$5" 2>&1
}

# read_plan: what the study asks for, from bench/plan: ROWS (stacks and
# variants, in order), ROW_STACK, ROW_ENV, ROW_BUILD and ROW_DB per row, WINDOWS,
# SAMPLER_CHECK, PAIRED_CHECK, NEEDS_UPSTREAM, HEADROOM (the generator's, once a run),
# HAS_CHECKS, SEED_ARGS (the seed's size, as the seed command's flags), and for a size study SIZE_STUDY,
# SIZE_RUNS (the profile's build runs) and SIZE_BUILD, and
# NEEDS_POSTGRES (rows on the Postgres role); a bad study exits 2 here.
# Natively, the study's stacks without a native build are left out, each
# with a note (a stack named in --stacks is not: the bench refuses it).
declare -gA ROW_STACK=() ROW_ENV=() ROW_BUILD=() ROW_DB=()
read_plan() {
  local out key a b rc=0 native=""
  [[ "${RUN_MODE:-docker}" != native ]] || native=--native
  out=$(lab_tool plan describe "$STUDY_FILE" --lab-root "$LAB_ROOT" --connections "$CONNECTIONS" ${native:+"$native"} \
    ${STACKS_ARG:+--stacks "$STACKS_ARG"} ${LAB_EXTRA_STACKS:+--extra-stacks "$LAB_EXTRA_STACKS"} 2>&1) || rc=$?
  if ((rc != 0)); then
    echo "bench: ${out#plan describe: }" >&2
    exit 2
  fi
  ROWS=() WINDOWS=() SEED_ARGS=() SAMPLER_CHECK="" PAIRED_CHECK="" NEEDS_UPSTREAM=0 HEADROOM=0 HAS_CHECKS=0 SIZE_STUDY=0 SIZE_RUNS="" SIZE_BUILD=0 NEEDS_POSTGRES=0
  while read -r key a b; do
    case "$key" in
      study) STUDY=$a ;;
      stacks_dir) export LAB_EXTRA_STACKS=$a ;;
      sampler_check) SAMPLER_CHECK=$a ;;
      paired_check) PAIRED_CHECK=$a ;;
      upstream) NEEDS_UPSTREAM=$a ;;
      headroom) HEADROOM=$a ;;
      checks) HAS_CHECKS=$a ;;
      seed_args) read -ra SEED_ARGS <<<"$a $b" ;;
      row) ROWS+=("$a") ROW_STACK[$a]=$b ;;
      left_out) note "bench: --mode native: $a left out: $b" ;;
      env) ROW_ENV[$a]+="$b"$'\n' ;;
      build) ROW_BUILD[$a]+="$b"$'\n' ;;
      database) ROW_DB[$a]=$b; [[ "$b" != postgres ]] || NEEDS_POSTGRES=1 ;;
      window) WINDOWS+=("$a") ;;
      size_runs) SIZE_STUDY=1; [[ "$a" != "$PROFILE" ]] || SIZE_RUNS=$b ;;
      size_build) SIZE_BUILD=$a ;;
    esac
  done <<<"$out"
}
