#!/usr/bin/env bash
# scripts/bisect's answers to its own command-line mistakes and its matching of case names, on the CPU. A mistake of
# ours (a case named twice, arguments after -- that the binaries' parser refuses) must stop git bisect run (128,
# one line) before the commit's build: 125 would skip every commit of the range, each built for nothing. A name
# that is part of a case's name (a prefix, a suffix) is no case.   usage: bisect_arguments.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work" || exit 1

# Each mistake: 128, one line naming it, and the commit's build never ran (stops) or, where the commit's runtime
# must list the cases first, 128 naming it (stops_at_listing).
stops() {
  local want=$1 built=$work/built.$RANDOM
  shift
  BUILD_DIR=$build RESULTS_ROOT=$work/steps "$repo/scripts/bisect" --build "touch $built" "$@" >"$work/step.out" 2>&1
  local rc=$?
  [ $rc = 128 ] && [ "$(wc -l <"$work/step.out")" = 1 ] && grep -qF -- "$want" "$work/step.out" && [ ! -e "$built" ] ||
    { cat "$work/step.out"; fail "bisect $*: exit $rc (want 128, one line saying '$want', before the build)"; }
}
stops_at_listing() {
  local want=$1
  shift
  BUILD_DIR=$build RESULTS_ROOT=$work/steps "$repo/scripts/bisect" "$@" >"$work/step.out" 2>&1
  local rc=$?
  [ $rc = 128 ] && tail -n 1 "$work/step.out" | grep -qF -- "$want" ||
    { cat "$work/step.out"; fail "bisect $*: exit $rc (want 128 saying '$want')"; }
}
stops "the case repro_host_shm.read is named twice" repro_host_shm.read repro_host_shm.atomics repro_host_shm.read
stops "--timeout: 'junk' is not a number of seconds" repro_host_shm.read -- --timeout junk
stops "unknown option '--bogus'" repro_host_shm.read -- --bogus
stops "--ranks: '1' is not a whole number from 2" repro_host_shm.read -- --ranks 1
stops "--devices lists one device" repro_host_shm.read -- --devices 0
stops "'--json=x' after -- is refused: the step chooses the cases and the record" repro_host_shm.read -- --json=x
# What the parser takes goes to the run: a step on the same GPU twice, with a time limit, is judged.
BUILD_DIR=$build RESULTS_ROOT=$work/steps "$repo/scripts/bisect" repro_host_shm.read -- --devices 0,0 --timeout 30 \
  >"$work/good.out" 2>&1
rc=$?
[ $rc = 0 ] && tail -n 1 "$work/good.out" | grep -q '^bisect: good ' || { cat "$work/good.out"; fail "-- --devices 0,0 --timeout 30: exit $rc, want 0"; }
echo "mistakes of the command line stop the bisect before the build; what the parser takes is run"

# Part of a case's name is no case: a prefix, a suffix, a case of a binary whose name is a prefix of another's.
stops_at_listing "repro_host_shm has no case rea " repro_host_shm.rea
stops_at_listing "repro_host_shm has no case ead " repro_host_shm.ead
stops_at_listing "repro_host_shm has no case atomic " repro_host_shm.read repro_host_shm.atomic
stops_at_listing "repro_host_sh is not built" repro_host_sh.read
stops "'repro_host_shm.r.ad' is not a case" repro_host_shm.r.ad
stops "'repro_host_shm.read*' is not a case" 'repro_host_shm.read*'
echo "a name that is part of a case's name stops the bisect"

# RESULTS_DIR is the step's alone: a folder holding another tool's files (CTest's records of the same case, a log
# of the binary's) stops the bisect before the build, its files untouched; a new or empty one, or one earlier steps
# wrote, is taken. (In another's folder a FAIL CTest recorded was once judged for every commit: bad.)
mkdir -p "$work/ctest-results" "$work/empty-results"
VMR_FORCE_FAIL=repro_host_shm.read "$build/bin/repro_host_shm" --case read --json "$work/ctest-results/repro_host_shm.read.json" \
  >/dev/null 2>&1
