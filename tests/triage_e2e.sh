#!/usr/bin/env bash
# scripts/triage end to end, without a GPU: VMR_FAKE_GPUS makes the host baseline stand for a GPU backend, so the
# pair plans (the diagonal, every ordered pair, --ring, --pairs, --mesh), case filtering, matrices, results folders
# and exit codes are checked against what the runs left on disk.   usage: triage_e2e.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$repo/tests/prom_check.sh"  # check_metrics: each --prom textfile passes promtool check metrics
triage() { BUILD_DIR=$build "$repo/scripts/triage" "$@"; }
# The same plans on a GPU node as on CI: set and empty, each runtime's visibility variable hides its GPUs, so the
# GPU binaries run once each, to say why they skip (a real GPU would add pairs and change every count below).
export CUDA_VISIBLE_DEVICES= HIP_VISIBLE_DEVICES= ROCR_VISIBLE_DEVICES=

# The exporter-importer pairs ("0-1", the same-GPU "0-0") on which a host case ran, sorted: one launch per pair runs
# all its cases, each reported on a RESULT line of the pair's log.
pairs_of() {
  local f
  for f in "$1"/repro_host_shm.[0-9]*-[0-9]*.log; do
    [[ "$(basename "$f")" =~ ^repro_host_shm\.[0-9]+-[0-9]+\.log$ ]] || continue  # a pair, not a mesh run
    grep -Eq "^(RESULT|VERDICT): [A-Z]+ repro_host_shm\.$2 " "$f" && basename "$f" .log | sed 's/^repro_host_shm\.//'
  done | sort
}

# Every ordered pair of 3 fake GPUs and each GPU's same-GPU pair (the diagonal), each exactly once per safe case;
# known-crash and self-test cases left out. The diagonal is one round of its own, before the pairs.
VMR_FAKE_GPUS=3 RESULTS_DIR=$work/all triage >"$work/all.out" 2>&1
rc=$?; [ $rc = 0 ] || fail "3 fake GPUs: exit $rc"; cat "$work/all.out"
for c in read atomics; do
  got=$(pairs_of "$work/all" $c | tr '\n' ' ')
  [ "$got" = "0-0 0-1 0-2 1-0 1-1 1-2 2-0 2-1 2-2 " ] ||
    fail "$c ran on pairs '$got', want every ordered pair of 3 and the diagonal once"
done
[ "$(awk '$3 == "repro_host_shm" && $2 == 0 { print $4 }' "$work/all/rounds.txt" | paste -sd' ')" = "0,0 1,1 2,2" ] ||
  fail "the diagonal is not round 0: $(cat "$work/all/rounds.txt")"
awk '$3 == "repro_host_shm" && $2 != 0 { split($4, g, ","); if (g[1] == g[2]) bad = 1 } END { exit bad }' "$work/all/rounds.txt" ||
  fail "a same-GPU pair outside round 0: $(cat "$work/all/rounds.txt")"
grep -qx 'backend host: 3 GPUs, the diagonal (3 same-GPU pairs, one round) and 6 pair(s) (all) in 6 round(s) x 2 case(s) of repro_host_shm' \
  "$work/all.out" || fail "3 GPUs: the note is $(grep '^backend host' "$work/all.out")"
# The matrix's diagonal holds the same-GPU runs (it read "-" before they ran).
grep -E '^  GPU 1 ' "$work/all.out" | head -n 1 | awk '{ exit !($3 == "PASS" && $6 == "PASS" && $9 == "PASS") }' ||
  fail "the read matrix's row of GPU 1 does not show 3 PASS cells: $(grep -E '^  GPU 1 ' "$work/all.out" | head -n 1)"
tail -n 1 "$work/all.out" | grep -q '^triage: ALL AS EXPECTED (exit 0): 18 OK, 0 CHANGED, [0-9]* not run, 0 table problems; [0-9]* launches in ' ||
  fail "3 GPUs: the last line is $(tail -n 1 "$work/all.out")"
for c in fault hang peer-exit; do
  [ -z "$(pairs_of "$work/all" $c)" ] || fail "$c is a self-test/known-crash case: a plain triage must not run it"
done
grep -qE '^repro_host_shm[.]read( |$)' "$work/all/plan.txt" || fail "plan.txt lacks repro_host_shm.read"
grep -q 'repro_host_shm.fault' "$work/all/plan.txt" && fail "plan.txt lists the fault self-test"
grep -Eq '^18 OK, 0 CHANGED, [0-9]+ not run, 0 table problems$' "$work/all.out" || fail "summary line"
grep -q '"changed":0' "$work/all/summary.json" || fail "summary.json does not say 0 changed"
grep -q '| rank 0 \\ rank 1 | GPU 0 | GPU 1 | GPU 2 |' "$work/all/report.md" || fail "report.md has no 3-GPU matrix"
grep -q '^| GPU 2 | PASS .* | PASS .* | PASS [^|]* |$' "$work/all/report.md" || fail "report.md's matrix has no diagonal"
[ "$(ls "$work/all"/repro_host_shm.*-*.json | wc -l)" = 9 ] || fail "want one launch per pair (9), all cases in it"
# A finished triage takes its INCOMPLETE marker away (bug-report passes over folders that keep one).
[ ! -e "$work/all/INCOMPLETE" ] || fail "a finished triage left INCOMPLETE"

# 1 GPU: its same-GPU pair is the whole triage (exporter and importer processes on GPU 0): one launch with
# --devices 0,0, a 1x1 matrix in report.md (not on the console, where one GPU that passed says nothing the table did
# not), exit 0 with the verdicts, the note, no INCOMPLETE.
VMR_FAKE_GPUS=1 RESULTS_DIR=$work/one triage >"$work/one.out" 2>&1
rc=$?; [ $rc = 0 ] || { cat "$work/one.out"; fail "1 fake GPU: exit $rc, want 0"; }
grep -qx 'backend host: 1 GPU: its same-GPU pair 0:0 (exporter and importer processes on GPU 0) is the whole triage, 2 case(s) of repro_host_shm' \
  "$work/one.out" || fail "1 fake GPU: the note is $(grep '^backend host' "$work/one.out")"
[ "$(ls "$work/one" | grep '^repro_host_shm\..*json$')" = repro_host_shm.0-0.json ] ||
  fail "1 fake GPU: want the one launch 0-0, got $(ls "$work/one" | tr '\n' ' ')"
grep -q '"devices":\[0,0\]' "$work/one/repro_host_shm.0-0.json" || fail "1 fake GPU: the record's devices are not 0,0"
grep -q '^| GPU 0 | PASS [^|]* |$' "$work/one/report.md" ||
  fail "1 fake GPU: report.md has no 1x1 matrix with the diagonal: $(grep '^| GPU 0' "$work/one/report.md")"
