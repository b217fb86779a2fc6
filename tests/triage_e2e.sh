#!/usr/bin/env bash
# scripts/triage end to end, without a GPU: VMR_FAKE_GPUS makes the host baseline stand for a GPU backend, so the
# pair plans (every ordered pair, --ring, --pairs), case filtering, matrices, results folders and exit codes are
# checked against what the runs left on disk.   usage: triage_e2e.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
triage() { BUILD_DIR=$build "$repo/scripts/triage" "$@"; }

# The host runs' exporter-importer pairs of a case, sorted, one per line ("0-1").
pairs_of() { (cd "$1" && ls "repro_host_shm.$2".*.json 2>/dev/null) | sed -E "s/^repro_host_shm\.$2\.([0-9]+-[0-9]+)\.json$/\1/" | sort; }

# Every ordered pair of 3 fake GPUs, each exactly once per safe case; known-crash and self-test cases left out.
VMR_FAKE_GPUS=3 RESULTS_DIR=$work/all triage >"$work/all.out" 2>&1
rc=$?; [ $rc = 0 ] || fail "3 fake GPUs: exit $rc"; cat "$work/all.out"
for c in read atomics; do
  got=$(pairs_of "$work/all" $c | tr '\n' ' ')
  [ "$got" = "0-1 0-2 1-0 1-2 2-0 2-1 " ] || fail "$c ran on pairs '$got', want every ordered pair of 3 once"
done
for c in fault hang peer-exit; do
  [ -z "$(pairs_of "$work/all" $c)" ] || fail "$c is a self-test/known-crash case: a plain triage must not run it"
done
grep -qx 'repro_host_shm.read' "$work/all/plan.txt" || fail "plan.txt lacks repro_host_shm.read"
grep -q 'repro_host_shm.fault' "$work/all/plan.txt" && fail "plan.txt lists the fault self-test"
grep -Eq '^12 OK, 0 CHANGED, [0-9]+ not run, 0 table problems$' "$work/all.out" || fail "summary line"
grep -q '"changed":0' "$work/all/summary.json" || fail "summary.json does not say 0 changed"
grep -q '| exporter \\ importer | GPU 0 | GPU 1 | GPU 2 |' "$work/all/report.md" || fail "report.md has no 3-GPU matrix"

# --ring: one pass around the ring.
VMR_FAKE_GPUS=3 RESULTS_DIR=$work/ring triage --ring >"$work/ring.out" 2>&1 || fail "--ring: exit $?"
[ "$(pairs_of "$work/ring" read | tr '\n' ' ')" = "0-1 1-2 2-0 " ] || fail "--ring pairs: $(pairs_of "$work/ring" read)"

# --pairs: exactly those, and --include-crash adds the self-tests, whose expected verdicts still read OK.
VMR_FAKE_GPUS=3 RESULTS_DIR=$work/pairs triage --include-crash --pairs 2:0,1:2 -- --timeout 3 >"$work/pairs.out" 2>&1
rc=$?; [ $rc = 0 ] || { cat "$work/pairs.out"; fail "--pairs --include-crash: exit $rc"; }
for c in read atomics fault hang peer-exit; do
  [ "$(pairs_of "$work/pairs" $c | tr '\n' ' ')" = "1-2 2-0 " ] || fail "--pairs: $c ran on '$(pairs_of "$work/pairs" $c)'"
done
grep -Eq '^10 OK, 0 CHANGED' "$work/pairs.out" || fail "--include-crash summary: $(grep CHANGED "$work/pairs.out")"

# A verdict that differs from expected/ is exit 1 naming the case (VMR_FORCE_FAIL is the README's test aid).
VMR_FORCE_FAIL=repro_host_shm.atomics VMR_FAKE_GPUS=2 RESULTS_DIR=$work/changed triage >"$work/changed.out" 2>&1
rc=$?; [ $rc = 1 ] || fail "a forced FAIL: exit $rc, want 1"
grep -Eq '^repro_host_shm\.atomics +0-1 +PASS +FAIL +CHANGED' "$work/changed.out" || fail "no CHANGED row for atomics 0-1"
grep -Eq '^2 OK, 2 CHANGED' "$work/changed.out" || fail "want 2 OK, 2 CHANGED: $(grep CHANGED, "$work/changed.out")"

# No fake GPUs: the host cases run once each, without --devices.
RESULTS_DIR=$work/plain triage >"$work/plain.out" 2>&1 || fail "plain triage: exit $?"
[ -f "$work/plain/repro_host_shm.read.json" ] || fail "plain triage: no repro_host_shm.read.json"

# Bad command lines are exit 2 with one line; an existing RESULTS_DIR is exit 3 (could not run), nothing written.
for args in "--pairs x" "--pairs" "--bogus"; do
  triage $args >"$work/bad.out" 2>&1; rc=$?
  [ $rc = 2 ] || fail "'$args': exit $rc, want 2"
done
VMR_FAKE_GPUS=abc triage >"$work/bad.out" 2>&1; [ $? = 2 ] || fail "VMR_FAKE_GPUS=abc: want exit 2"
triage_before=$(ls "$work/plain" | wc -l)
RESULTS_DIR=$work/plain triage >"$work/exists.out" 2>&1; rc=$?
[ $rc = 3 ] || fail "an existing RESULTS_DIR: exit $rc, want 3"
[ "$(ls "$work/plain" | wc -l)" = "$triage_before" ] || fail "a refused RESULTS_DIR was written into"

# Two triages started together get folders of their own.
RESULTS_ROOT=$work/root triage >"$work/a.out" 2>&1 &
RESULTS_ROOT=$work/root triage >"$work/b.out" 2>&1 &
wait
[ "$(ls "$work/root" | wc -l)" = 2 ] || fail "two concurrent triages share a folder: $(ls "$work/root")"
echo "triage end to end: all checks passed"
