# shellcheck shell=bash
# The confinement every container the lab starts runs under (issue #17): a
# benchmarked app may be someone else's image, so it gets no more than it
# needs to serve. One place for the flags, so the bench, scripts/verify and
# the tests start containers the same way (scripts/lib/stack.sh sources it).
#
#   --user 10001:10001                  a fixed uid; the seeded /data is handed to it
#   --cap-drop ALL                      no capabilities, not even Docker's default set
#   --security-opt no-new-privileges    no setuid binary or file capability raises them
#   --read-only                         the image's files cannot be changed
#   --tmpfs /tmp (and the stack's SCRATCH dirs)   small, in memory, nosuid/nodev/noexec
#   --pids-limit 4096                   a fork loop stops there, the host goes on
#
# /data (the bind mount stack_start adds) is the only writable path on disk.
# LAB_UNCONFINED=1 drops every one of these flags: it exists only to measure
# what confinement costs (stacks' READMEs); confine_record puts what ran in the manifest.

CONFINE_UID=10001
CONFINE_GID=10001
CONFINE_PIDS_LIMIT=4096
# In memory, counted against the container's memory limit; 64 MiB each is
# far beyond what a stack writes there (SQLite's temporary files, a pid file).
CONFINE_TMPFS_SIZE=64m

# confine_flags [SCRATCH_DIR...]: the docker run flags, one per line (read them
# with mapfile). /tmp is always a tmpfs; each SCRATCH_DIR (absolute) is another,
# owned by the lab's user.
confine_flags() {
  [[ "${LAB_UNCONFINED:-}" == 1 ]] && return 0
  local d opts="rw,nosuid,nodev,noexec,size=$CONFINE_TMPFS_SIZE"
  printf '%s\n' --user "$CONFINE_UID:$CONFINE_GID" --cap-drop ALL --security-opt no-new-privileges \
    --read-only --pids-limit "$CONFINE_PIDS_LIMIT" --tmpfs "/tmp:$opts,mode=1777"
  for d in "$@"; do
    [[ "$d" == /?* && "$d" != /tmp && "$d" != /data && "/$d/" != */../* ]] ||
      die "confine: scratch dir '$d' must be an absolute path other than /tmp and /data"
    printf '%s\n' --tmpfs "$d:$opts,uid=$CONFINE_UID,gid=$CONFINE_GID,mode=0700"
  done
}

# confine_split LINES: the array CONFINE from confine_flags' output (empty
# when there are no flags; the caller declares CONFINE local)
confine_split() {
  # shellcheck disable=SC2034 # read by the caller
  CONFINE=()
  # shellcheck disable=SC2034
  [[ -z "$1" ]] || mapfile -t CONFINE <<<"$1"
}

# confine_data_dir DIR: hand DIR and everything in it (the seeded app.db) to
# the lab's user, so the app can write its database, -wal and -shm files.
confine_data_dir() {
  chown -R "$CONFINE_UID:$CONFINE_GID" "$1" ||
    die "confine: cannot chown $1 to $CONFINE_UID:$CONFINE_GID (the lab runs as root; the app runs as that uid)"
}

# confine_record RUN_DIR NAME CONTAINER [ENGINE]: what Docker applied to
# CONTAINER (user, capabilities, security options, read-only root, pid
# limit, tmpfs and writable mounts, read from docker inspect, on ENGINE when
# it is on another: scripts/lib/engine.sh) into RUN_DIR's manifest under NAME.
confine_record() { engine_docker "${4:-}" inspect "$3" | lab_tool record confinement "$1" "$2" --inspect -; }

# app_confine_record ROW CONTAINER: the row's app as its mode's runner
# keeps it: a container as confine_record does (on the app's engine), a
# native app's group and uid (native start's line, in its folder)
app_confine_record() { "${RUN_MODE:-docker}_confine_record" "$@"; }
docker_confine_record() { confine_record "$RUN_DIR" "$1" "$2" "${ROLE_APP_ENGINE:-}"; }
native_confine_record() {
  lab_tool record confinement "$RUN_DIR" "$1" --native "$(native_data_dir "$2")/start.json" --user "$CONFINE_UID:$CONFINE_GID"
}
