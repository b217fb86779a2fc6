#!/usr/bin/env bash
# Every reader of the tools takes only what a record, a summary, a table or a list can be (tools/input_file.h): a
# FIFO, a device, a symlink out of the folder being read and a file over the size cap are refused in one line
# naming the file and why, quickly, and a refused file in a results or node folder is an input problem, never a
# verdict on the node. The same node folder named twice is refused by the fleet report.
#   1. check_expected --record, --table, --cases, --summary, --health-line --summary, --plan, fleet_report --nodes,
#      triage_plan's rounds.txt
#      on a FIFO;
#   2. --record through a symlink to /dev/zero, and over the cap;
#   3. a results folder holding a FIFO, a symlink out of it, a symlink inside it: INPUT problems, no row, and the
#      health line says the node was not judged;
#   4. fleet_report over node folders holding a FIFO zz.json and a symlink to /dev/zero (which their triage's
#      comparison refused: its summary says so);
#   5. fleet_report given one folder twice: d/./n3, d/n3/, a symlink to d/n3.
# Each command runs under `timeout` and a memory limit: a reader that blocks or reads without end fails this test
# rather than hanging it or the machine.
#   usage: input_files.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
check=$build/bin/check_expected
table=$repo/expected/verdicts.md

# run NAME COMMAND...: rc, WORK/NAME.out (stdout) and WORK/NAME.err; 10 s and 1 GiB of memory at most.
run() {
  local name=$1
  shift
  (ulimit -v 1048576 && exec timeout -k 2 10 "$@") >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
}
# want NAME RC TEXT: the command NAME ended with RC and said TEXT (stdout or stderr).
want() {
  [ "$rc" = "$2" ] || fail "$1: exit $rc, want $2: $(cat "$work/$1.out" "$work/$1.err")"
  cat "$work/$1.out" "$work/$1.err" | grep -qF -- "$3" || fail "$1 does not say '$3': $(cat "$work/$1.out" "$work/$1.err")"
}
one_line() { [ "$(wc -l <"$work/$1.err")" = 1 ] || fail "$1: want one line on stderr: $(cat "$work/$1.err")"; }

# record FILE NODE CASE VERDICT: one run record of repro_host_shm, as a triage leaves it.
record() {
  printf '%s\n' "{\"schema\":\"vmem-repro-run/1\",\"binary\":\"repro_host_shm\",\"backend\":\"host\",\
\"verdict\":\"$4\",\"environment\":{\"node\":\"$2\",\"host\":\"$2\",\"kernel\":\"Linux 6.1\"},\"cases\":[{\"case\":\"$3\",\
\"verdict\":\"$4\",\"detail\":\"d\",\"metrics\":{},\"ranks\":[{\"info\":{},\"stderr_tail\":[]}]}]}" >"$1"
}
# summary FOLDER: its summary.json as its triage writes it (check_expected's comparison of its records).
summary() {
  "$check" --table "$table" --results "$1" --summary-json "$1/summary.json" >"$work/check.out" 2>&1
  [ $? -le 1 ] || fail "check_expected over $1: $(cat "$work/check.out")"
}

# 1. A FIFO where a file is named: refused at once, one line naming it, each mode's exit code for an input it
#    cannot read.
mkfifo "$work/fifo.json"
fifo_says="cannot read $work/fifo.json: it is a FIFO, not a regular file"
run record "$check" --record "$work/fifo.json"
want record 99 "check_expected: $fifo_says"
one_line record
run table "$check" --table "$work/fifo.json" --results "$work"
want table 2 "$fifo_says"
run cases "$check" --cases "$work/fifo.json"
want cases 99 "check_expected: $fifo_says"
run report "$check" --report-md "$work/r.md" --summary "$work/fifo.json" --launches 1 --took 1 --modelled 1 \
  --concurrency c
want report 99 "check_expected: cannot read --summary $work/fifo.json: it is a FIFO, not a regular file"
[ ! -e "$work/r.md" ] || fail "--summary a FIFO: a report was written"
run health "$check" --health-line --summary "$work/fifo.json" --exit 0
want health 99 "$fifo_says"
mkdir -p "$work/empty"
run plan "$check" --table "$table" --results "$work/empty" --plan "$work/fifo.json"
want plan 99 "cannot read --plan $work/fifo.json: it is a FIFO, not a regular file"
run nodes "$build/bin/fleet_report" --out "$work/empty" --nodes "$work/fifo.json" "$work/empty"
want nodes 99 "fleet_report: cannot read the node list $work/fifo.json: it is a FIFO, not a regular file"
one_line nodes
run rounds "$build/bin/triage_plan" --cases-run-on "$work/fifo.json"
want rounds 99 "triage_plan: $fifo_says"
one_line rounds

