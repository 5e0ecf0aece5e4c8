# Sourced by the set-up scripts: apt_install PACKAGE... installs Debian packages (with sudo when not
# root) without letting their maintainer scripts start services now (a policy-rc.d that says no, for
# the install only, unless one is there already). On systemd machines Debian still enables the
# services for the next boot; docs/development.md, "What the two commands install and change", says how to undo it.
apt_install() {
  local sudo=() made=0 rc=0
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  echo "[apt-install] installing Debian packages: $*" >&2
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee /usr/sbin/policy-rc.d >/dev/null
    "${sudo[@]}" chmod +x /usr/sbin/policy-rc.d; made=1
  fi
  { "${sudo[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@"; } >&2 || rc=$?
  [ $made = 1 ] && "${sudo[@]}" rm -f /usr/sbin/policy-rc.d
  return $rc
}
