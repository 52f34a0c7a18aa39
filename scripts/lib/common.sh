# shellcheck shell=bash
# Helpers every lab script sources: messages, pinned versions, paths.

LAB_ROOT=${LAB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

die() { # die MESSAGE: one line on stderr, exit 1
  echo "$*" >&2
  exit 1
}

bad() { # bad MESSAGE: bad input (a flag, a file): one line on stderr, exit 2
  echo "$*" >&2
  exit 2
}

note() { echo "$*" >&2; }

# kill_tree PID: TERM a background job and everything it started (oha
# runs under a subshell, its runner and taskset below the job the caller
# remembers)
kill_tree() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
  kill -TERM "$1" 2>/dev/null || true
}

# pinned KEY: the version versions.json pins for KEY (a unique key anywhere
# in the file, e.g. oha, just, go, docker.io). Read with sed, not jq: the
# bootstrap needs it before any tool is installed.
pinned() {
  local v
  v=$(sed -n "s/^ *\"$1\": *\"\([^\"]*\)\".*/\1/p" "$LAB_ROOT/versions.json" | head -n1)
  [[ -n "$v" ]] || die "versions.json: no version pinned for '$1'"
  echo "$v"
}

# port_free PORT WHAT: die if 127.0.0.1:PORT answers before WHAT listens
# there (on the host network another server's answers would pass for WHAT's)
port_free() {
  if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
    die "127.0.0.1:$1 already answers before $2 starts: another bench, or another server, holds that port (stop it, or set LAB_APP_PORT / LAB_UPSTREAM_PORT)"
  fi
}

# assign_lines TEXT: a lab program's KEY=VALUE lines (bench/host, bench/plan),
# each assigned as written: no expansion, no code run (never eval). A line
# that is not KEY=VALUE ends the bench in one line.
assign_lines() {
  local line
  while IFS= read -r line; do
    [[ -n "$line" ]] || continue
    [[ "$line" =~ ^([A-Z][A-Z0-9_]*)=(.*)$ ]] || die "bench: a lab program answered '$line', not KEY=VALUE"
    printf -v "${BASH_REMATCH[1]}" '%s' "${BASH_REMATCH[2]}"
  done <<<"$1"
}

# oha's compile in the background (scripts/bootstrap --oha-later): a first
# look builds the lab's tools and its first image while the generator
# compiles, and waits for it before its first window (bench: oha_wait).
OHA_BUILD_PID="$LAB_ROOT/.tools/oha-build.pid"
OHA_BUILD_LOG="$LAB_ROOT/.tools/oha-build.log"
OHA_BUILD_STATUS="$LAB_ROOT/.tools/oha-build.status"
# oha_compiling: is that compile running? (its pid, and that pid still the
# compile's: a pid file outliving a reboot names someone else's process)
oha_compiling() {
  local pid
  pid=$(cat "$OHA_BUILD_PID" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- '--oha-compile'
}
# oha_stop: end that compile and everything it started (cargo, rustc, cc);
# its target folder stays, so the next compile goes on from it.
oha_stop() {
  oha_compiling || return 0
  local pid _
  pid=$(cat "$OHA_BUILD_PID")
  kill -TERM -- "-$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do pgrep -g "$pid" >/dev/null || break; sleep 0.25; done
  rm -f "$OHA_BUILD_PID"
  note "oha's compile in the background stopped (its target folder is kept for the next one)"
}