# 2. A record that is a symlink to /dev/zero (endless), and one over the 64 MiB cap (sparse: no disk used).
ln -s /dev/zero "$work/zero.json"
run zero "$check" --record "$work/zero.json"
want zero 99 "cannot read $work/zero.json: it is a character device, not a regular file"
truncate -s $((64 * 1024 * 1024 + 1)) "$work/huge.json"
run huge "$check" --record "$work/huge.json"
want huge 99 "cannot read $work/huge.json: it holds more than the 64 MiB an input file may"
one_line huge

# 3. A results folder: a good record, a FIFO zz.json, a symlink to a FAIL record outside the folder, and a symlink
#    to a record in a subfolder of it (kept: inside the folder). The refused files are INPUT problems (exit 1 as
#    every problem), in no row; the health line of its summary says the node was not judged, never drains it.
mkdir -p "$work/results/kept" "$work/outside"
record "$work/results/repro_host_shm.read.json" n1 read PASS
record "$work/results/kept/atomics" n1 atomics PASS
ln -s kept/atomics "$work/results/repro_host_shm.atomics.json"
record "$work/outside/fail.json" n1 read FAIL
ln -s ../outside/fail.json "$work/results/repro_host_shm.read.1-0.json"
run compare "$check" --table "$table" --results "$work/results"
want compare 1 "INPUT: cannot read $work/results/repro_host_shm.read.1-0.json: it is a symlink to $work/outside/fail.json, outside the folder $work/results"
grep -qE '^repro_host_shm\.atomics +- +PASS +PASS +OK' "$work/compare.out" ||
  fail "the record behind a symlink inside the folder was not read: $(cat "$work/compare.out")"
mkfifo "$work/results/zz.json"
run compare "$check" --table "$table" --results "$work/results" --summary-json "$work/summary.json"
want compare 1 "INPUT: cannot read $work/results/zz.json: it is a FIFO, not a regular file"
! grep -qE '^(zz\.json|repro_host_shm\.read\.1-0\.json|repro_host_shm\.read +1-0) ' "$work/compare.out" ||
  fail "a refused file made a row: $(cat "$work/compare.out")"
run health-input "$check" --health-line --summary "$work/summary.json" --exit 1
want health-input 99 "vmem-repro: the node was not judged, a suite problem (+1 more): INPUT: cannot read"

# 4. Node folders: n1 holds a FIFO zz.json and a symlink to /dev/zero beside its records, n2 is healthy. The
#    report is written without them, names both as input problems (not n1's), and exits 99; n1's cells stand.
for n in n1 n2; do
  mkdir -p "$work/nodes/$n"
  record "$work/nodes/$n/repro_host_shm.read.json" "$n" read PASS
done
mkfifo "$work/nodes/n1/zz.json"
ln -s /dev/zero "$work/nodes/n1/zero.json"
# (its triage's comparison refused them: its summary's INPUT: lines, which the report reads)
for n in n1 n2; do summary "$work/nodes/$n"; done
mkdir -p "$work/fleet"
run fleet "$build/bin/fleet_report" --out "$work/fleet" --junit "$work/fleet.xml" "$work/nodes/n1" \
  "$work/nodes/n2"
want fleet 99 "fleet: 2 node(s), 0 did not answer, 0 difference(s), 0 problem(s), 2 file(s) refused"
want fleet 99 "  input problem (not node n1's): cannot read $work/nodes/n1/zz.json: it is a FIFO, not a regular file"
want fleet 99 "  input problem (not node n1's): cannot read $work/nodes/n1/zero.json: it is a symlink to /dev/zero, outside the folder $work/nodes/n1"
grep -qF "| n1 | PASS 1/1 |" "$work/fleet/fleet.md" || fail "n1's cell: $(cat "$work/fleet/fleet.md")"
grep -qF "## Files refused" "$work/fleet/fleet.md" || fail "fleet.md names no refused file: $(cat "$work/fleet/fleet.md")"
grep -qF "<error message=\"cannot read $work/nodes/n1/zz.json" "$work/fleet.xml" ||
  fail "the JUnit file has no error for the refused file: $(cat "$work/fleet.xml")"
! grep -q "<failure" "$work/fleet.xml" || fail "a refused file is a failure of its node: $(cat "$work/fleet.xml")"

# 5. One node folder named twice, three ways: n3 counted twice would outvote n2 ("PASS on n2 (majority FAIL)").
mkdir -p "$work/twice/n2" "$work/twice/n3"
record "$work/twice/n2/repro_host_shm.read.json" n2 read PASS
record "$work/twice/n3/repro_host_shm.read.json" n3 read FAIL
summary "$work/twice/n2"
summary "$work/twice/n3"
ln -s n3 "$work/twice/n3-link"
for again in "$work/twice/./n3" "$work/twice/n3/" "$work/twice/n3-link"; do
  run twice "$build/bin/fleet_report" --out "$work/fleet" "$work/twice/n2" "$work/twice/n3" "$again"
  want twice 2 "fleet_report: the folder $again is given twice (it is $work/twice/n3 again)"
  one_line twice
done

echo "input files: every reader refuses what is not a file it can take, naming it"