! grep -q '^repro_host_shm.atomics (rows' "$work/one.out" || fail "1 fake GPU: a 1x1 matrix of PASS on the console"
grep -Eq '^2 OK, 0 CHANGED' "$work/one.out" || fail "1 fake GPU: $(grep CHANGED, "$work/one.out")"
[ ! -e "$work/one/INCOMPLETE" ] || fail "1 fake GPU: INCOMPLETE left"

# Nothing could run: a backend that shows no GPU runs once to say why (every case SKIPs on GPU binaries; the host
# stand-in runs without devices), and the triage says NOTHING RAN with exit 77, never "all as expected".
VMR_FAKE_GPUS=0 RESULTS_DIR=$work/zero triage --prom "$work/zero.prom" >"$work/zero.out" 2>&1
rc=$?; [ $rc = 77 ] || { cat "$work/zero.out"; fail "0 fake GPUs: exit $rc, want 77"; }
grep -qx 'backend host: no GPU visible; repro_host_shm ran its 2 case(s) once to show why' "$work/zero.out" ||
  fail "0 fake GPUs: the note is $(grep '^backend host' "$work/zero.out")"
tail -n 1 "$work/zero.out" | grep -q '^triage: NOTHING RAN (exit 77): no GPU case ran to a verdict here' ||
  fail "0 fake GPUs: the last line is $(tail -n 1 "$work/zero.out")"
[ ! -e "$work/zero/INCOMPLETE" ] && [ -f "$work/zero/report.md" ] || fail "0 fake GPUs: no report"
grep -qx 'vmem_repro_triage_outcome{outcome="nothing_ran"} 1' "$work/zero.prom" || fail "--prom where nothing ran: $(grep outcome "$work/zero.prom")"
check_metrics "$work/zero.prom"

# Greedy rounds (--ring, --pairs) never put one GPU in two runs of a round either.
VMR_FAKE_GPUS=4 RESULTS_DIR=$work/ring4 triage --ring >"$work/ring4.out" 2>&1 || fail "--ring on 4 GPUs: exit $?"
awk '$3 == "repro_host_shm" && $4 ~ /,/ { split($4, g, ","); if (seen[$2, g[1]]++ || (g[2] != g[1] && seen[$2, g[2]]++)) bad = 1; n++ }
     END { exit bad || n != 8 }' "$work/ring4/rounds.txt" || fail "--ring rounds reuse a GPU: $(cat "$work/ring4/rounds.txt")"

# --ring: the diagonal and one pass around the ring.
VMR_FAKE_GPUS=3 RESULTS_DIR=$work/ring triage --ring >"$work/ring.out" 2>&1 || fail "--ring: exit $?"
[ "$(pairs_of "$work/ring" read | tr '\n' ' ')" = "0-0 0-1 1-1 1-2 2-0 2-2 " ] || fail "--ring pairs: $(pairs_of "$work/ring" read)"

# --pairs: exactly those, and --include-crash adds the self-tests, whose expected verdicts still read OK.
# The deadline covers every binary's start: 3 s was too short for a CUDA driver that finds no GPU on a busy node.
VMR_FAKE_GPUS=3 RESULTS_DIR=$work/pairs triage --include-crash --pairs 2:0,1:2 -- --timeout 8 >"$work/pairs.out" 2>&1
rc=$?; [ $rc = 0 ] || { cat "$work/pairs.out"; fail "--pairs --include-crash: exit $rc"; }
for c in read atomics fault hang peer-exit; do
  [ "$(pairs_of "$work/pairs" $c | tr '\n' ' ')" = "1-2 2-0 " ] || fail "--pairs: $c ran on '$(pairs_of "$work/pairs" $c)'"
done
grep -Eq '^10 OK, 0 CHANGED' "$work/pairs.out" || fail "--include-crash summary: $(grep CHANGED "$work/pairs.out")"
# --pairs takes same-GPU pairs too (a:a), and only them when asked.
VMR_FAKE_GPUS=3 RESULTS_DIR=$work/diag triage --pairs 2:2,0:0,0:1 >"$work/diag.out" 2>&1 || fail "--pairs 2:2,0:0,0:1: exit $?"
[ "$(pairs_of "$work/diag" read | tr '\n' ' ')" = "0-0 0-1 2-2 " ] || fail "--pairs 2:2,0:0,0:1 ran read on '$(pairs_of "$work/diag" read)'"

# A verdict that differs from expected/ is exit 1 naming the case (VMR_FORCE_FAIL is the README's test aid).
VMR_FORCE_FAIL=repro_host_shm.atomics VMR_FAKE_GPUS=2 RESULTS_DIR=$work/changed triage --junit "$work/changed.xml" \
  --prom "$work/changed.prom" >"$work/changed.out" 2>&1
rc=$?; [ $rc = 1 ] || fail "a forced FAIL: exit $rc, want 1"
grep -Eq '^repro_host_shm\.atomics +0-1 +PASS +FAIL +CHANGED' "$work/changed.out" || fail "no CHANGED row for atomics 0-1"
grep -Eq '^repro_host_shm\.atomics +1-1 +PASS +FAIL +CHANGED' "$work/changed.out" || fail "no CHANGED row for atomics 1-1"
grep -Eq '^4 OK, 4 CHANGED' "$work/changed.out" || fail "want 4 OK, 4 CHANGED: $(grep CHANGED, "$work/changed.out")"
tail -n 1 "$work/changed.out" | grep -q '^triage: CHANGED (exit 1): 4 OK, 4 CHANGED' ||
  fail "a forced FAIL: the last line is $(tail -n 1 "$work/changed.out")"
# --prom: the triage's textfile carries its exit code, its time and each pair's verdict (tests/prom_textfile.sh has
# the real node_exporter read such a file).
grep -qx 'vmem_repro_triage_exit_code 1' "$work/changed.prom" &&
  grep -qx 'vmem_repro_triage_outcome{outcome="changed"} 1' "$work/changed.prom" &&
  grep -Eq '^vmem_repro_triage_duration_seconds [0-9.]*[1-9]' "$work/changed.prom" &&
  grep -qF 'vmem_repro_case_verdict{case="repro_host_shm.atomics",binary="repro_host_shm",devices="1-1",exporter="1",importer="1",verdict="FAIL",expected="PASS"} 1' "$work/changed.prom" ||
  fail "--prom: $(grep -E 'triage|atomics.*1-1' "$work/changed.prom")"
check_metrics "$work/changed.prom"
if command -v python3 >/dev/null; then  # JUnit that a JUnit reader takes: the two CHANGED runs are its failures
  python3 - "$work/changed.xml" <<'PY' || fail "the triage's JUnit file"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites" and root.find("testsuite") is not None
failed = sorted(c.get("name") for c in root.iter("testcase") if c.find("failure") is not None)
assert failed == ["atomics[0-0]", "atomics[0-1]", "atomics[1-0]", "atomics[1-1]"], failed
assert int(root.get("failures")) == 4 and int(root.get("skipped")) > 0
PY
fi