[ -f "$work/ctest-results/repro_host_shm.read.json" ] || fail "no CTest-style record was made"
echo precious >"$work/ctest-results/repro_host_shm.log"
before=$(cat "$work/ctest-results"/*)
RESULTS_DIR=$work/ctest-results stops "$work/ctest-results holds files no bisect step wrote" repro_host_shm.read
[ "$(cat "$work/ctest-results"/*)" = "$before" ] || fail "bisect changed the files of a folder not its own"
for step in 1 2; do
  BUILD_DIR=$build RESULTS_DIR=$work/empty-results "$repo/scripts/bisect" repro_host_shm.read >"$work/empty.out" 2>&1
  rc=$?
  [ $rc = 0 ] || { cat "$work/empty.out"; fail "an empty RESULTS_DIR, step $step: exit $rc, want 0"; }
done
echo "a RESULTS_DIR with another tool's files stops the bisect, untouched; an empty one is the steps'"

# An exit the step did not choose is never "bad": run through a symlink (scripts/lib is not beside the link), bash
# ends the step with 1 for an unset variable; the step stops the bisect (128) saying so in its last line.
mkdir -p "$work/linked"
ln -sf "$repo/scripts/bisect" "$work/linked/vmr-bisect"
BUILD_DIR=$build RESULTS_ROOT=$work/steps "$work/linked/vmr-bisect" repro_host_shm.read >"$work/linked.out" 2>&1
rc=$?
[ $rc = 128 ] && tail -n 1 "$work/linked.out" | grep -q "^scripts/bisect: stopping the bisect: the step ended with exit 1, which it did not choose" ||
  { cat "$work/linked.out"; fail "bisect through a symlink: exit $rc, want 128 naming the exit it did not choose"; }
echo "an exit the step did not choose stops the bisect (128), never bad"

# check_expected --bisect judges each named case by its own record only: a case whose name another's begins or
# ends with, or one of a binary whose name begins another binary's, is "no record", never another case's verdict.
VMR_FORCE_FAIL=repro_host_shm.atomics BUILD_DIR=$build RESULTS_DIR=$work/judge "$repo/scripts/bisect" --good pass \
  repro_host_shm.read repro_host_shm.atomics >"$work/judge.out" 2>&1
[ -f "$work/judge/repro_host_shm.json" ] || { cat "$work/judge.out"; fail "the step left no record to judge"; }
sed 's/"binary":"repro_host_shm"/"binary":"repro_host_shm2"/g' "$work/judge/repro_host_shm.json" >"$work/judge/repro_host_shm2.json"
grep -q '"binary":"repro_host_shm2"' "$work/judge/repro_host_shm2.json" || fail "the second binary's record was not made"
judge() { "$build/bin/check_expected" --bisect pass --results "$work/judge" "$@"; }
out=$(judge --case repro_host_shm.read)
rc=$?
[ $rc = 0 ] && grep -q '^good repro_host_shm.read: PASS' <<<"$out" || fail "read alone: exit $rc: $out"
for name in repro_host_shm.rea repro_host_shm.ead repro_host_shm.atomic repro_host_shm.tomics repro_host_sh.read \
  repro_host_shm2.rea; do
  out=$(judge --case "$name")
  rc=$?
  [ $rc = 125 ] && grep -qxF "skip $name: no record of it in $work/judge" <<<"$out" ||
    fail "check_expected --bisect --case $name: exit $rc, want 125 (no record): $out"
done
out=$(judge --case repro_host_shm2.read --case repro_host_shm.atomics)
rc=$?
[ $rc = 1 ] && grep -q '^good repro_host_shm2.read: PASS' <<<"$out" && grep -q '^bad repro_host_shm.atomics: FAIL' <<<"$out" ||
  fail "two binaries, one a prefix of the other: exit $rc: $out"
echo "check_expected --bisect judges each case by its own record"

# Through git bisect run: a mistake after -- stops it at the first step, no commit is built.
mkdir -p "$work/history" && cd "$work/history" || exit 1
git init -q . && git config user.email bisect@example.invalid && git config user.name bisect || fail "git init"
for i in 1 2 3 4; do echo "$i" >step && git add step && git commit -qm "step $i" || fail "commit $i"; done
git bisect start HEAD HEAD~3 >/dev/null || fail "git bisect start"
BUILD_DIR=$build RESULTS_ROOT=$work/steps3 git bisect run "$repo/scripts/bisect" --build "echo >>$work/builds" \
  repro_host_shm.read -- --timeout junk >"$work/run.out" 2>&1
rc=$?
git bisect reset >/dev/null 2>&1
[ $rc != 0 ] && [ ! -e "$work/builds" ] && ! grep -q "is the first bad commit" "$work/run.out" &&
  grep -q "scripts/bisect: the arguments after -- are refused: repro_host_shm: --timeout: 'junk'" "$work/run.out" ||
  { tail -n 8 "$work/run.out"; fail "git bisect run with -- --timeout junk: exit $rc, builds: $(wc -l <"$work/builds" 2>/dev/null)"; }
echo "git bisect run stops at its first step on a mistake after --, before any build"
