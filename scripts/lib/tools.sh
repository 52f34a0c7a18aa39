# shellcheck shell=bash
# tool_version NAME [BIN]: the version BIN (NAME on PATH) says it is, as
# versions.json writes it (nothing when it does not run): each tool's own
# way of saying it, read here alone
tool_version() {
  local bin=${2:-$1}
  case "$1" in
    oha | just) "$bin" --version 2>/dev/null | awk '{print $2}' ;;
    vegeta) "$bin" -version 2>/dev/null | awk '/^Version:/ {print $2}' ;;
    k6) "$bin" version 2>/dev/null | awk '{sub(/^v/, "", $2); print $2; exit}' ;;
    scc) "$bin" --version 2>/dev/null | awk '{print $3}' ;;
  esac
}

# tool_check NAME: the version of NAME on PATH is the pinned one, or the
# bench ends here in one line
tool_check() {
  local have
  command -v "$1" >/dev/null || die "bench: $1 is not on PATH: run through ./lab or 'nix develop' (scripts/bootstrap installs it)"
  have=$(tool_version "$1")
  [[ "$have" == "$(pinned "$1")" ]] || die "bench: $1 ${have:-(no version)} is on PATH but the lab pins $(pinned "$1") (versions.json)"
}

# tool_versions: "name version" of each tool a bench's numbers depend on.
# The bench records them in the manifest; rerun hands them to record differences,
# which compares them with it (k6 when built).
tool_versions() {
  echo "docker $(docker version -f '{{.Server.Version}}' 2>/dev/null || echo none)"
  echo "go $(go env GOVERSION 2>/dev/null || echo none)"
  echo "just $(tool_version just)"
  echo "oha $(tool_version oha)"
  echo "sqlite3 $(sqlite3 --version 2>/dev/null | awk '{print $1}')"
  ! command -v k6 >/dev/null || echo "k6 $(tool_version k6)"
  echo "vegeta $(tool_version vegeta | grep . || echo none)"
}

# tool_ensure NAME: the pinned NAME on PATH, built the first time a study
# needs it (vegeta, scc, k6: a first look does not wait for them); .tools/bin
# goes after PATH's own folders, so a tool found before is found still
tool_ensure() {
  command -v "$1" >/dev/null && return 0
  note "bench: $1 is not built on this machine yet: scripts/bootstrap --with-$1 (once)"
  "$LAB_ROOT/scripts/bootstrap" "--with-$1" >&2 || die "bench: scripts/bootstrap --with-$1 failed (its lines above)"
  PATH="$PATH:$LAB_ROOT/.tools/bin"
  command -v "$1" >/dev/null || die "bench: scripts/bootstrap --with-$1 ended, but $1 is not in $LAB_ROOT/.tools/bin"
}