# No fake GPUs: the host cases run once each, without --devices; no GPU case ran here, so exit 77.
RESULTS_DIR=$work/plain triage >"$work/plain.out" 2>&1
rc=$?; [ $rc = 77 ] || { tail -n 3 "$work/plain.out"; fail "plain triage without a GPU: exit $rc, want 77"; }
[ -f "$work/plain/repro_host_shm.json" ] || fail "plain triage: no repro_host_shm.json (one launch, no devices)"

# More than 8 GPUs: every ordered pair would be n*(n-1) runs, so one pass around the ring instead, said so.
VMR_FAKE_GPUS=9 RESULTS_DIR=$work/nine triage >"$work/nine.out" 2>&1 || fail "9 fake GPUs: exit $?"
[ "$(pairs_of "$work/nine" read | awk -F- '$1 != $2' | tr '\n' ' ')" = "0-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-0 " ] &&
  [ "$(pairs_of "$work/nine" read | awk -F- '$1 == $2' | wc -l)" = 9 ] ||
  fail "9 GPUs: read ran on $(pairs_of "$work/nine" read | tr '\n' ' '), want the diagonal and the ring"
grep -qx 'backend host: 9 GPUs is more than 8: one pass around the ring instead of every ordered pair' \
  "$work/nine.out" || fail "9 GPUs: the ring is not said"

# 8 GPUs: 56 ordered pairs, each exactly once, in 14 rounds of 4 in which no GPU is in two runs; a complete matrix;
# the plan's modelled time printed.
VMR_FAKE_GPUS=8 RESULTS_DIR=$work/eight triage >"$work/eight.out" 2>&1 || fail "8 fake GPUs: exit $?"
[ "$(pairs_of "$work/eight" read | wc -l)" = 64 ] && [ "$(pairs_of "$work/eight" read | sort -u | wc -l)" = 64 ] ||
  fail "8 GPUs: $(pairs_of "$work/eight" read | wc -l) read runs, want each of 56 ordered pairs and 8 same-GPU pairs once"
awk '$3 == "repro_host_shm" && $4 ~ /,/ { split($4, g, ","); if (seen[$2, g[1]]++ || (g[2] != g[1] && seen[$2, g[2]]++)) bad = 1; n[$2]++ }
     END { rounds = 0; for (r in n) { rounds++; if (n[r] != (r == 0 ? 8 : 4)) bad = 1 } exit bad || rounds != 15 }' "$work/eight/rounds.txt" ||
  fail "8 GPUs: the rounds reuse a GPU or are not the diagonal's round of 8 and 14 rounds of 4: $(cat "$work/eight/rounds.txt")"
grep -Eq '^plan: [0-9]+ launch\(es\), .*; modelled time [0-9.]+ s$' "$work/eight.out" || fail "no modelled time"
# The health check's 8-GPU model: 5 pair launches' time per GPU binary (the host stand-in's pair launches, > 0).
grep -Eq '^model: --mesh on 8 GPUs \(the health check\), every case passing: [0-9.]*[1-9][0-9.]* s ' "$work/eight.out" ||
  fail "no 8-GPU health-check model: $(grep '^model' "$work/eight.out")"
grep -A9 'repro_host_shm.atomics (rows' "$work/eight.out" | grep -Eq 'not run| - ' && fail "8 GPUs: the matrix has holes"
grep -Eq '^128 OK, 0 CHANGED' "$work/eight.out" || fail "8 GPUs: $(grep CHANGED, "$work/eight.out")"

# --mesh: one run with a rank on every GPU and the diagonal; pair runs only for what did not pass, which then name
# the pairs.
VMR_FAKE_GPUS=4 RESULTS_DIR=$work/mesh triage --mesh >"$work/mesh.out" 2>&1 || fail "--mesh: exit $?"
[ -f "$work/mesh/repro_host_shm.0-1-2-3.json" ] && [ "$(pairs_of "$work/mesh" read | tr '\n' ' ')" = "0-0 1-1 2-2 3-3 " ] ||
  fail "--mesh ran pairs other than the diagonal: $(pairs_of "$work/mesh" read | tr '\n' ' ')"
grep -q 'PASS [^ ]* GB/s (mesh)' "$work/mesh.out" || fail "--mesh: the matrix is not filled from the mesh run"
grep -qx 'backend repro_host_shm: --mesh on 4 GPUs: one mesh run and the diagonal (4 same-GPU pairs, one round) x 2 case(s)' \
  "$work/mesh.out" || fail "--mesh: the plan's note is $(grep 'mesh' "$work/mesh.out" | grep '^backend')"
# A case that fails the mesh run gets its pair runs, and the plan and report.md say why they ran.
VMR_FORCE_FAIL=repro_host_shm.atomics VMR_FAKE_GPUS=3 RESULTS_DIR=$work/meshfail triage --mesh >"$work/meshfail.out" 2>&1
[ $? = 1 ] && [ "$(pairs_of "$work/meshfail" atomics | tr '\n' ' ')" = "0-0 0-1 0-2 1-0 1-1 1-2 2-0 2-1 2-2 " ] &&
  [ "$(pairs_of "$work/meshfail" read | tr '\n' ' ')" = "0-0 1-1 2-2 " ] ||
  fail "--mesh with atomics failing: pairs $(pairs_of "$work/meshfail" atomics)"
said='repro_host_shm: the mesh run on 3 GPUs did not pass atomics: 6 pair runs name the pairs'
grep -qxF "backend $said" "$work/meshfail.out" && grep -qxF -- "- backend $said" "$work/meshfail/report.md" ||
  fail "--mesh with atomics failing: the pair runs are not said ($(grep 'mesh run' "$work/meshfail.out"))"
grep -q 'every case passed the mesh run' "$work/meshfail.out" && fail "--mesh with atomics failing: 'every case passed'"
[ -z "$(awk '$3 == "repro_host_shm" { print $4 }' "$work/meshfail/rounds.txt" | sort | uniq -d)" ] ||
  fail "--mesh with atomics failing: a launch planned twice: $(cat "$work/meshfail/rounds.txt")"
