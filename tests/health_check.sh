#!/usr/bin/env bash
# scripts/health-check without a scheduler (tests/slurm/health_check_test.sh runs it under a real slurmd), the host
# baseline standing for GPUs (VMR_FAKE_GPUS):
#   1. healthy: exit 0, one line on stdout, the GPUs counted; the timing on stderr; --prom reaches the triage
#   2. a case made different: exit 1, the line names it, its pair and "(+N more)" for the other CHANGED rows
#   3. no GPU case: exit 77, with --require-gpu exit 1 and the same line
#   4. not built: exit 99, no folder; a bad command line: exit 2
#   5. the budget: a triage that hangs and ignores SIGTERM (and its child) is killed, exit 1 within the budget
#   6. --drain against a scontrol stand-in: drain on 1, resume only our own drain on 0, never someone else's, nothing
#      on 77; a failing scontrol is exit 99; an unwritable --prom is named and changes neither line, exit nor drain
#   7. the newest 3 folders are kept, nothing else in the root is touched
#   8. the NHC check (scripts/nhc/vmem_repro.nhc) in a stand-in NHC: die 1 "<line>" on 1, passes on 0, 77 and 99
#   9. a table problem and a binary missing from the build: exit 99, the node not judged, never drained
#  10. the same crash twice: the same reason (no pid, no time), so the second leaves the drain alone
#  11. one check at a time: while another holds the root's lock a check exits 99 at once, judging, draining and
#      resuming nothing; once it is released checks run again
#   usage: health_check.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$repo/tests/prom_check.sh"  # check_metrics: the --prom textfile passes promtool check metrics
hc=$repo/scripts/health-check
export BUILD_DIR=$build VMR_HEALTH_ROOT=$work/health
unset VMR_FAKE_GPUS VMR_FORCE_FAIL SLURMD_NODENAME
# run NAME [ENV=V...] -- ARGS: health-check's stdout in NAME.out, stderr in NAME.err, exit in $rc.
run() {
  local name=$1 envs=()
  shift
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]+"${envs[@]}"}" "$hc" "$@" >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
  [ "$(wc -l <"$work/$name.out")" = 1 ] || fail "$name: stdout is not one line: $(cat "$work/$name.out")"
  line=$(cat "$work/$name.out")
}
changed_rows() { grep -oE '"standing":"(changed_verdict|changed_reason|no_row|missing_record|unreadable_record)"' "$(sed -n 's/.*; results: //p' "$work/$1.err")/triage/summary.json" | wc -l; }

# 1. Healthy.
# (under umask 002, as many desktops set it: as root, a group-writable run folder would be refused by the triage)
umask 002
run healthy VMR_FAKE_GPUS=2 -- --budget 30 --prom "$work/healthy.prom"
umask 022
[ $rc = 0 ] || fail "healthy: exit $rc: $line"
grep -qx 'vmem_repro_triage_outcome{outcome="as_expected"} 1' "$work/healthy.prom" &&
  grep -q '^vmem_repro_case_verdict{case="repro_host_shm.atomics",.*devices="1-1".*} 0$' "$work/healthy.prom" ||
  fail "healthy: --prom did not reach the triage: $(head -c 300 "$work/healthy.prom" 2>&1)"
check_metrics "$work/healthy.prom"
[[ "$line" =~ ^vmem-repro:\ OK,\ [1-9][0-9]*\ case\ runs\ as\ expected\ on\ 2\ GPU\(s\)\ in\ [0-9.]+\ s$ ]] || fail "healthy line: $line"
grep -Eq '^health-check: exit 0 in [0-9.]+ s \(budget 30 s, triage limit 25 s, per-run --timeout 10 s; .*; plan: [1-9][0-9]* launch\(es\), modelled time [0-9.]+ s; model: --mesh on 8 GPUs [0-9.]*[1-9][0-9.]* s; results: ' \
  "$work/healthy.err" || fail "healthy: no timing line on stderr: $(cat "$work/healthy.err")"
echo "healthy: $line"

