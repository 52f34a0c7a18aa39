# shellcheck shell=bash
# Debian packages at a stated version, for scripts/bootstrap (the lab's own
# tools, pinned in versions.json) and scripts/native-stack (a native
# build's host packages, at its Dockerfile's versions: `stack
# host-packages`). Needs common.sh (die, note).

APT_UPDATED=0

# apt_have PKG: the version dpkg has installed, nothing when none.
# dpkg-query fails for a package it never saw; under pipefail that would
# end the caller silently, so its status is not the pipeline's.
apt_have() {
  { dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null || true; } | sed -n 's/^install ok installed //p'
}

# apt_put WHO PKG=VERSION...: each PKG at VERSION where Debian still serves
# it, else at its current one with a note (a security update replaces a
# version): the caller records what was installed (apt_have)
apt_put() {
  local who=$1 item pkg want exact=() current=()
  shift
  if ((APT_UPDATED == 0)); then
    apt-get update -qq >/dev/null || die "$who: apt-get update failed: is Debian's package mirror reachable?"
    APT_UPDATED=1
  fi
  for item in "$@"; do
    pkg=${item%%=*} want=${item#*=}
    if apt-cache madison "$pkg" 2>/dev/null | awk '{print $3}' | grep -qxF "$want"; then
      exact+=("$pkg=$want")
    else
      note "$who: note: Debian no longer serves $pkg $want; installing its current version"
      current+=("$pkg")
    fi
  done
  ((${#exact[@]} == 0)) || apt_get_install "$who" "${exact[@]}"
  ((${#current[@]} == 0)) || apt_get_install "$who" "${current[@]}"
}

apt_get_install() { # apt_get_install WHO PKG...: one apt-get, or one line and exit 1
  local who=$1
  shift
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null \
    || die "$who: apt-get install $* failed"
}