# Every command the bug report gives to reproduce a failure runs as printed, in the checkout, whatever BUILD_DIR
# is (it once always said build/bin/): the mesh's --devices 0,1,2 among them, each reproduces the forced FAIL (exit
# 1), none is a usage error (exit 2); the build and triage lines name the same BUILD_DIR.
BUILD_DIR=$build "$repo/scripts/bug-report" "$work/meshfail" >/dev/null 2>"$work/bug.err" || fail "bug-report: $(cat "$work/bug.err")"
shown=${build#"$repo"/}
sed -n '/^#### The full suite/,/^```$/p' "$work/meshfail/bug-report.md" >"$work/suite"
grep "/bin/repro_host_shm " "$work/suite" >"$work/commands"
grep -qx "$shown/bin/repro_host_shm --case atomics --devices 0,1,2" "$work/commands" ||
  fail "the bug report gives no command for the mesh run in $shown/bin: $(cat "$work/suite")"
[ "$(wc -l <"$work/commands")" = 10 ] || fail "want 10 commands (the mesh run, 6 pairs, 3 same-GPU pairs): $(cat "$work/commands")"
env_shown=$([ "$shown" = build ] || printf 'BUILD_DIR=%q ' "$shown")
grep -q "^${env_shown}./scripts/test " "$work/suite" && grep -q "^${env_shown}./scripts/triage " "$work/suite" ||
  fail "the build and triage lines do not name BUILD_DIR $shown: $(cat "$work/suite")"
while read -r command; do
  (cd "$repo" && VMR_FORCE_FAIL=repro_host_shm.atomics bash -c "$command") >"$work/command.out" 2>&1 </dev/null
  rc=$?; [ $rc = 1 ] || fail "'$command' exits $rc, want 1 (the FAIL it reproduces): $(tail -n 2 "$work/command.out")"
done <"$work/commands"

# On 2 GPUs the mesh is the pair itself: --mesh runs both pairs, each way, the diagonal, and no mesh launch.
VMR_FAKE_GPUS=2 RESULTS_DIR=$work/mesh2 triage --mesh >"$work/mesh2.out" 2>&1 || fail "--mesh on 2 GPUs: exit $?"
[ "$(pairs_of "$work/mesh2" read | tr '\n' ' ')" = "0-0 0-1 1-0 1-1 " ] ||
  fail "--mesh on 2 GPUs: read ran on '$(pairs_of "$work/mesh2" read | tr '\n' ' ')', want 0-0, 0-1, 1-0 and 1-1"

# A stand-in build folder: the real binaries, but repro_host_shm is a script that runs the real one, unless told
#   VMR_STANDIN_KILL=DEVICES  a run with --devices DEVICES dies by SIGKILL before it writes anything (all: every run
#                             with --devices, after 0.2 s);
#   VMR_STANDIN_TIMES=FILE    each run with --devices appends "<ns> 1" when it starts and "<ns> -1" when it ends,
#                             and lasts at least 0.5 s (so runs started together overlap even on a loaded machine);
#   VMR_STANDIN_EAGER=1       --list hangs unless HIP_ENABLE_DEFERRED_LOADING=1, as a HIP binary whose runtime starts
#                             while it loads can.
#   VMR_STANDIN_LIST=crash    --list aborts (SIGABRT) after a word on stderr; hang: --list hangs (sleep 300);
#                             full: --list lists, then makes the triage's file of its chosen cases /dev/full;
#   VMR_STANDIN_LISTED=FILE   each --list appends a line to FILE.
mkdir -p "$work/standin/bin"
for f in "$build/bin"/*; do ln -s "$f" "$work/standin/bin/"; done
rm "$work/standin/bin/repro_host_shm"
cat >"$work/standin/bin/repro_host_shm" <<STANDIN
#!/usr/bin/env bash
devices=- prev=
for a in "\$@"; do [ "\$prev" != --devices ] || devices=\$a; prev=\$a; done
if [ "\$devices" != - ] && [ "\$devices" = "\${VMR_STANDIN_KILL-}" ]; then kill -KILL \$\$; fi
if [ "\$devices" != - ] && [ all = "\${VMR_STANDIN_KILL-}" ]; then sleep 0.2; kill -KILL \$\$; fi
[ "\${1-}" != --list ] || [ -z "\${VMR_STANDIN_EAGER-}" ] || [ "\${HIP_ENABLE_DEFERRED_LOADING-}" = 1 ] || exec sleep 300
[ "\${1-}" != --list ] || [ -z "\${VMR_STANDIN_LISTED-}" ] || echo listed >>"\$VMR_STANDIN_LISTED"
[ "\${1-}" != --list ] || [ "\${VMR_STANDIN_LIST-}" != crash ] || { echo "repro_host_shm: pure virtual method called" >&2; kill -ABRT \$\$; }
[ "\${1-}" != --list ] || [ "\${VMR_STANDIN_LIST-}" != hang ] || exec sleep 300
if [ "\${1-}" = --list ] && [ "\${VMR_STANDIN_LIST-}" = full ]; then
  "$build/bin/repro_host_shm" "\$@" && ln -s /dev/full "\$(dirname "\$3")/.repro_host_shm.cases"; exit
fi
if [ "\$devices" != - ] && [ -n "\${VMR_STANDIN_TIMES-}" ]; then
  echo "\$(date +%s%N) 1" >>"\$VMR_STANDIN_TIMES"
  sleep 0.5
  "$build/bin/repro_host_shm" "\$@"; rc=\$?
  echo "\$(date +%s%N) -1" >>"\$VMR_STANDIN_TIMES"
  exit \$rc
fi
exec "$build/bin/repro_host_shm" "\$@"
STANDIN
chmod +x "$work/standin/bin/repro_host_shm"
standin() { BUILD_DIR=$work/standin "$repo/scripts/triage" "$@"; }
# The most runs of the stand-in at once, from its FILE of starts and ends.
most_at_once() { sort -n "$1" | awk '{ now += $2; if (now > most) most = now } END { print most + 0 }'; }

# --serial and --jobs: the same plan, fewer at once; by default a whole round at once (the diagonal's 4 same-GPU
# pairs of 4 GPUs, then 2 pairs a round).
VMR_STANDIN_TIMES=$work/serial.times VMR_FAKE_GPUS=4 RESULTS_DIR=$work/serial CUDA_DEVICE_MAX_CONNECTIONS=4 \
  standin --serial >"$work/serial.out" 2>&1 ||
  fail "--serial: exit $?"
grep -q 'one run at a time (--serial): bandwidth measured alone' "$work/serial.out" || fail "--serial is not said"
[ "$(most_at_once "$work/serial.times")" = 1 ] || fail "--serial ran $(most_at_once "$work/serial.times") runs at once"
(unset CUDA_DEVICE_MAX_CONNECTIONS
 VMR_STANDIN_TIMES=$work/round.times VMR_FAKE_GPUS=4 RESULTS_DIR=$work/round standin >"$work/round.out" 2>&1) ||
  fail "4 GPUs: exit $?"
# The runs' CUDA_DEVICE_MAX_CONNECTIONS, from their records' environment blocks: 1 where the caller left it unset
# (contexts made side by side start faster), the caller's own value where set.
connections() {
  python3 -c 'import json, sys
print(" ".join(sorted({json.load(open(f))["environment"]["variables"].get("CUDA_DEVICE_MAX_CONNECTIONS", "absent")
                       for f in sys.argv[1:]})))' "$1"/repro_host_shm.*.json
}
[ "$(connections "$work/round")" = 1 ] && [ "$(connections "$work/serial")" = 4 ] ||
  fail "CUDA_DEVICE_MAX_CONNECTIONS in the runs: '$(connections "$work/round")' unset by the caller (want 1)," \
    "'$(connections "$work/serial")' set to 4 (want 4)"
[ "$(most_at_once "$work/round.times")" = 4 ] ||
  fail "4 GPUs: at most $(most_at_once "$work/round.times") runs at once, want the diagonal round's 4"
triage --jobs 0 >"$work/bad.out" 2>&1; [ $? = 2 ] || fail "--jobs 0 accepted"

# A planned run that left no record is a problem (exit 1, named, in report.md), even where the other pairs'
# records of the same cases read OK: otherwise its cells of the matrix only read "not run".
VMR_STANDIN_KILL=1,2 VMR_FAKE_GPUS=3 RESULTS_DIR=$work/lost standin >"$work/lost.out" 2>&1
rc=$?; [ $rc = 1 ] || { cat "$work/lost.out"; fail "a pair run that left no record: exit $rc, want 1"; }
[ "$(grep '^repro_host_shm[.]read ' "$work/lost/plan.txt" | tr ' ' '\n' | sed 1d | sort | paste -sd' ')" = \
  "0-0 0-1 0-2 1-0 1-1 1-2 2-0 2-1 2-2" ] || fail "plan.txt does not name the pairs read ran on: $(grep read "$work/lost/plan.txt")"
for c in read atomics; do
  grep -qE "^repro_host_shm\.$c +1-2 .*CHANGED: the planned run on GPUs 1-2 left no record" "$work/lost.out" &&
    grep -qF "the planned run on GPUs 1-2 left no record" "$work/lost/report.md" ||
    fail "the pair run of $c without a record is not named: $(grep -i 'record' "$work/lost.out")"
done
grep -q '"changed":2' "$work/lost/summary.json" || fail "summary.json does not count the 2 lost runs as CHANGED"
# Every launch has its progress line, the one that left no record above all (set -e once ended its subshell).
# (The stand-in build holds every binary this build made: 9 host launches among the others, all numbered.)
grep -qxE '\[[0-9]+/[0-9]+\] repro_host_shm GPU 1 -> GPU 2  [0-9.]+ s  NONE \(see repro_host_shm\.1-2\.log\)' "$work/lost.out" &&
  [ "$(grep -cE '^\[[0-9]+/[0-9]+\] repro_host_shm ' "$work/lost.out")" = 9 ] ||
  fail "want 9 progress lines, the lost run's saying NONE: $(grep '^\[' "$work/lost.out")"
# Where every run dies, each still has its line and its time counts in the modelled time (it once read 0.0 s).
VMR_STANDIN_KILL=all VMR_FAKE_GPUS=2 RESULTS_DIR=$work/alllost standin >"$work/alllost.out" 2>&1
rc=$?; [ $rc = 1 ] || { cat "$work/alllost.out"; fail "every run lost: exit $rc, want 1"; }
[ "$(grep -cE '^\[[0-9]+/[0-9]+\] repro_host_shm .* NONE \(see ' "$work/alllost.out")" = 4 ] &&
  grep -Eq '^plan: [0-9]+ launch\(es\), .*; modelled time [0-9.]*[1-9][0-9.]* s$' "$work/alllost.out" ||
  fail "every run lost: want 4 progress lines saying NONE and a modelled time above 0: $(grep -E '^\[|^plan' "$work/alllost.out")"
# HIP_ENABLE_DEFERRED_LOADING=0 in the environment: triage lists as CMake does (scripts/lib/case_list.sh), with the
# runtime's loading deferred, so a binary whose runtime would start while it loads does not hang it.
HIP_ENABLE_DEFERRED_LOADING=0 VMR_STANDIN_EAGER=1 VMR_FAKE_GPUS=1 RESULTS_DIR=$work/eager timeout 60 \
  env BUILD_DIR="$work/standin" "$repo/scripts/triage" >"$work/eager.out" 2>&1
rc=$?; [ $rc = 0 ] || { tail -n 5 "$work/eager.out"; fail "HIP_ENABLE_DEFERRED_LOADING=0: exit $rc, want 0"; }
# A binary whose --list crashes: the suite's problem in one line naming it (LIST:, the lister's words), exit 99, the
# last line naming the binary, and no report, never a verdict on the node; the comparison reads the triage's lists/repro_host_shm.failed, so the binary
# is listed once.
VMR_STANDIN_LIST=crash VMR_STANDIN_LISTED=$work/listcrash.listed VMR_FAKE_GPUS=1 RESULTS_DIR=$work/listcrash standin \
  >"$work/listcrash.out" 2>&1
rc=$?
[ $rc = 99 ] &&
  grep -qxE 'LIST: .*/repro_host_shm --list --json was killed by signal 6 \(its last line: repro_host_shm: pure virtual method called\)' "$work/listcrash.out" &&
  tail -n 1 "$work/listcrash.out" | grep -q 'ERROR (exit 99): repro_host_shm could not list its cases' &&
  [ ! -e "$work/listcrash/report.md" ] &&
  [ "$(wc -l <"$work/listcrash.listed")" = 1 ] ||
  { tail -n 8 "$work/listcrash.out"; fail "a binary whose --list crashes: exit $rc (want 99 naming it), listed $(wc -l <"$work/listcrash.listed") time(s)"; }
# The chosen cases of a binary that cannot be written (a full disk): the triage's own error, 99, naming the file,
# never a plan without that binary's cases (exit 0 or 77 on what the other binaries ran).
VMR_STANDIN_LIST=full VMR_FAKE_GPUS=1 RESULTS_DIR=$work/casesfull standin >"$work/casesfull.out" 2>&1
rc=$?
[ $rc = 99 ] && tail -n 1 "$work/casesfull.out" | grep -qF "writing $work/casesfull/lists/.repro_host_shm.cases;" ||
  { tail -n 3 "$work/casesfull.out"; fail "chosen cases that cannot be written: exit $rc, want 99 naming the file"; }

# SIGTERM to the triage alone (not its group) while a binary's --list hangs (the listings run side by side in a
# process group of the triage's): the listing stops at once, not at its 60 s deadline, and nothing is left running.
mark=vmr-e2e-listhang-$$
# The processes with this mark in their environment.
marked() { grep -lsz "^VMR_E2E_MARK=$mark\$" /proc/[0-9]*/environ | cut -d/ -f3; }
listing_hangs() { for p in $(marked); do tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null; echo; done | grep -qx 'sleep 300 '; }
VMR_E2E_MARK=$mark VMR_STANDIN_LIST=hang VMR_FAKE_GPUS=1 RESULTS_DIR=$work/listhang BUILD_DIR=$work/standin \
  "$repo/scripts/triage" >"$work/listhang.out" 2>&1 &
pid=$!
for _ in $(seq 300); do listing_hangs && break; sleep 0.1; done
listing_hangs || fail "a hanging --list: the listing never started: $(cat "$work/listhang.out")"
start=$(date +%s%N)
kill -TERM $pid
wait $pid
rc=$? took=$((($(date +%s%N) - start) / 1000000))
[ $rc = 99 ] && [ "$took" -lt 10000 ] && [ -z "$(marked)" ] ||
  { tail -n 3 "$work/listhang.out"; fail "SIGTERM while a --list hangs: exit $rc (want 99) after $took ms (want under 10 s), left running: $(marked | wc -l)"; }

# SIGTERM in the middle of a launch (the hang self-test holds its ranks up to its 60 s deadline): every launch and
# rank the triage started stops before it exits, nothing is written after, INCOMPLETE stays, and the last line
# says why, exit 99. The triage's processes are found by a mark in their environment.
mark=vmr-e2e-term-$$  # (marked, above, finds the processes of this mark)
ranks_in_hang() { for p in $(marked); do tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null; echo; done | grep -c -- '--vmem-repro-rank=.*case=hang'; }
VMR_E2E_MARK=$mark VMR_FAKE_GPUS=2 RESULTS_DIR=$work/term BUILD_DIR=$build "$repo/scripts/triage" --include-crash \
  --pairs 0:1 -- --timeout 60 >"$work/term.out" 2>&1 &
pid=$!
for _ in $(seq 300); do [ "$(ranks_in_hang)" = 2 ] && break; sleep 0.1; done
[ "$(ranks_in_hang)" = 2 ] || fail "SIGTERM: the hang case's two ranks never ran: $(cat "$work/term.out")"
start=$(date +%s%N)
kill -TERM $pid
wait $pid
rc=$? took=$((($(date +%s%N) - start) / 1000000))
[ $rc = 99 ] || { cat "$work/term.out"; fail "SIGTERM: exit $rc, want 99"; }
[ -z "$(marked)" ] || fail "SIGTERM: the triage exited, yet its processes run on: $(for p in $(marked); do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done)"
[ "$took" -lt 3000 ] || fail "SIGTERM: the triage took $took ms to stop"
tail -n 1 "$work/term.out" | grep -qx "triage: ERROR (exit 99): interrupted by SIGTERM; every launch it started was stopped, the folder stays INCOMPLETE; [0-9]* launches in [0-9.]* s; results: $work/term" ||
  fail "SIGTERM: the last line is $(tail -n 1 "$work/term.out")"
grep -qx 'interrupted by SIGTERM' "$work/term/INCOMPLETE" && [ ! -e "$work/term/report.md" ] && [ ! -e "$work/term/summary.json" ] ||
  fail "SIGTERM: the folder must keep INCOMPLETE saying why, and have no report: $(ls "$work/term" | tr '\n' ' ')"
before=$(find "$work/term" -printf '%p %s %T@\n' | sort; cat "$work/term.out")
sleep 1.5
[ "$before" = "$(find "$work/term" -printf '%p %s %T@\n' | sort; cat "$work/term.out")" ] ||
  fail "SIGTERM: something wrote into the results or the output after the triage exited"

# A report.md that cannot be written (a check_expected whose --report-md mode fails as a full disk would): exit 99,
# the tool's line, and the folder stays INCOMPLETE (it has no report), though every run finished.
mkdir -p "$work/noreport/bin"
for f in "$build/bin"/*; do ln -s "$f" "$work/noreport/bin/"; done
rm "$work/noreport/bin/check_expected"
cat >"$work/noreport/bin/check_expected" <<NOREPORT
#!/usr/bin/env bash
[ "\${1-}" != --report-md ] || { echo "check_expected: cannot write \$2: No space left on device" >&2; exit 99; }
exec "$build/bin/check_expected" "\$@"
NOREPORT
chmod +x "$work/noreport/bin/check_expected"
VMR_FAKE_GPUS=2 RESULTS_DIR=$work/noreport-out BUILD_DIR=$work/noreport "$repo/scripts/triage" >"$work/noreport.out" 2>&1
rc=$?
[ $rc = 99 ] || { cat "$work/noreport.out"; fail "report.md not written: exit $rc, want 99"; }
grep -qxF "check_expected: cannot write $work/noreport-out/report.md: No space left on device" "$work/noreport.out" ||
  fail "report.md not written: the tool's line is not shown: $(tail -n 3 "$work/noreport.out")"
[ -e "$work/noreport-out/INCOMPLETE" ] && [ ! -e "$work/noreport-out/report.md" ] ||
  fail "report.md not written, yet the folder reads as a finished triage"

# A build that fails, at configure or at compile: exit 99 and the last line names the build's log, never CHANGED (1,
# which a failed configure once was) or usage (2, a failed compile). The suite is seen through a root whose
# scripts/ is this one's and whose CMakeLists.txt is planted.
for stage in configure compile; do
  root=$work/broken-$stage-root
  mkdir -p "$root" && ln -sfn "$repo/scripts" "$root/scripts" && cp "$repo/CMakePresets.json" "$root/"
  if [ $stage = configure ]; then
    printf 'cmake_minimum_required(VERSION 3.21)\nproject(planted CXX)\nmessage(FATAL_ERROR "planted configure failure")\n' >"$root/CMakeLists.txt"
  else
    printf 'cmake_minimum_required(VERSION 3.21)\nproject(planted CXX)\nadd_executable(planted planted.cpp)\n' >"$root/CMakeLists.txt"
    printf '#error planted compile failure\n' >"$root/planted.cpp"
  fi
  BUILD_DIR=$work/broken-$stage RESULTS_ROOT=$work/broken-$stage-results "$root/scripts/triage" >"$work/broken-$stage.out" 2>&1
  rc=$?
  [ $rc = 99 ] && tail -n 1 "$work/broken-$stage.out" | grep -qxF "triage: ERROR (exit 99): the build failed (see $work/broken-$stage/triage-build.log)" &&
    grep -q "planted $stage failure" "$work/broken-$stage/triage-build.log" ||
    { tail -n 5 "$work/broken-$stage.out"; fail "a failed $stage: exit $rc, want 99 and the last line naming the build log"; }
  [ ! -e "$work/broken-$stage-results" ] || fail "a failed $stage made a results folder"
done

# An expected table that cannot be parsed: exit 2 (the tools' "bad table"), the parser's line, no report, and the
# folder stays INCOMPLETE. The suite is seen through a root whose scripts/ is this one's and whose table is broken.
mkdir -p "$work/badtable-root/expected"
ln -s "$repo/scripts" "$work/badtable-root/scripts"
printf '# Expected verdicts\n\n| binary | case |\n| --- |\n| repro_host_shm | read | PASS |\n' \
  >"$work/badtable-root/expected/verdicts.md"
VMR_FAKE_GPUS=2 RESULTS_DIR=$work/badtable BUILD_DIR=$build "$work/badtable-root/scripts/triage" \
  >"$work/badtable.out" 2>&1
rc=$?
[ $rc = 2 ] || { tail -n 5 "$work/badtable.out"; fail "a broken expected table: exit $rc, want 2"; }
grep -q 'expected/verdicts.md could not be used' "$work/badtable.out" || fail "a broken table: the line is not said"
[ -e "$work/badtable/INCOMPLETE" ] && [ ! -e "$work/badtable/report.md" ] ||
  fail "a broken table, yet the folder reads as a finished triage"

# --mesh whose run leaves no result at all (killed): every case gets its pair runs, and the lost mesh record is
# a problem too.
VMR_STANDIN_KILL=0,1,2 VMR_FAKE_GPUS=3 RESULTS_DIR=$work/meshlost standin --mesh >"$work/meshlost.out" 2>&1
rc=$?
[ $rc = 1 ] && [ "$(pairs_of "$work/meshlost" read | tr '\n' ' ')" = "0-0 0-1 0-2 1-0 1-1 1-2 2-0 2-1 2-2 " ] &&
  [ "$(pairs_of "$work/meshlost" atomics | tr '\n' ' ')" = "0-0 0-1 0-2 1-0 1-1 1-2 2-0 2-1 2-2 " ] ||
  { cat "$work/meshlost.out"; fail "--mesh killed: exit $rc, read ran on '$(pairs_of "$work/meshlost" read)'"; }
grep -qxF 'backend repro_host_shm: the mesh run on 3 GPUs did not pass read, atomics: 6 pair runs name the pairs' \
  "$work/meshlost.out" || fail "--mesh killed: the pair runs are not said"
grep -qE '^repro_host_shm\.read +0-1-2 .*CHANGED: the planned run on GPUs 0-1-2 left no record' "$work/meshlost.out" ||
  fail "--mesh killed: the lost mesh record is not named"

# Bad command lines are exit 2 with one line, before any results folder; an existing RESULTS_DIR is exit 99 (could
# not run), nothing written. --pairs: the whole list must read as pairs (a tail of junk would drop a pair), each
# once, and below the GPUs there are (2 here).
# After --: nothing triage chooses per run (a second --devices would be each run's usage error).
bad() {  # bad WANT ARGS...: a 2-GPU triage with ARGS is exit 2 with one line matching WANT, and writes nothing
  local want=$1; shift
  VMR_FAKE_GPUS=2 RESULTS_ROOT=$work/badroot triage "$@" >"$work/bad.out" 2>&1; rc=$?
  [ $rc = 2 ] || fail "'$*': exit $rc, want 2: $(cat "$work/bad.out")"
  [ "$(wc -l <"$work/bad.out")" = 1 ] && grep -q -- "$want" "$work/bad.out" ||
    fail "'$*': want one line saying '$want', got: $(cat "$work/bad.out")"
  [ ! -e "$work/badroot" ] || fail "'$*': a results folder was made"
}
bad "is not a list" --pairs x
bad "needs a list" --pairs
bad "unknown argument" --bogus
bad "'0:1,1:2junk' is not a list" --pairs 0:1,1:2junk
bad "'junk0:1' is not a list" --pairs junk0:1
bad "'0:1,' is not a list" --pairs 0:1,
bad "0:5 names GPU 5, but host shows 2 GPUs" --pairs 0:5
bad "lists 0:1 twice" --pairs 0:1,1:0,00:1
bad "'--devices' after -- is refused" -- --devices 0,1
bad "'--case=read' after -- is refused" -- --timeout 9 --case=read
# One GPU: --pairs 0:0 is its whole triage, and 0:1 names a GPU it does not have.
VMR_FAKE_GPUS=1 RESULTS_DIR=$work/onepair triage --pairs 0:0 >"$work/onepair.out" 2>&1 || fail "--pairs 0:0 on 1 GPU: exit $?"
[ -f "$work/onepair/repro_host_shm.0-0.json" ] || fail "--pairs 0:0 on 1 GPU: no 0-0 run: $(ls "$work/onepair" | tr '\n' ' ')"
VMR_FAKE_GPUS=1 RESULTS_ROOT=$work/badroot triage --pairs 0:1 >"$work/bad.out" 2>&1
[ $? = 2 ] && grep -q '0:1 names GPU 1, but host shows 1 GPUs' "$work/bad.out" || fail "--pairs 0:1 on 1 GPU: $(cat "$work/bad.out")"
VMR_FAKE_GPUS=abc triage >"$work/bad.out" 2>&1; [ $? = 2 ] || fail "VMR_FAKE_GPUS=abc: want exit 2"
triage_before=$(ls "$work/plain" | wc -l)
RESULTS_DIR=$work/plain triage >"$work/exists.out" 2>&1; rc=$?
[ $rc = 99 ] || fail "an existing RESULTS_DIR: exit $rc, want 99"
[ "$(ls "$work/plain" | wc -l)" = "$triage_before" ] || fail "a refused RESULTS_DIR was written into"

# A set but empty visibility variable hides the GPUs the driver lists (here a stand-in nvidia-smi listing 2);
# unset, the driver's list counts. First triage's own count (whatever is built), then a whole triage.
mkdir -p "$work/fakebin"
printf '#!/bin/sh\necho "GPU 0: stand-in (UUID: GPU-0)"\necho "GPU 1: stand-in (UUID: GPU-1)"\n' >"$work/fakebin/nvidia-smi"
chmod +x "$work/fakebin/nvidia-smi"
# count BACKEND [env arguments]: how many GPUs triage plans on for BACKEND under that environment.
count() {
  local backend=$1; shift
  env "$@" PATH="$work/fakebin:$PATH" bash -c 'source "$1"; vmr_gpu_count "$2"' _ "$repo/scripts/lib/visible.sh" "$backend"
}
[ "$(count cuda)" = 0 ] || fail "CUDA_VISIBLE_DEVICES='' counts $(count cuda) GPUs, want 0"
[ "$(count cuda -u CUDA_VISIBLE_DEVICES)" = 2 ] || fail "CUDA_VISIBLE_DEVICES unset: want the 2 GPUs nvidia-smi lists"
# As the CUDA driver counts (scripts/lib/visible.sh): up to the first entry that names no GPU of the driver's list.
for want in "0,1:2" "1,0:2" "0,GPU-1:2" "0,,1:1" "0,1,:2" ",0:0" "-1:0" "0,-1,1:1" "0,5,1:1" "0,GPU-x,1:1" "0,0:0"; do
  got=$(count cuda CUDA_VISIBLE_DEVICES="${want%:*}")
  [ "$got" = "${want##*:}" ] || fail "CUDA_VISIBLE_DEVICES='${want%:*}' counts $got GPUs, want ${want##*:}"
done
# HIP and ROCr, where this machine has no KFD GPU (their counts then go by the variables alone; the rules against
# a GPU count are tests/visible_devices.sh's): ROCr hides first, then HIP's list (HIP_VISIBLE_DEVICES when not
# empty, else CUDA_VISIBLE_DEVICES) counts among what ROCr shows.
if ! grep -qs '^simd_count [1-9]' /sys/class/kfd/kfd/topology/nodes/*/properties; then
  [ "$(count hip)" = 0 ] || fail "ROCR_VISIBLE_DEVICES='' must hide every GPU from HIP"
  [ "$(count hip ROCR_VISIBLE_DEVICES=0,1)" = 2 ] || fail "HIP_VISIBLE_DEVICES='' hides nothing from HIP (clr reads it as unset)"
  [ "$(count hip ROCR_VISIBLE_DEVICES=0,1 CUDA_VISIBLE_DEVICES=1)" = 1 ] ||
    fail "HIP_VISIBLE_DEVICES='': HIP takes CUDA_VISIBLE_DEVICES=1 instead, want 1"
  [ "$(count hsa -u HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES=0,1,2)" = 3 ] || fail "ROCR_VISIBLE_DEVICES=0,1,2 alone: want 3"
  for want in "0,,1:1" "0,1,:2" "-1:0"; do
    for var in HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES; do
      got=$(count hip -u ROCR_VISIBLE_DEVICES "$var=${want%:*}")
      [ "$got" = "${want##*:}" ] || fail "$var='${want%:*}' counts $got GPUs for HIP, want ${want##*:}"
    done
  done
fi
if awk -F'\t' '$2 == "cuda" && $3 == "ok" { found = 1 } END { exit !found }' "$build/bin/manifest.txt"; then
  PATH=$work/fakebin:$PATH RESULTS_DIR=$work/hidden triage >"$work/hidden.out" 2>&1
  grep -q '^backend cuda: no GPU visible' "$work/hidden.out" || fail "CUDA_VISIBLE_DEVICES='': $(grep '^backend cuda' "$work/hidden.out")"
  (unset CUDA_VISIBLE_DEVICES; PATH=$work/fakebin:$PATH RESULTS_DIR=$work/listed triage >"$work/listed.out" 2>&1)
  grep -q '^backend cuda: 2 GPUs' "$work/listed.out" || fail "CUDA_VISIBLE_DEVICES unset: $(grep '^backend cuda' "$work/listed.out")"
fi

# Two triages started together get folders of their own.
RESULTS_ROOT=$work/root triage >"$work/a.out" 2>&1 &
RESULTS_ROOT=$work/root triage >"$work/b.out" 2>&1 &
wait
[ "$(ls "$work/root" | wc -l)" = 2 ] || fail "two concurrent triages share a folder: $(ls "$work/root")"
# A binary the manifest lists that is not there (a build that stopped half-way): triage builds again (a cmake
# stand-in that links it back: the copy's BUILD_DIR cannot be rebuilt for real), then runs it. Where the build
# fails, it stays out, as ONE problem naming it, never one per table row, and the note does not blame a toolchain.
partial=$work/partial
mkdir -p "$partial/bin" "$work/saved" "$work/fakecmake"
cp "$build/bin/check_expected" "$build/bin/triage_plan" "$partial/bin/" && cp "$build/bin/repro_host_shm" "$work/saved/"
sed 's/^\([a-z0-9_]*\)\t\([a-z]*\)\t[a-z]*\t/\1\t\2\tmissing\t/; s/^\(repro_host_shm\t[a-z]*\t\)missing\t/\1ok\t/' \
  "$build/bin/manifest.txt" >"$partial/bin/manifest.txt"
: >"$partial/CMakeCache.txt"  # (configured already: vmr_build goes straight to cmake --build)
cat >"$work/fakecmake/cmake" <<EOF
#!/usr/bin/env bash
echo "cmake \$*" >>"$work/fakecmake.log"
[ "\$1" = --build ] || exit 0
[ -z "\${FAKE_BUILD_FAIL-}" ] || { echo "fake build error" >&2; exit 1; }
[ -n "\${FAKE_BUILD_NOOP-}" ] || cp "$work/saved/repro_host_shm" "\$2/bin/"
EOF
chmod +x "$work/fakecmake/cmake"
BUILD_DIR=$partial PATH=$work/fakecmake:$PATH VMR_FAKE_GPUS=2 RESULTS_DIR=$work/rebuilt "$repo/scripts/triage" \
  >"$work/rebuilt.out" 2>&1
rc=$?
[ $rc = 0 ] || fail "a missing binary, rebuilt: exit $rc: $(tail -n 5 "$work/rebuilt.out")"
grep -qx "cmake --build $partial -j [0-9]*" "$work/fakecmake.log" || fail "triage did not build again: $(cat "$work/fakecmake.log" 2>&1)"
grep -q 'the manifest lists repro_host_shm but .* has not: building again' "$work/rebuilt.out" || fail "no word of the rebuild"
rm "$partial/bin/repro_host_shm"
# The rebuild fails: that is the suite's failure (ERROR 99, naming the log), never a verdict.
BUILD_DIR=$partial PATH=$work/fakecmake:$PATH VMR_FAKE_GPUS=2 FAKE_BUILD_FAIL=1 RESULTS_DIR=$work/rebuild-failed \
  "$repo/scripts/triage" >"$work/rebuild-failed.out" 2>&1
rc=$?
[ $rc = 99 ] && [ "$(tail -n 1 "$work/rebuild-failed.out")" = "triage: ERROR (exit 99): the build failed (see $partial/triage-build.log)" ] ||
  fail "a rebuild that fails: exit $rc, last line '$(tail -n 1 "$work/rebuild-failed.out")', want 99 and the build failed"
# The rebuild succeeds but does not make the binary (a stale manifest): one BUILD problem of the comparison.
BUILD_DIR=$partial PATH=$work/fakecmake:$PATH VMR_FAKE_GPUS=2 FAKE_BUILD_NOOP=1 RESULTS_DIR=$work/unbuilt \
  "$repo/scripts/triage" >"$work/unbuilt.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "a missing binary the build did not make: exit $rc, want 1 (a problem)"
[ "$(grep -cE '^(TABLE|BUILD): ' "$work/unbuilt.out")" = 1 ] &&
  grep -q "^BUILD: $partial/bin/repro_host_shm is not there" "$work/unbuilt.out" ||
  fail "a missing binary must be one BUILD problem: $(grep -E '^(TABLE|BUILD): ' "$work/unbuilt.out" | head -n 3)"
grep -q '^backend host: repro_host_shm is missing from the build though its toolchain works' "$work/unbuilt.out" ||
  fail "the note: $(grep '^backend host' "$work/unbuilt.out")"
echo "a missing binary: built again; where the build fails, one problem naming it"
# Every summary these triages wrote follows the published schema (a real validator: python3-jsonschema).
mapfile -t summaries < <(find "$work" -name summary.json)
[ ${#summaries[@]} -ge 3 ] || fail "only ${#summaries[@]} summary.json written"
/usr/bin/python3 "$repo/tests/validate_summary.py" "$repo/schemas/vmem-repro-summary-2.schema.json" "${summaries[@]}" ||
  fail "a triage's summary.json does not follow schemas/vmem-repro-summary-2.schema.json (above)"
echo "triage end to end: all checks passed (${#summaries[@]} summaries valid)"
