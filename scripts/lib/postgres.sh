# shellcheck shell=bash
# The Postgres server role (docs/postgres.md) on DB_CPUS and DB_MEMORY,
# confined like the app, a fresh "app" database seeded for each session; the
# bench and scripts/verify share these, so a [pg] row is verified as measured.

PG_PORT=${LAB_PG_PORT:-5432}

# pg_role_check: the host profile's DB role, refused in one line (exit 2)
# when unset or not a CPU list of this host (bench/host check-db)
pg_role_check() { lab_tool host check-db "$HOST_PROFILE_FILE" || exit 2; }

# pg_admin_url, pg_app_url: the superuser's maintenance database (the
# seeder's) and the app's database as its login role (the stacks')
pg_admin_url() { echo "postgres://lab@127.0.0.1:$PG_PORT/postgres"; }
pg_app_url() { echo "postgres://app@127.0.0.1:$PG_PORT/app"; }

# pg_start CONTAINER DATA_DIR [DOCKER_ARGS...]: the server role on a fresh
# cluster in DATA_DIR, ready to accept connections
pg_start() {
  local name=$1 data=$2 tag CONFINE
  shift 2
  pg_role_check
  tag=${IMAGE_TAG[postgres]:-$(require_image postgres)}
  confine_flags || return 1
  rm -rf "$data"
  mkdir -p "$data"
  confine_data_dir "$data"
  docker rm -f "$name" >/dev/null 2>&1 || true
  docker run -d --name "$name" --label stacklab=1 "$@" --network host --cpuset-cpus "$DB_CPUS" --memory "$DB_MEMORY" \
    ${CONFINE[@]+"${CONFINE[@]}"} -e PORT="$PG_PORT" -v "$data:/data" "$tag" >/dev/null || die "could not start the Postgres server role"
  local i
  for ((i = 0; i < 300; i++)); do
    docker exec "$name" pg_isready -q -h 127.0.0.1 -p "$PG_PORT" 2>/dev/null && return 0
    [[ "$(docker inspect -f '{{.State.Running}}' "$name" 2>/dev/null)" == true ]] || break
    sleep 0.1
  done
  docker logs "$name" 2>&1 | tail -n 5 >&2
  die "the Postgres server role did not accept connections on 127.0.0.1:$PG_PORT within 30 s"
}

# pg_seed: a fresh app database on the running role (bench/seed) at the
# study's size, checked against SEED_CHECKSUM when the bench set it
pg_seed() {
  lab_tool seed ${SEED_ARGS[@]+"${SEED_ARGS[@]}"} --postgres "$(pg_admin_url)" || return 1
  [[ -z "${SEED_CHECKSUM:-}" ]] || lab_tool seed checksum --want "$SEED_CHECKSUM" "$(pg_app_url)" >/dev/null
}

# row_db ROW: the row's database, as plan describe (the bench) or stack
# verify-rows (verify) said it for every row
row_db() { echo "${ROW_DB[$1]}"; }

# row_db_target ROW DB_DIR: what verify and the rows check read for ROW:
# its SQLite file, or the app's Postgres database
row_db_target() {
  if [[ "$(row_db "$1")" == postgres ]]; then pg_app_url; else echo "$2/app.db"; fi
}