# 2. One case made different.
run odd VMR_FAKE_GPUS=2 VMR_FORCE_FAIL=repro_host_shm.atomics --
[ $rc = 1 ] || fail "a failing case: exit $rc: $line"
[[ "$line" =~ ^vmem-repro:\ repro_host_shm\.atomics\ FAIL\ [01]-\>[01]\ \(expected\ PASS\)\ \(\+([0-9]+)\ more\):\ forced ]] ||
  fail "a failing case's line: $line"
[ $((BASH_REMATCH[1] + 1)) = "$(changed_rows odd)" ] || fail "'+${BASH_REMATCH[1]} more' but $(changed_rows odd) CHANGED rows"
echo "odd: $line"

# 3. No GPU case: the host baseline runs as itself, GPU binaries (where built) skip.
run cpu_only --
[ $rc = 77 ] || fail "no GPU: exit $rc: $line"
[[ "$line" == "vmem-repro: no GPU case could run here ("* ]] || fail "no GPU line: $line"
no_gpu_line=$line
run cpu_only_required -- --require-gpu
[ $rc = 1 ] && [ "$line" = "$no_gpu_line" ] || fail "--require-gpu without GPUs: exit $rc: $line"
echo "cpu only: $line"

# 4. Not built; bad command lines.
run unbuilt BUILD_DIR="$work/no-build" VMR_HEALTH_ROOT="$work/unbuilt-root" --
[ $rc = 99 ] && [ "$line" = "vmem-repro: the health check could not run (not built)" ] || fail "not built: exit $rc: $line"
[ ! -e "$work/unbuilt-root" ] || fail "not built: a results folder was made"
for args in "--budget 5" "--budget 50s" "--budget 4000" "--node" "--bogus"; do
  # shellcheck disable=SC2086
  "$hc" $args >/dev/null 2>&1 </dev/null
  r=$?
  [ $r = 2 ] || fail "health-check $args: exit $r, want 2"
done

# 5. The budget: a copy of the scripts whose triage hangs, ignoring SIGTERM, with a child that does too.
mkdir -p "$work/tree"
cp -r "$repo/scripts" "$work/tree/"
cat >"$work/tree/scripts/triage" <<EOF
#!/usr/bin/env bash
trap '' TERM
mkdir -p "\$RESULTS_DIR" && printf 'planned\n%.0s' 1 2 3 >"\$RESULTS_DIR/rounds.txt"  # three launches planned, none modelled
sleep 300 &
echo \$! >"$work/hung.pid"
sleep 300
EOF
t0=$(date +%s%N)
env VMR_FAKE_GPUS=2 "$work/tree/scripts/health-check" --budget 10 >"$work/hung.out" 2>"$work/hung.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc = 1 ] && [ "$(cat "$work/hung.out")" = "vmem-repro: health check did not finish in 10 s (GPU runs hung?)" ] ||
  fail "a hung triage: exit $rc: $(cat "$work/hung.out" "$work/hung.err")"
[ "$ms" -lt 10000 ] || fail "a hung triage took $ms ms, past the budget of 10 s"
# Gone, or a zombie waiting for init to reap it (killed, but its parent died first).
left=$(awk '{ print $3 }' "/proc/$(cat "$work/hung.pid")/stat" 2>/dev/null)
[ -z "$left" ] || [ "$left" = Z ] || fail "the hung triage's child is still running (state $left)"
[ "$(cat "$work/hung.err" | wc -l)" = 1 ] || fail "a hung triage: more than the timing on stderr: $(cat "$work/hung.err")"
grep -Eq '; plan: 3 launch\(es\) planned \(triage/rounds.txt\); the triage ended \(exit 1(24|37)\) before it modelled their time; results: ' \
  "$work/hung.err" || fail "a hung triage: its planned launches are not counted from rounds.txt: $(cat "$work/hung.err")"
echo "hung triage: stopped in $ms ms (budget 10 s)"

