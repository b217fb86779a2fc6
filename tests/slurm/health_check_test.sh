#!/usr/bin/env bash
# scripts/health-check as a real slurmd's HealthCheckProgram (munge, slurmctld and 3 slurmd on this machine,
# HealthCheckInterval=5), the host baseline standing for 2 GPUs per node (VMR_FAKE_GPUS) through a wrapper that
# runs `health-check --drain` as a site would (setting BUILD_DIR and SLURM_CONF; slurmd gives no PATH):
#   1. the node made different (n2: VMR_FORCE_FAIL) is drained with the health check's line as its Reason; n1 and
#      n3 stay idle with no reason, over several periodic runs;
#   2. n2 made healthy again (a flag file the wrapper reads) is resumed by the check (our own drain);
#   3. under HealthCheckNodeState=IDLE (the README's setting: the check uses every GPU), a node running a job (n2)
#      is not checked while the others are, and is checked again once the job ends; a drained idle node is still
#      checked, which is how step 2 resumes n2;
#   4. a node drained by someone else ("maintenance") is neither resumed when healthy (n3) nor re-drained with our
#      reason when unhealthy (n1).
# Every wait is bounded; the cluster is stopped on every path. Prints the timings. Skips (77) without root or Slurm.
#   usage: health_check_test.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
cluster=$work/cluster
interval=5
# Each check's budget, under slurmd's 60 s kill of a HealthCheckProgram. The waits below are upper bounds sized from
# it (they end as soon as their condition holds): on a loaded 2-core CI machine checks took 18 s where an idle one
# takes 3. slurmd starts a check every interval even while the last still runs; health-check's lock turns the
# overlapping ones away (exit 99, logged like any other run here).
budget=45
slack=$((budget + interval * 2))  # the longest one check (started just before a change) can take to see it
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# The HealthCheckProgram: one line per run in hc-<node>.log ("<start ms> <end ms> rc=<exit> PATH=set|unset <line>").
cat >"$work/hc-wrapper.sh" <<EOF
#!/usr/bin/env bash
node=\${SLURMD_NODENAME:-none}
export SLURM_CONF=$cluster/slurm.conf BUILD_DIR=$build VMR_FAKE_GPUS=2 VMR_HEALTH_ROOT=$work/health/\$node
if [ -e "$work/\$node-fail" ] || { [ "\$node" = n2 ] && [ ! -e "$work/n2-healthy" ]; }; then
  export VMR_FORCE_FAIL=repro_host_shm.atomics
fi
start=\$((\$(date +%s%N) / 1000000))
line=\$("$repo/scripts/health-check" --drain --budget $budget 2>>"$work/hc-\$node.err")
rc=\$?
# (bash fills in a PATH of its own where none is given, but does not export it: env tells)
path=\$(env | grep -q '^PATH=' && echo set || echo unset)
echo "\$start \$((\$(date +%s%N) / 1000000)) rc=\$rc PATH=\$path \$line" >>"$work/hc-\$node.log"
EOF
chmod +x "$work/hc-wrapper.sh"

t0=$(now_ms)
export VMR_SLURM_EXTRA_CONF="HealthCheckProgram=$work/hc-wrapper.sh
HealthCheckInterval=$interval
HealthCheckNodeState=IDLE"
up=$(bash "$repo/tests/slurm/cluster.sh" up "$cluster" 3); rc=$?
[ $rc = 77 ] && { echo "not run: $(bash "$repo/tests/slurm/cluster.sh" up "$cluster" 3 2>&1 | tail -1)"; exit 77; }
trap 'bash "$repo/tests/slurm/cluster.sh" down "$cluster"' EXIT
[ $rc = 0 ] || fail "the Slurm cluster did not come up"
eval "$up"
t_up=$(now_ms)
echo "slurm up in $((t_up - t0)) ms"

