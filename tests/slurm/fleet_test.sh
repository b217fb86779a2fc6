#!/usr/bin/env bash
# scripts/fleet against a real Slurm (munge, slurmctld and 3 slurmd with 2 fake GPUs each, all on this machine),
# the host baseline standing for 2 GPUs per node (VMR_FAKE_GPUS):
#   1. every node answers, all agree: the report's table, no difference, JUnit that parses;
#   2. one node made different (an injected fact and a case forced to fail, through VMR_FLEET_TEST_NODE_ENV): the
#      report names that node, the case and the injected fact;
#   3. one node killed mid-run: reported as not answering, the others as usual;
#   4. collect over folders gathered otherwise (two folders carrying the same node name: named by their folders).
# Every daemon is stopped by its pid at the end; nothing is left running. Skips (77) without root or Slurm.
#   usage: fleet_test.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
cluster=$work/cluster
t0=$(date +%s%N)
up=$(bash "$repo/tests/slurm/cluster.sh" up "$cluster" 3); rc=$?
[ $rc = 77 ] && { echo "not run: $(bash "$repo/tests/slurm/cluster.sh" up "$cluster" 3 2>&1 | tail -1)"; exit 77; }
[ $rc = 0 ] || fail "the Slurm cluster did not come up"
trap 'bash "$repo/tests/slurm/cluster.sh" down "$cluster"' EXIT
eval "$up"
echo "slurm up in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
export BUILD_DIR=$build VMR_FAKE_GPUS=2

# 1. All agree.
"$repo/scripts/fleet" run -N 3 --gpus-per-node 2 --out "$work/agree" --junit "$work/agree/junit.xml" >"$work/agree.out" 2>&1
rc=$?; cat "$work/agree.out"
[ $rc = 0 ] || fail "3 agreeing nodes: exit $rc"
grep -q '^fleet: 3 node(s), 0 did not answer, 0 difference(s), 0 problem(s)$' "$work/agree.out" || fail "summary line"
for n in n1 n2 n3; do
  grep -Eq "^\| $n \|.* PASS 4/4 \| PASS 4/4 \|" "$work/agree/fleet.md" || fail "row of $n: $(grep "^| $n " "$work/agree/fleet.md")"
done
# The GPUs Slurm gave each task (GRES: CUDA_VISIBLE_DEVICES=0,1) are the ones the node's triage planned pairs on.
if grep -Pq '^repro_cuda_vmm\tcuda\tok\t' "$build/bin/manifest.txt"; then
  for n in n1 n2 n3; do
    grep -q "backend cuda: 2 GPUs, the diagonal (2 same-GPU pairs, one round) and 2 pair(s)" "$work/agree/$n/report.md" || fail "$n's triage did not see Slurm's 2 GPUs"
  done
fi
if command -v python3 >/dev/null; then
  python3 - "$work/agree/junit.xml" <<'PY' || fail "the JUnit file does not parse as JUnit"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
suites = root.findall("testsuite")
assert sorted(s.get("name") for s in suites) == ["n1", "n2", "n3"], [s.get("name") for s in suites]
cases = root.iter("testcase")
assert all(c.get("classname") and c.get("name") for c in cases)
assert int(root.get("failures")) == 0 and int(root.get("tests")) == sum(int(s.get("tests")) for s in suites)
skips = [c for c in root.iter("testcase") if c.find("skipped") is not None]  # GPU binaries, where built, skip here
assert all(c.find("skipped").get("message") for c in skips)
PY
fi

# 2. One node different.
VMR_FLEET_TEST_NODE_ENV="n2:HSA_FLEET_TEST_FACT=odd,VMR_FORCE_FAIL=repro_host_shm.atomics" \
  "$repo/scripts/fleet" run -N 3 --out "$work/odd" >"$work/odd.out" 2>&1
