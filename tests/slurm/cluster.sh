#!/usr/bin/env bash
# A real Slurm cluster on this one machine, for the fleet tests: munge, slurmctld and N slurmd (nodes n1..nN, all
# on localhost), each node declaring 2 fake GPUs through GRES (character devices made with mknod). Everything lives
# in DIR (config, state, logs, pids); every daemon is stopped by its pid. Needs root and Debian's slurmctld, slurmd,
# slurm-client and munge. VMR_SLURM_EXTRA_CONF: more slurm.conf lines (e.g. HealthCheckProgram=...).
#   cluster.sh up DIR N      prints "export SLURM_CONF=DIR/slurm.conf" once the N nodes are idle
#   cluster.sh down DIR      stops every daemon it started, by pid
#   cluster.sh kill DIR NODE stops one node's slurmd (SIGKILL), as a node dying mid-run
set -uo pipefail
cmd=$1 dir=$2
say() { printf 'cluster: %s\n' "$*" >&2; }

down() {
  local pidfile pid
  for pidfile in "$dir"/slurmd-*.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
    rm -f "$pidfile"
  done
}

case "$cmd" in
  down) down; exit 0 ;;
  kill)
    node=$3
    pid=$(cat "$dir/slurmd-$node.pid" 2>/dev/null) && kill -9 "$pid" && rm -f "$dir/slurmd-$node.pid"
    exit 0 ;;
  up) ;;
  *) say "usage: cluster.sh up DIR N | down DIR | kill DIR NODE"; exit 2 ;;
esac

n=$3
[ "$(id -u)" = 0 ] || { say "needs root"; exit 77; }
for tool in slurmctld slurmd srun sinfo munged mungekey munge; do
  command -v "$tool" >/dev/null || { say "$tool is not installed (apt-get install slurmctld slurmd slurm-client munge)"; exit 77; }
done
down
rm -rf "$dir" && mkdir -p "$dir"/{state,spool,log,munge,dev} && chmod 0755 "$dir/munge"
mungekey -c -k "$dir/munge.key" >/dev/null 2>&1 || { say "mungekey failed"; exit 1; }
chmod 0400 "$dir/munge.key"
munged -F --socket="$dir/munge/sock" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
  --seed-file="$dir/munge.seed" --log-file="$dir/log/munged.log" --force >"$dir/log/munged.out" 2>&1 &
for _ in $(seq 50); do munge -S "$dir/munge/sock" -n >/dev/null 2>&1 && break; sleep 0.1; done
munge -S "$dir/munge/sock" -n >/dev/null 2>&1 || { say "munged did not start"; down; exit 1; }

cpus=$(nproc)
# Ports of this cluster's own (VMR_SLURM_PORT, else a random base), so two test runs on one machine do not meet.
port=${VMR_SLURM_PORT:-$((20000 + RANDOM % 20000))}
{
  echo "ClusterName=vmr"
  echo "SlurmctldHost=localhost"
  echo "SlurmctldPort=$port"
  echo "SlurmUser=root"
  echo "AuthType=auth/munge"
  echo "AuthInfo=socket=$dir/munge/sock"
  echo "CredType=cred/munge"
  echo "ProctrackType=proctrack/linuxproc"
  echo "TaskPlugin=task/none"
  echo "AccountingStorageType=accounting_storage/none"
  echo "JobAcctGatherType=jobacct_gather/none"
  echo "SelectType=select/cons_tres"
  echo "SelectTypeParameters=CR_Core"
  echo "MpiDefault=none"
  echo "ReturnToService=2"
  echo "KillWait=2"
  echo "SlurmdTimeout=5"
  echo "StateSaveLocation=$dir/state"
  echo "SlurmdSpoolDir=$dir/spool/%n"
  echo "SlurmctldPidFile=$dir/slurmctld.pid"
  echo "SlurmdPidFile=$dir/slurmd-%n.pid"
  echo "SlurmctldLogFile=$dir/log/slurmctld.log"
  echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
  echo "GresTypes=gpu"
  [ -z "${VMR_SLURM_EXTRA_CONF-}" ] || printf '%s\n' "$VMR_SLURM_EXTRA_CONF"
  for ((i = 1; i <= n; i++)); do
    echo "NodeName=n$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + i)) CPUs=$cpus Gres=gpu:2 State=UNKNOWN"
  done
  echo "PartitionName=vmr Nodes=n[1-$n] Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
} >"$dir/slurm.conf"
: >"$dir/gres.conf"
for ((i = 1; i <= n; i++)); do
  mknod "$dir/dev/gpu$i-0" c 1 3 && mknod "$dir/dev/gpu$i-1" c 1 3
  echo "NodeName=n$i Name=gpu File=$dir/dev/gpu$i-[0-1]" >>"$dir/gres.conf"
  mkdir -p "$dir/spool/n$i"
done
export SLURM_CONF=$dir/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 &
for ((i = 1; i <= n; i++)); do slurmd -D -N "n$i" -f "$SLURM_CONF" >"$dir/log/slurmd-n$i.out" 2>&1 & done
for _ in $(seq 100); do
  [ "$(sinfo -h -N -t idle 2>/dev/null | wc -l)" -ge "$n" ] && break
  sleep 0.2
done
if [ "$(sinfo -h -N -t idle 2>/dev/null | wc -l)" -lt "$n" ]; then
  say "the $n nodes did not become idle: $(sinfo -h -N 2>&1 | tr '\n' ';')"
  tail -5 "$dir"/log/*.log >&2
  down
  exit 1
fi
echo "export SLURM_CONF=$dir/slurm.conf"
