#!/usr/bin/env bash
# A real single-host Slurm (slurmctld + slurmd + munged, Debian slurm-wlm, no systemd) for the Slurm
# runner's tests:
#   scripts/slurm-test.sh up     installs slurm-wlm + munge if missing, starts the daemons on free
#                                non-default ports with a private munge socket, waits for the node to be
#                                idle, prints KEY=VALUE lines on stdout:
#                                SLURM_TEST_DIR, SLURM_CONF, SLURMCTLD_PID, SLURMD_PID, MUNGED_PID
#   scripts/slurm-test.sh down   cancels every job (running steps survive slurmd otherwise), stops the
#                                daemons by pid and removes the state directory
# State lives in $SLURM_TEST_DIR (default for `up`: a fresh temp dir; `down` needs it set, or the
# directory as its second argument). Needs root (or sudo): slurmd launches jobs and munged runs as
# the munge user. Accounting (slurmdbd) is not set up, so `sacct` does not work here on purpose:
# the runner has to cope without it, as on many small clusters.
# Exit 3: Slurm is not installed and cannot be installed here.
set -euo pipefail
log() { echo "[slurm-test] $*" >&2; }
SUDO=(); [ "$(id -u)" = 0 ] || SUDO=(sudo)

# apt_install: packages installed without their services being started.
source "$(dirname "$0")/apt-install.sh"

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

up() {
  if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    command -v apt-get >/dev/null || { log "no apt-get: install slurm-wlm and munge yourself"; exit 3; }
    log "installing slurmctld slurmd slurm-client munge"
    apt_install slurmctld slurmd slurm-client munge || { log "slurm-wlm cannot be installed on this machine"; exit 3; }
  fi
  B="${SLURM_TEST_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/satlution-slurm-XXXXXX")}"
  mkdir -p "$B"/{etc,state,spool,log,run,munge}
  chmod 755 "$B" # munged runs as the munge user and must reach its socket directory
  "${SUDO[@]}" chown munge:munge "$B/munge"; chmod 755 "$B/munge"
  [ -f "$B/munge/munge.key" ] || "${SUDO[@]}" runuser -u munge -- mungekey --create --keyfile="$B/munge/munge.key"
  if ! { [ -f "$B/munge/munged.pid" ] && kill -0 "$(cat "$B/munge/munged.pid")" 2>/dev/null; }; then
    "${SUDO[@]}" runuser -u munge -- /usr/sbin/munged --socket="$B/munge/munge.socket" --key-file="$B/munge/munge.key" \
      --pid-file="$B/munge/munged.pid" --log-file="$B/munge/munged.log" --seed-file="$B/munge/munged.seed"
  fi
  # Free ports, kept for a restart in the same dir; a real cluster's daemons keep theirs (6817/6818).
  [ -f "$B/ports" ] || echo "$(free_port) $(free_port)" > "$B/ports"
  read -r ctld_port d_port < "$B/ports"
  mem=$(( $(free -m | awk '/^Mem:/ {print $2}') / 2 ))
  [ "$mem" -gt 4000 ] && mem=4000
  cat > "$B/etc/slurm.conf" <<CONF
ClusterName=satlution-test
SlurmctldHost=localhost
SlurmUser=$(id -un)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$B/munge/munge.socket
StateSaveLocation=$B/state
SlurmdSpoolDir=$B/spool
SlurmctldPidFile=$B/run/slurmctld.pid
SlurmdPidFile=$B/run/slurmd.pid
SlurmctldLogFile=$B/log/slurmctld.log
SlurmdLogFile=$B/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# Without a default each job takes the node's whole memory and array tasks run one at a time.
DefMemPerCPU=500
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
JobAcctGatherParams=OverMemoryKill
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$B/log/jobcomp.txt
MpiDefault=none
ReturnToService=2
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
MinJobAge=300
KillWait=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$B/etc/slurm.conf"
  if ! { [ -f "$B/run/slurmctld.pid" ] && kill -0 "$(cat "$B/run/slurmctld.pid")" 2>/dev/null; }; then
    "${SUDO[@]}" env SLURM_CONF="$SLURM_CONF" slurmctld -c # -c: no saved state, fresh job ids
  fi
  if ! { [ -f "$B/run/slurmd.pid" ] && kill -0 "$(cat "$B/run/slurmd.pid")" 2>/dev/null; }; then
    "${SUDO[@]}" env SLURM_CONF="$SLURM_CONF" slurmd -N localhost
  fi
  for _ in $(seq 100); do sinfo -h -o %t 2>/dev/null | grep -qx idle && break; sleep 0.2; done
  sinfo -h -o %t | grep -qx idle || { log "slurm did not come up"; tail -n 5 "$B"/log/*.log >&2; exit 1; }
  echo "SLURM_TEST_DIR=$B"
  echo "SLURM_CONF=$SLURM_CONF"
  echo "SLURMCTLD_PID=$(cat "$B/run/slurmctld.pid")"
  echo "SLURMD_PID=$(cat "$B/run/slurmd.pid")"
  echo "MUNGED_PID=$(cat "$B/munge/munged.pid")"
}

stop_pid() {
  local p=$1
  [ -n "$p" ] || return 0
  "${SUDO[@]}" kill "$p" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.1; done
  "${SUDO[@]}" kill -9 "$p" 2>/dev/null || true
}

down() {
  B="${2:-${SLURM_TEST_DIR:-}}"
  [ -n "$B" ] || { log "set SLURM_TEST_DIR (printed by up) or pass the directory"; exit 2; }
  [ -d "$B" ] || { log "not running (no $B)"; return 0; }
  export SLURM_CONF="$B/etc/slurm.conf"
  if [ -f "$B/run/slurmctld.pid" ] && kill -0 "$(cat "$B/run/slurmctld.pid")" 2>/dev/null; then
    # Running steps outlive slurmd: cancel every job and wait for them to end first.
    squeue -h -o %A 2>/dev/null | xargs -r scancel 2>/dev/null || true
    for _ in $(seq 100); do [ -z "$(squeue -h -t R,CG,PD 2>/dev/null)" ] && break; sleep 0.2; done
  fi
  stop_pid "$(cat "$B/run/slurmd.pid" 2>/dev/null || true)"
  stop_pid "$(cat "$B/run/slurmctld.pid" 2>/dev/null || true)"
  stop_pid "$(cat "$B/munge/munged.pid" 2>/dev/null || true)"
  rm -rf "$B"
  log "stopped"
}

case "${1:-}" in
  up) up ;;
  down) down "$@" ;;
  *) echo "usage: $0 up | down [DIR]" >&2; exit 2 ;;
esac