state_of() { scontrol show node "$1" | grep -oE '(^|[[:space:]])State=[^[:space:]]+' | head -n 1 | sed 's/.*State=//'; }
reason_of() { scontrol show node "$1" | sed -n 's/^[[:space:]]*Reason=//p' | sed -E 's/ \[[^]@]*@[^]]*\]$//'; }
# (the runs that judged the node: one turned away by the lock, another still running, judged nothing)
runs_of() { cat "$work/hc-$1.log" 2>/dev/null | grep -vc 'another health check is still running'; }
# wait_for SECONDS COMMAND...: polls every 0.2 s; fails when the time is up.
wait_for() {
  local limit=$(($(now_ms) + $1 * 1000))
  shift
  until "$@"; do
    [ "$(now_ms)" -lt "$limit" ] || return 1
    sleep 0.2
  done
}
drained() { [[ "$(state_of "$1")" == *DRAIN* ]]; }
resumed() { [[ "$(state_of "$1")" != *DRAIN* ]]; }
runs_at_least() { [ "$(runs_of "$1")" -ge "$2" ]; }
idle() { [ "$(state_of "$1")" = IDLE ] && [ -z "$(reason_of "$1")" ]; }
undrained() { [[ "$(state_of "$1")" != *DRAIN* ]] && [ -z "$(reason_of "$1")" ]; }

# slurmd runs the program once before it registers: where that run drained n2 already, the first look shows it.
first_look=$(state_of n2)
echo "n2 at the first look after the cluster came up: $first_look (its startup run: $(head -n 1 "$work/hc-n2.log" 2>/dev/null | cut -d' ' -f3))"

# 1. n2 drained with the line as its reason; n1 and n3 stay idle over 2 periodic runs each.
wait_for $slack drained n2 || fail "n2 was not drained: $(state_of n2); runs: $(cat "$work/hc-n2.log" "$work/hc-n2.err" 2>/dev/null)"
t_drained=$(now_ms)
last_n2=$(grep ' rc=1 ' "$work/hc-n2.log" | tail -n 1 | cut -d' ' -f5-)
[[ "$last_n2" == "vmem-repro: repro_host_shm.atomics FAIL "* ]] || fail "n2's health line: $last_n2"
[ "$(reason_of n2)" = "$last_n2" ] || fail "n2's Reason '$(reason_of n2)' is not the health line '$last_n2'"
grep -q ' rc=1 PATH=unset ' "$work/hc-n2.log" || fail "slurmd gave the program a PATH after all: $(cat "$work/hc-n2.log")"
echo "n2 drained $((t_drained - t_up)) ms after the cluster came up; Reason=$(reason_of n2)"
for n in n1 n3; do
  wait_for $((slack * 3)) runs_at_least "$n" 3 || fail "$n: fewer than 3 health checks in $((slack * 3)) s: $(cat "$work/hc-$n.log")"
  undrained "$n" || fail "$n: $(state_of "$n") '$(reason_of "$n")'"
  grep -q ' rc=0 PATH=unset vmem-repro: OK, ' "$work/hc-$n.log" || fail "$n's runs: $(cat "$work/hc-$n.log")"
done
echo "n1, n3 idle after $(runs_of n1), $(runs_of n3) health checks"

# 2. n2 healthy again: the check resumes its own drain.
touch "$work/n2-healthy"
t_fixed=$(now_ms)
wait_for $((slack * 2)) resumed n2 || fail "n2 was not resumed: $(state_of n2) '$(reason_of n2)'; $(tail -n 2 "$work/hc-n2.log")"
t_resumed=$(now_ms)
# (a resumed node reads IDLE+NOT_RESPONDING until slurmctld's next word with its slurmd: measured 0.2 s)
wait_for 10 idle n2 || fail "n2 after resume: $(state_of n2) '$(reason_of n2)'"
echo "n2 resumed $((t_resumed - t_fixed)) ms after it was made healthy (interval $interval s)"