rc=$?; cat "$work/odd.out"
[ $rc = 1 ] || fail "a node that differs: exit $rc, want 1"
grep -q '^  repro_host_shm.atomics: FAIL on n2 (majority PASS); set apart by ' "$work/odd.out" || fail "the console does not name n2"
grep -q '^### repro_host_shm.atomics: FAIL on n2 (majority PASS)$' "$work/odd/fleet.md" || fail "fleet.md does not name n2"
grep -q '`HSA_FLEET_TEST_FACT = odd` on all of them; differs on 2 of 2 other node(s)' "$work/odd/fleet.md" ||
  fail "the injected fact is not named"
grep -q '"nodes":\["n2"\]' "$work/odd/fleet.json" || fail "fleet.json does not name n2"
# A setting on one node that changes no verdict is listed apart.
VMR_FLEET_TEST_NODE_ENV="n3:HSA_HARMLESS_SETTING=1" "$repo/scripts/fleet" run -N 3 --out "$work/apart" >"$work/apart.out" 2>&1 ||
  fail "a harmless setting on n3 made a difference: $(cat "$work/apart.out")"
grep -A5 '^## Facts that differ with no verdict change' "$work/apart/fleet.md" | grep -q '`HSA_HARMLESS_SETTING`: n1: (not reported); n2: (not reported); n3: 1' ||
  fail "the harmless setting is not listed apart: $(sed -n '/## Facts/,$p' "$work/apart/fleet.md")"

# 3. A node killed mid-run: its triage and slurmd die; it did not answer, the others did.
# One pair a node (the hang self-test takes its 8 s deadline): the others' triages finish before Slurm revokes the
# allocation for the dead node (with the diagonal and both directions they did not).
"$repo/scripts/fleet" run -N 3 --out "$work/killed" -- --include-crash --pairs 0:1 -- --timeout 8 >"$work/killed.out" 2>&1 &
fleet=$!
for _ in $(seq 600); do [ -d "$work/killed/n3" ] && break; sleep 0.1; done  # (up to 60 s: CI's 2 cores are busy)
sleep 1
bash "$repo/tests/slurm/cluster.sh" kill "$cluster" n3
for pid in $(grep -ls 'SLURMD_NODENAME=n3' /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3); do
  grep -qs "SLURM_CONF=$cluster/slurm.conf" "/proc/$pid/environ" && kill -9 "$pid" 2>/dev/null  # this cluster's n3 only
done
wait $fleet; rc=$?
cat "$work/killed.out"
[ $rc = 1 ] || fail "a node killed mid-run: exit $rc, want 1"
grep -q '^  node n3 did not answer: ' "$work/killed.out" || fail "n3 is not reported as not answering"
grep -Eq '^\| n3 \| did not answer \|' "$work/killed/fleet.md" || fail "fleet.md does not show n3 as not answering"
grep -Eq '^\| n1 \|.* PASS 1/1 \|' "$work/killed/fleet.md" || fail "n1's results are missing"

# 4. collect: folders gathered any other way; two carry the same node name, so their folders name them.
mkdir -p "$work/gathered"
cp -r "$work/odd/n1" "$work/gathered/rack1-a"
cp -r "$work/odd/n1" "$work/gathered/rack1-b"
cp -r "$work/odd/n2" "$work/gathered/n2"
"$repo/scripts/fleet" collect --out "$work/collected" "$work/gathered"/* >"$work/collect.out" 2>&1
rc=$?; cat "$work/collect.out"
[ $rc = 1 ] && grep -q '^| rack1-a |' "$work/collected/fleet.md" && grep -q '^| rack1-b |' "$work/collected/fleet.md" &&
  grep -q 'FAIL on n2' "$work/collect.out" || fail "collect: exit $rc; names or difference wrong"

bash "$repo/tests/slurm/cluster.sh" down "$cluster"
trap - EXIT
left=$(pgrep -f "$cluster" | wc -l)
[ "$left" = 0 ] || fail "$left process(es) of the cluster left running"
echo "fleet against Slurm: all checks passed in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
