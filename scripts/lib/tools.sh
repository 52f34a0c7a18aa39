# shellcheck shell=bash
# tool_versions: "name version" of each tool a bench's numbers depend on.
# The bench records them in the manifest; rerun compares them with it (k6 when built).
tool_versions() {
  echo "docker $(docker version -f '{{.Server.Version}}' 2>/dev/null || echo none)"
  echo "go $(go env GOVERSION 2>/dev/null || echo none)"
  echo "just $(just --version 2>/dev/null | awk '{print $2}')"
  echo "oha $(oha --version 2>/dev/null | awk '{print $2}')"
  echo "sqlite3 $(sqlite3 --version 2>/dev/null | awk '{print $1}')"
  ! command -v k6 >/dev/null || echo "k6 $(k6 version 2>/dev/null | awk '{sub(/^v/, "", $2); print $2; exit}')"
  echo "vegeta $(vegeta -version 2>/dev/null | awk '/^Version:/ {print $2}' | grep . || echo none)"
}