# 3. A job on n2: no check starts there while it runs (n1 and n3 get two each), and one does after it ends.
busy() { [[ "$(state_of "$1")" == ALLOC* || "$(state_of "$1")" == MIX* ]]; }
srun -w n2 -N 1 --exclusive sleep 600 >/dev/null 2>&1 &
job=$!
trap 'kill "$job" 2>/dev/null; bash "$repo/tests/slurm/cluster.sh" down "$cluster"' EXIT
wait_for 20 busy n2 || fail "the job did not start on n2: $(state_of n2)"
t_busy=$(now_ms)
r1=$(runs_of n1) r3=$(runs_of n3)
wait_for $((slack * 2)) runs_at_least n1 $((r1 + 2)) && wait_for $((slack * 2)) runs_at_least n3 $((r3 + 2)) ||
  fail "fewer than 2 more health checks on n1 and n3 while n2 ran a job"
# (1 s of slack: a check slurmctld sent just before the job began may start after we saw the allocation)
started_busy=$(awk -v t="$((t_busy + 1000))" '$1 > t' "$work/hc-n2.log" | wc -l)
[ "$started_busy" = 0 ] || fail "$started_busy health check(s) started on n2 while it ran a job: $(tail -n 2 "$work/hc-n2.log")"
scancel -w n2 >/dev/null 2>&1 || kill "$job" 2>/dev/null
wait "$job" 2>/dev/null
trap 'bash "$repo/tests/slurm/cluster.sh" down "$cluster"' EXIT
t_done=$(now_ms)
wait_for $((slack * 2)) sh -c "awk -v t=$t_done '\$1 > t' '$work/hc-n2.log' | grep -q ." ||
  fail "no health check on n2 after its job ended: $(state_of n2)"
echo "n2 ran a job for $((t_done - t_busy)) ms with no health check started; checked again after it"

# 4. Someone else's drain: n3 healthy and n1 failing, both drained for maintenance; 2 more runs each change nothing.
scontrol update NodeName=n3 State=DRAIN Reason="maintenance" || fail "scontrol could not drain n3"
touch "$work/n1-fail"
scontrol update NodeName=n1 State=DRAIN Reason="maintenance" || fail "scontrol could not drain n1"
r1=$(runs_of n1) r3=$(runs_of n3)
wait_for $((slack * 2)) runs_at_least n1 $((r1 + 2)) && wait_for $((slack * 2)) runs_at_least n3 $((r3 + 2)) ||
  fail "fewer than 2 more health checks on n1 and n3"
for n in n1 n3; do
  drained "$n" && [ "$(reason_of "$n")" = maintenance ] || fail "$n's maintenance drain changed: $(state_of "$n") '$(reason_of "$n")'"
done
# (the last check that judged: one turned away by the lock judged nothing)
grep -v 'another health check is still running' "$work/hc-n1.log" | tail -n 1 | grep -q ' rc=1 ' ||
  fail "n1 did not fail its checks: $(tail -n 2 "$work/hc-n1.log")"
grep -q 'already drained by someone else (maintenance)' "$work/hc-n1.err" || fail "n1: someone else's drain is not reported"
echo "n1 (failing) and n3 (healthy) kept their maintenance drains over 2 more health checks each"

turned_away=$(cat "$work"/hc-n*.log | grep -c 'another health check is still running')
echo "checks turned away while another ran on their node: $turned_away"
durations=$(cat "$work"/hc-n*.log | grep -v 'another health check is still running' | awk '{ d = $2 - $1; s += d; if (d > m) m = d } END { printf "%d runs, mean %d ms, max %d ms", NR, s / NR, m }')
echo "health checks under slurmd: $durations"
bash "$repo/tests/slurm/cluster.sh" down "$cluster"
trap - EXIT
left=$(pgrep -f "$cluster" | wc -l)
[ "$left" = 0 ] || fail "$left process(es) of the cluster left running"
echo "health check against Slurm: all checks passed in $(($(now_ms) - t0)) ms"
