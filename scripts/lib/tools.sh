# shellcheck shell=bash
# tool_versions: "name version" of each tool a bench's numbers depend on.
# The bench records them in the manifest; rerun hands them to record differences,
# which compares them with it (k6 when built).
tool_versions() {
  echo "docker $(docker version -f '{{.Server.Version}}' 2>/dev/null || echo none)"
  echo "go $(go env GOVERSION 2>/dev/null || echo none)"
  echo "just $(just --version 2>/dev/null | awk '{print $2}')"
  echo "oha $(oha --version 2>/dev/null | awk '{print $2}')"
  echo "sqlite3 $(sqlite3 --version 2>/dev/null | awk '{print $1}')"
  ! command -v k6 >/dev/null || echo "k6 $(k6 version 2>/dev/null | awk '{sub(/^v/, "", $2); print $2; exit}')"
  echo "vegeta $(vegeta -version 2>/dev/null | awk '/^Version:/ {print $2}' | grep . || echo none)"
}

# tool_ensure NAME: the pinned NAME on PATH. vegeta, scc and k6 are needed
# only by some studies (capacity, size, users), so bootstrap builds them
# only when asked (--with-NAME) and a first look does not wait for them;
# the first bench that needs one asks for it here (and rerun, for those
# record differences names: its builtOnDemand). The lab's .tools/bin
# goes after PATH's own folders: a tool found before is found still.
tool_ensure() {
  command -v "$1" >/dev/null && return 0
  note "bench: $1 is not built on this machine yet: scripts/bootstrap --with-$1 (once)"
  "$LAB_ROOT/scripts/bootstrap" "--with-$1" >&2 || die "bench: scripts/bootstrap --with-$1 failed (its lines above)"
  PATH="$PATH:$LAB_ROOT/.tools/bin"
  command -v "$1" >/dev/null || die "bench: scripts/bootstrap --with-$1 ended, but $1 is not in $LAB_ROOT/.tools/bin"
}
