# shellcheck shell=bash
# Bash's side of the confinement analysis/confine decides (its flags, uid and
# pid limit, and why each): the flags for a docker run, the data folder handed
# to the app's uid, the record of what ran. Sourced by scripts/lib/stack.sh.

# confine_flags [NAME]: CONFINE (the caller's local), the docker run flags
# `stack confine` gives; a bad SCRATCH dir is its one line and status 1
confine_flags() {
  local out
  out=$(stack_tool confine --unconfined "${LAB_UNCONFINED:-}" "$@") || return 1
  CONFINE=()
  [[ -z "$out" ]] || mapfile -t CONFINE <<<"$out"
}

# confine_data_dir DIR: hand DIR and everything in it (the seeded app.db) to
# the lab's user, so the app can write its database, -wal and -shm files.
confine_data_dir() {
  chown -R "$CONFINE_USER" "$1" ||
    die "confine: cannot chown $1 to $CONFINE_USER (the lab runs as root; the app runs as that uid)"
}

# confine_record RUN_DIR NAME CONTAINER [ENGINE]: what Docker applied to
# CONTAINER (docker inspect, on ENGINE) into RUN_DIR's manifest under NAME
confine_record() { engine_docker "${4:-}" inspect "$3" | lab_tool record confinement "$1" "$2" --inspect -; }

# app_confine_record ROW CONTAINER: the row's app as its mode's runner
# keeps it: a container as confine_record does (on the app's engine), a
# native app's group and uid (native start's line, in its folder)
app_confine_record() { "${RUN_MODE:-docker}_confine_record" "$@"; }
docker_confine_record() { confine_record "$RUN_DIR" "$1" "$2" "${ROLE_APP_ENGINE:-}"; }
native_confine_record() {
  lab_tool record confinement "$RUN_DIR" "$1" --native "$(native_data_dir "$2")/start.json" --user "$CONFINE_USER"
}
