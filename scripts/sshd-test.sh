#!/usr/bin/env bash
# A real OpenSSH server on 127.0.0.1 for the SSH runner's tests (no systemd, nothing outside its dir):
#   scripts/sshd-test.sh up     installs openssh-server if missing, starts sshd on a free port (the same
#                               port again after a `down` in the same dir), writes an ssh config with a
#                               Host alias, checks a login, prints KEY=VALUE lines on stdout:
#                               SSHD_DIR, SSHD_PORT, SSHD_PID, SSH_CONFIG, SSH_HOST
#   scripts/sshd-test.sh down   stops that sshd and its connections, by pid
# State lives in $SSHD_TEST_DIR (default: <dev cache>/sshd). Keys are generated once and kept there.
# Exit 3: sshd is not installed and cannot be installed here.
set -euo pipefail
CACHE="${SATLUTION_DEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/satlution-dev}"
D="${SSHD_TEST_DIR:-$CACHE/sshd}"
ALIAS=satlution-test-host
log() { echo "[sshd-test] $*" >&2; }
source "$(dirname "$0")/apt-install.sh"
SUDO=(); [ "$(id -u)" = 0 ] || SUDO=(sudo)

down() {
  [ -f "$D/sshd.pid" ] || { log "not running (no $D/sshd.pid)"; return 0; }
  pid=$(cat "$D/sshd.pid")
  # The listener's children serve open connections: end them too, or a "down" would leave them up.
  for c in $(ps -o pid= --ppid "$pid" 2>/dev/null || true); do kill "$c" 2>/dev/null || true; done
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$D/sshd.pid"
  log "stopped sshd $pid"
}

up() {
  SSHD=$(command -v sshd || echo /usr/sbin/sshd)
  if [ ! -x "$SSHD" ]; then
    # Without starting the system's sshd on port 22: the tests start their own.
    apt_install openssh-server || { log "openssh-server cannot be installed on this machine"; exit 3; }
    SSHD=/usr/sbin/sshd
  fi
  mkdir -p "$D"; chmod 700 "$D"
  [ "$(id -u)" = 0 ] && mkdir -p /run/sshd # sshd's privilege-separation directory
  [ -f "$D/host_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -f "$D/host_ed25519"
  [ -f "$D/client_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -f "$D/client_ed25519"
  cp "$D/client_ed25519.pub" "$D/authorized_keys"
  if [ -f "$D/sshd.pid" ] && kill -0 "$(cat "$D/sshd.pid")" 2>/dev/null; then
    log "already running"
  else
    port=$(cat "$D/port" 2>/dev/null || node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
    cat > "$D/sshd_config" <<X
Port $port
ListenAddress 127.0.0.1
HostKey $D/host_ed25519
PidFile $D/sshd.pid
AuthorizedKeysFile $D/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
# Lets a test's ssh config pass the private Slurm's config to a "login node" session (SetEnv).
AcceptEnv SLURM_CONF
X
    "$SSHD" -f "$D/sshd_config" -E "$D/sshd.log" || { log "sshd did not start: $(tail -1 "$D/sshd.log")"; exit 1; }
    for _ in $(seq 50); do [ -s "$D/sshd.pid" ] && break; sleep 0.1; done
    echo "$port" > "$D/port"
  fi
  port=$(cat "$D/port")
  cat > "$D/ssh_config" <<X
Host $ALIAS
  HostName 127.0.0.1
  Port $port
  User $(id -un)
  IdentityFile $D/client_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $D/known_hosts
  StrictHostKeyChecking accept-new
  BatchMode yes
X
  ssh -F "$D/ssh_config" -o ControlMaster=no -o ControlPath=none "$ALIAS" true || { log "login check failed (see $D/sshd.log)"; exit 1; }
  echo "SSHD_DIR=$D"
  echo "SSHD_PORT=$port"
  echo "SSHD_PID=$(cat "$D/sshd.pid")"
  echo "SSH_CONFIG=$D/ssh_config"
  echo "SSH_HOST=$ALIAS"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