# 6. --drain: a scontrol stand-in that prints a node as `scontrol show node` does (Slurm 22.05) and logs updates.
mkdir -p "$work/bin"
cat >"$work/bin/scontrol" <<EOF
#!/usr/bin/env bash
case "\$1" in
  show) [ -z "\${FAKE_SHOW_FAIL-}" ] || { echo "slurm_load_node error: Unable to contact slurm controller" >&2; exit 1; }
        echo "NodeName=\$3 Arch=x86_64 CoresPerSocket=1"
        echo "   State=\$FAKE_STATE ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A"
        [ -z "\${FAKE_REASON-}" ] || echo "   Reason=\$FAKE_REASON [root@2026-11-30T10:00:00]" ;;
  update) echo "\$*" >>"$work/scontrol.log"
          [ -z "\${FAKE_UPDATE_FAIL-}" ] || { echo "slurm_update error: Invalid node state specified" >&2; exit 1; } ;;
esac
EOF
chmod +x "$work/bin/scontrol"
# drain CASE STATE REASON WANT_RC WANT_UPDATE [ENV...] [-- ARGS...]: one --drain run on node n7; WANT_UPDATE is the
# logged update ("" for none).
drain() {
  local name=$1 state=$2 reason=$3 want_rc=$4 want=$5 envs=()
  shift 5
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  [ $# -gt 0 ] && shift  # (the health-check arguments after "--")
  : >"$work/scontrol.log"
  run "drain-$name" PATH="$work/bin:$PATH" FAKE_STATE="$state" FAKE_REASON="$reason" "${envs[@]+"${envs[@]}"}" -- --drain --node n7 "$@"
  [ $rc = "$want_rc" ] || fail "--drain $name: exit $rc, want $want_rc: $line $(cat "$work/drain-$name.err")"
  [ "$(cat "$work/scontrol.log")" = "$want" ] || fail "--drain $name: scontrol calls '$(cat "$work/scontrol.log")', want '$want'"
}
bad=(VMR_FAKE_GPUS=2 VMR_FORCE_FAIL=repro_host_shm.atomics)
drain idle-unhealthy IDLE "" 1 "update NodeName=n7 State=DRAIN Reason=$(cat "$work/odd.out")" "${bad[@]}"
drain ours-unhealthy IDLE+DRAIN "vmem-repro: older" 1 "update NodeName=n7 State=DRAIN Reason=$(cat "$work/odd.out")" "${bad[@]}"
drain ours-same IDLE+DRAIN "$(cat "$work/odd.out")" 1 "" "${bad[@]}"
drain theirs-unhealthy IDLE+DRAIN "maintenance" 1 "" "${bad[@]}"
grep -q 'already drained by someone else (maintenance)' "$work/drain-theirs-unhealthy.err" || fail "someone else's drain is not named"
drain ours-healthy IDLE+DRAIN "vmem-repro: repro_host_shm.atomics FAIL 0->1" 0 "update NodeName=n7 State=RESUME" VMR_FAKE_GPUS=2
drain theirs-healthy IDLE+DRAIN "maintenance vmem-repro: x" 0 "" VMR_FAKE_GPUS=2
drain idle-healthy IDLE "" 0 "" VMR_FAKE_GPUS=2
drain ours-no-gpu IDLE+DRAIN "vmem-repro: x" 77 ""
drain update-fails IDLE "" 99 "update NodeName=n7 State=DRAIN Reason=$(cat "$work/odd.out")" "${bad[@]}" FAKE_UPDATE_FAIL=1
grep -q 'scontrol update NodeName=n7 State=DRAIN failed: slurm_update error' "$work/drain-update-fails.err" ||
  fail "a failed scontrol update is not reported"
[ "$line" = "$(cat "$work/odd.out")" ] || fail "a failed drain changed the line: $line"
drain show-fails IDLE "" 99 "" VMR_FAKE_GPUS=2 FAKE_SHOW_FAIL=1
# The node: --node, else SLURMD_NODENAME (slurmd sets it), else hostname -s.
: >"$work/scontrol.log"
run drain-env PATH="$work/bin:$PATH" FAKE_STATE=IDLE SLURMD_NODENAME=n9 "${bad[@]}" -- --drain
grep -q '^update NodeName=n9 State=DRAIN ' "$work/scontrol.log" || fail "SLURMD_NODENAME is not the node: $(cat "$work/scontrol.log")"
echo "drain: drains on 1, resumes only its own drains on 0, leaves someone else's drain alone"
# A --prom FILE that cannot be written is a side output's failure: named on stderr, the node's line and exit stand,
# and a failing node is still drained.
drain prom-unwritable IDLE "" 1 "update NodeName=n7 State=DRAIN Reason=$(cat "$work/odd.out")" "${bad[@]}" -- \
  --prom "$work/no/such/folder/vmem.prom"
[ "$line" = "$(cat "$work/odd.out")" ] || fail "an unwritable --prom changed the line: $line"
grep -q "^scripts/health-check: --prom $work/no/such/folder/vmem.prom not written (the node's verdict stands): check_expected: cannot write $work/no/such/folder/vmem.prom: " \
  "$work/drain-prom-unwritable.err" || fail "an unwritable --prom is not named on stderr: $(cat "$work/drain-prom-unwritable.err")"
echo "drain: an unwritable --prom is named, the failing node still exits 1 and is drained"

# 7. Pruning: the newest 3 of its own folders stay; other files in the root are not its to delete.
mkdir -p "$work/health/keep-me" "$work/health/health-20000101T000000.000000000Z-999999999"
for i in 1 2 3; do run "prune$i" VMR_FAKE_GPUS=2 -- ; done
[ "$(find "$work/health" -mindepth 1 -maxdepth 1 -name 'health-*' | wc -l)" = 3 ] ||
  fail "not 3 folders kept: $(ls "$work/health")"
[ -d "$work/health/keep-me" ] || fail "pruning deleted a folder not its own"
[ ! -e "$work/health/health-20000101T000000.000000000Z-999999999" ] || fail "the oldest folder was kept"
for i in 1 2 3; do
  [ -d "$(sed -n 's/.*; results: //p' "$work/prune$i.err")" ] || fail "the newest folder $i was deleted"
done

# 8. NHC: the check in a stand-in of NHC's shell (die and log record their arguments; NHC is not in Debian 12).
nhc() {
  env "$@" bash -c '
    set -u
    die() { echo "die $*" >>"$NHC_CALLS"; return 0; }
    log() { echo "log $*" >>"$NHC_CALLS"; }
    source "$1/scripts/nhc/vmem_repro.nhc"
    before=$(set -o)
    check_vmem_repro; rc=$?
    [ "$before" = "$(set -o)" ] || echo "shell options changed" >>"$NHC_CALLS"
    echo "return $rc" >>"$NHC_CALLS"' nhc "$repo" 2>/dev/null
}
# (VMEM_REPRO_BUDGET=40 where a triage runs: the default 20 s is NHC's, too tight for a loaded 2-core CI machine.)
nhc NHC_CALLS="$work/nhc-healthy.calls" VMEM_REPRO_BUDGET=40 VMEM_REPRO_DIR="$repo" VMEM_REPRO_BUILD_DIR="$build" VMR_FAKE_GPUS=2
nhc NHC_CALLS="$work/nhc-odd.calls" VMEM_REPRO_BUDGET=40 VMEM_REPRO_DIR="$repo" VMEM_REPRO_BUILD_DIR="$build" "${bad[@]}"
nhc NHC_CALLS="$work/nhc-cpu_only.calls" VMEM_REPRO_BUDGET=40 VMEM_REPRO_DIR="$repo" VMEM_REPRO_BUILD_DIR="$build"
nhc NHC_CALLS="$work/nhc-unbuilt.calls" VMEM_REPRO_DIR="$repo" VMEM_REPRO_BUILD_DIR="$work/no-build"
nhc NHC_CALLS="$work/nhc-strict.calls" VMEM_REPRO_DIR="$repo" VMEM_REPRO_BUILD_DIR="$work/no-build" VMEM_REPRO_STRICT=1
[ "$(cat "$work/nhc-healthy.calls")" = "return 0" ] || fail "NHC, healthy: $(cat "$work/nhc-healthy.calls")"
[ "$(head -n 1 "$work/nhc-odd.calls")" = "die 1 $(cat "$work/odd.out")" ] && [ "$(tail -n 1 "$work/nhc-odd.calls")" = "return 1" ] ||
  fail "NHC, a failing case: $(cat "$work/nhc-odd.calls")"
[ "$(cat "$work/nhc-cpu_only.calls")" = "return 0" ] || fail "NHC, no GPU: $(cat "$work/nhc-cpu_only.calls")"
grep -q '^log check_vmem_repro: vmem-repro: the health check could not run (not built) (exit 99' "$work/nhc-unbuilt.calls" &&
  [ "$(tail -n 1 "$work/nhc-unbuilt.calls")" = "return 0" ] || fail "NHC, not built: $(cat "$work/nhc-unbuilt.calls")"
[ "$(head -n 1 "$work/nhc-strict.calls")" = "die 1 vmem-repro: the health check could not run (not built)" ] ||
  fail "NHC, not built, strict: $(cat "$work/nhc-strict.calls")"
echo "nhc: die 1 on a difference, passes on healthy, no GPU and (unless strict) a broken suite"
# 9. What is the suite's, not the node's: the node is not judged (exit 99) and --drain never drains for it, even
#    beside a case that FAILs. A copy of the tree whose table has a row for a case the binary does not have (an old
#    table beside a new build); a build whose manifest lists a binary that is not there (a build that stopped).
tree_of() {  # tree_of NAME: a copy of the scripts and the table, in WORK/NAME
  mkdir -p "$work/$1" && cp -r "$repo/scripts" "$repo/expected" "$work/$1/"
}
tree_of tree-table
echo '| repro_host_shm | no-such-case | * | PASS | - | a row of an older build |' >>"$work/tree-table/expected/verdicts.md"
: >"$work/scontrol.log"
env PATH="$work/bin:$PATH" FAKE_STATE=IDLE "${bad[@]}" "$work/tree-table/scripts/health-check" --drain --node n7 \
  >"$work/suite-table.out" 2>"$work/suite-table.err"
rc=$?
line=$(cat "$work/suite-table.out")
[ $rc = 99 ] || fail "a table problem: exit $rc, want 99: $line"
[[ "$line" == "vmem-repro: the node was not judged, a suite problem: TABLE: row for repro_host_shm.no-such-case names a case the binary does not have"* ]] ||
  fail "a table problem's line: $line"
[ ! -s "$work/scontrol.log" ] || fail "a table problem drained the node: $(cat "$work/scontrol.log")"
mkdir -p "$work/partial/bin"
cp "$build/bin/check_expected" "$build/bin/triage_plan" "$build/bin/repro_host_shm" "$work/partial/bin/"
grep -v '^repro_host_shm	' "$build/bin/manifest.txt" | sed 's/^\([a-z0-9_]*\)	\([a-z]*\)	[a-z]*	/\1	\2	missing	/' >"$work/partial/bin/manifest.txt"
grep '^repro_host_shm	' "$build/bin/manifest.txt" >>"$work/partial/bin/manifest.txt"
printf 'repro_gone\thost\tok\t-\trepro/gone.cpp\n' >>"$work/partial/bin/manifest.txt"
: >"$work/scontrol.log"
run suite-missing BUILD_DIR="$work/partial" PATH="$work/bin:$PATH" FAKE_STATE=IDLE "${bad[@]}" -- --drain --node n7
[ $rc = 99 ] && [ "$line" = "vmem-repro: the health check could not run (repro_gone missing from the build, the node was not judged)" ] ||
  fail "a binary missing from the build: exit $rc: $line"
[ ! -s "$work/scontrol.log" ] || fail "a missing binary drained the node: $(cat "$work/scontrol.log")"
# A manifest of an older build (toolchain "yes", before ok/missing): its binaries are not taken for ones without a
# toolchain (a node judged on nothing); it is a build to make again, as a binary missing from it is.
grep -v '^repro_gone	' "$work/partial/bin/manifest.txt" | sed 's/^\(repro_host_shm	host	\)ok	/\1yes	/' >"$work/partial/manifest.old"
mv "$work/partial/manifest.old" "$work/partial/bin/manifest.txt"
run suite-old-manifest BUILD_DIR="$work/partial" PATH="$work/bin:$PATH" FAKE_STATE=IDLE "${bad[@]}" -- --drain --node n7
[ $rc = 99 ] && [ "$line" = "vmem-repro: the health check could not run (an older build's manifest: build again, the node was not judged)" ] ||
  fail "a manifest whose toolchain says yes: exit $rc: $line"
[ ! -s "$work/scontrol.log" ] || fail "an older build's manifest drained the node: $(cat "$work/scontrol.log")"
echo "suite problems: exit 99, not judged, not drained"

# 10. The same failure on the next interval keeps its drain: the reason has no pid or time of the run. A copy whose
#     table expects the host self-test "fault" (a rank killed by SIGSEGV: "rank 1 (pid N) killed ...") to PASS, and
#     whose triage runs the self-tests; no GPU stands in, so the host row is the one named.
tree_of tree-crash
sed -i 's/^| repro_host_shm | fault | \* | CRASH ~killed by SIGSEGV |/| repro_host_shm | fault | * | PASS |/' "$work/tree-crash/expected/verdicts.md"
mv "$work/tree-crash/scripts/triage" "$work/tree-crash/scripts/triage.real"
printf '#!/usr/bin/env bash\nexec "$(dirname "$0")/triage.real" --include-crash "$@"\n' >"$work/tree-crash/scripts/triage"
chmod +x "$work/tree-crash/scripts/triage"
# (Budget 40 s: with --include-crash every binary's self-tests run, the host's hang case waiting out its per-run
# timeout; at 20 s the triage of the 11 binaries was stopped on a loaded CI machine before it finished.)
crash() {  # crash NAME STATE REASON: one --drain run of the copy on node n7
  : >"$work/scontrol.log"
  env PATH="$work/bin:$PATH" FAKE_STATE="$2" FAKE_REASON="$3" "$work/tree-crash/scripts/health-check" --drain --node n7 \
    --budget 40 >"$work/$1.out" 2>"$work/$1.err"
  rc=$?
  line=$(cat "$work/$1.out")
}
crash crash-first IDLE ""
[ $rc = 1 ] && [[ "$line" == "vmem-repro: repro_host_shm.fault CRASH (expected PASS): rank 1 killed by SIGSEGV"* ]] ||
  fail "a crash: exit $rc: $line $(tail -3 "$work/crash-first.err")"
[[ "$line" != *pid* ]] || fail "the reason carries a pid: $line"
[ "$(cat "$work/scontrol.log")" = "update NodeName=n7 State=DRAIN Reason=$line" ] || fail "a crash: not drained: $(cat "$work/scontrol.log")"
first=$line
crash crash-again IDLE+DRAIN "$first"
[ $rc = 1 ] && [ "$line" = "$first" ] || fail "the same crash again: exit $rc, line '$line', first '$first'"
[ ! -s "$work/scontrol.log" ] || fail "the same crash drained again: $(cat "$work/scontrol.log")"
echo "same failure, same reason: the drain is left as it is ($first)"
# 11. A check still running (here: the test holding the lock as a check's processes do, through an open file of its
#     own) keeps the next one out, on a node whose check would fail and drain.
exec {held}>>"$work/health/lock" && flock -n "$held" || fail "the test could not take $work/health/lock"
: >"$work/scontrol.log"
before=$(find "$work/health" -mindepth 1 -maxdepth 1 -name 'health-*' | wc -l)
t0=$(date +%s%N)
run locked VMR_FAKE_GPUS=2 VMR_FORCE_FAIL=repro_host_shm.atomics PATH="$work/bin:$PATH" FAKE_STATE=IDLE FAKE_REASON= -- --drain --node n7
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc = 99 ] && [ "$line" = "vmem-repro: the health check could not run (another health check is still running here)" ] ||
  fail "a check beside a running one: exit $rc: $line $(cat "$work/locked.err")"
[ ! -s "$work/scontrol.log" ] || fail "a check beside a running one changed the node: $(cat "$work/scontrol.log")"
[ "$(find "$work/health" -mindepth 1 -maxdepth 1 -name 'health-*' | wc -l)" = "$before" ] ||
  fail "a check beside a running one made a folder: $(ls "$work/health")"
exec {held}>&-
run unlocked VMR_FAKE_GPUS=2 -- --budget 30
[ $rc = 0 ] || fail "a check after the other ended: exit $rc: $line"
echo "one check at a time: the second exited 99 in $ms ms and changed nothing; the next one ran"
echo "health_check: all checks passed"
