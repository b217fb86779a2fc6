#!/usr/bin/env bash
# What runs as root writes only where only root can (scripts/lib/root_only.sh, common/harness/output_file.cpp),
# against a second user (nobody, through runuser) racing it. `victim` is a folder only root can write: whatever
# appears there was written by root where nobody chose.
#   1. nobody makes VMR_HEALTH_ROOT first and swaps every run folder for a link to victim while health-check runs:
#      exit 99, one line, the reason on stderr, nothing written in nobody's folder nor in victim
#   2. a root folder root makes inside a sticky world-writable folder (as /var/tmp): nobody's swaps fail, a failing
#      case is exit 1 with its line; --prom through a link nobody planted in their own folder is not followed,
#      named on stderr, and the exit stays 1
#   3. refused, nothing made inside: a group-writable root folder, a symlink, a folder under nobody's symlink
#   4. scripts/triage as root under nobody's folder: exit 99, nothing written
#   5. --json and a tool's output through a link nobody planted (their folder, a sticky one): refused, victim intact
#   6. bug-report as root on nobody's results folder where nobody linked bug-report.md to a file of root's: 99, named,
#      the file intact
#   7. scripts/bisect as root under nobody's folder or in one nobody made (a link named as its log): 128, nothing
#      written, the link not followed, the commit not built
#   usage: root_writes.sh REPO BUILD_DIR WORK_DIR (exit 77 when not root or without runuser)
set -uo pipefail
repo=$1 build=$2 work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (it tests what root writes)"; exit 77; }
command -v runuser >/dev/null && id nobody >/dev/null 2>&1 || { echo "SKIP: needs runuser and the user nobody"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && chmod 0755 "$work"
# The positive cases need a work folder only root can change, from / down (a build under a shared folder is not).
d=$work
while [ "$d" != / ]; do
  read -r uid mode < <(stat -c '%u %a' "$d")
  [ "$uid" = 0 ] && { (((8#$mode & 8#022) == 0)) || (((8#$mode & 8#1000) != 0)); } ||
    { echo "SKIP: $d is not root's alone (uid $uid, mode $mode): the tests need a work folder only root can change"; exit 77; }
  d=$(dirname "$d")
done
runuser -u nobody -- test -x "$work" ||
  { echo "SKIP: nobody cannot reach $work (a folder above it is closed to other users, as mktemp -d makes them)"; exit 77; }
hc=$repo/scripts/health-check
export BUILD_DIR=$build
unset VMR_FAKE_GPUS VMR_FORCE_FAIL SLURMD_NODENAME SUDO_UID
bad=(VMR_FAKE_GPUS=2 VMR_FORCE_FAIL=repro_host_shm.atomics)
mkdir -m 0755 "$work/victim"
mkdir -m 1777 "$work/tmp"              # as /tmp and /var/tmp
mkdir -m 0755 "$work/nobodys" && chown nobody "$work/nobodys"  # as another user's home
victim_empty() { [ -z "$(ls -A "$work/victim")" ] || fail "$1: root wrote into a folder nobody chose: $(ls -A "$work/victim")"; }

# swapper ROOT: nobody, until $work/stop appears, moves each run folder in ROOT aside and links victim in its place.
swapper() {
  runuser -u nobody -- bash -c '
    cd "$1" || exit
    while [ ! -e "$2" ]; do
      for d in health-*; do
        [ -d "$d" ] && [ ! -L "$d" ] && mv "$d" "moved-$d" 2>/dev/null && ln -s "$3" "$d"
      done
    done' swapper "$1" "$work/stop" "$work/victim" &
  swapper_pid=$!
}
stop_swapper() { touch "$work/stop"; wait "$swapper_pid"; rm -f "$work/stop"; }

# 1. The attack: nobody's folder, made first.
runuser -u nobody -- mkdir -m 0755 "$work/tmp/health"
swapper "$work/tmp/health"
env "${bad[@]}" VMR_HEALTH_ROOT="$work/tmp/health" "$hc" --budget 20 >"$work/first.out" 2>"$work/first.err"
rc=$?
stop_swapper
[ $rc = 99 ] && [ "$(cat "$work/first.out")" = "vmem-repro: the health check could not run (its results folder is not root's alone)" ] ||
  fail "nobody's health root: exit $rc: $(cat "$work/first.out" "$work/first.err")"
grep -q "will not write as root in $work/tmp/health: $work/tmp/health is owned by uid $(id -u nobody), not root" "$work/first.err" ||
  fail "nobody's health root: the reason is not on stderr: $(cat "$work/first.err")"
[ -z "$(find "$work/tmp/health" -user 0)" ] || fail "root wrote into nobody's folder: $(find "$work/tmp/health" -user 0)"
victim_empty "nobody's health root"
echo "ok: a health root nobody made first: exit 99, nothing written there or where nobody pointed"

# 2. A root folder root makes in a sticky world-writable folder: nobody cannot swap its run folders; the node's
#    verdict stands; --prom through nobody's link is not followed and does not change the exit.
runuser -u nobody -- ln -s "$work/victim/vmem.prom" "$work/nobodys/vmem.prom"
mkdir -m 0755 "$work/tmp/ours"
swapper "$work/tmp/ours"
env "${bad[@]}" VMR_HEALTH_ROOT="$work/tmp/ours/health" "$hc" --budget 20 --prom "$work/nobodys/vmem.prom" \
  >"$work/ours.out" 2>"$work/ours.err"
rc=$?
stop_swapper
line=$(cat "$work/ours.out")
[ $rc = 1 ] && [[ "$line" == "vmem-repro: repro_host_shm.atomics FAIL "* ]] || fail "root's own folder: exit $rc: $line $(cat "$work/ours.err")"
grep -q "scripts/health-check: --prom $work/nobodys/vmem.prom not written (the node's verdict stands): .*is a symlink in a folder other users can write: not followed as root" \
  "$work/ours.err" || fail "a --prom link nobody planted: not named on stderr: $(cat "$work/ours.err")"
victim_empty "root's own folder"
run_dir=$(sed -n 's/.*; results: //p' "$work/ours.err")
[ "$(stat -c '%u %a' "$work/tmp/ours/health")" = "0 755" ] && [ -f "$run_dir/health.txt" ] && [ ! -L "$run_dir" ] ||
  fail "root's own folder: $(ls -la "$work/tmp/ours/health")"
echo "ok: a root folder in a sticky folder: nobody cannot swap it, exit 1 kept, a planted --prom link not followed"

# 3. Refused before anything is made inside.
mkdir -m 0775 "$work/group-writable"
ln -s "$work/victim" "$work/root-link"
runuser -u nobody -- ln -s "$work/victim" "$work/tmp/nobody-link"
for root in "$work/group-writable" "$work/root-link" "$work/tmp/nobody-link/health"; do
  env VMR_FAKE_GPUS=2 VMR_HEALTH_ROOT="$root" "$hc" >"$work/refused.out" 2>"$work/refused.err"
  rc=$?
  [ $rc = 99 ] && [ "$(wc -l <"$work/refused.out")" = 1 ] && grep -q "^scripts/health-check: will not write as root in $root: " "$work/refused.err" ||
    fail "VMR_HEALTH_ROOT=$root: exit $rc: $(cat "$work/refused.out" "$work/refused.err")"
  victim_empty "VMR_HEALTH_ROOT=$root"
done
[ -z "$(ls -A "$work/group-writable")" ] || fail "a group-writable root got $(ls -A "$work/group-writable")"
echo "ok: a group-writable root, a symlink, a folder under nobody's link: exit 99, nothing made"

# 4. The triage as root under nobody's folder.
env VMR_FAKE_GPUS=2 RESULTS_ROOT="$work/nobodys" "$repo/scripts/triage" >"$work/triage.out" 2>"$work/triage.err"
rc=$?
[ $rc = 99 ] && grep -q "^scripts/triage: will not write as root under $work/nobodys: .*owned by uid" "$work/triage.err" ||
  fail "triage under nobody's folder: exit $rc: $(tail -n 3 "$work/triage.err")"
[ -z "$(find "$work/nobodys" -user 0)" ] || fail "the triage wrote into nobody's folder: $(find "$work/nobodys" -user 0)"
echo "ok: the triage as root under nobody's folder: exit 99, nothing written"

# 5. The one writer as root: a link nobody planted (in their folder; in a sticky one) is not followed, before a run
#    (--json, usage 2) nor at the write (a tool's output, 99); root's own link in root's folder still is.
echo precious >"$work/victim-file"
chmod 0644 "$work/victim-file"
runuser -u nobody -- ln -s "$work/victim-file" "$work/nobodys/r.json"
runuser -u nobody -- ln -s "$work/victim-file" "$work/tmp/r.json"
for planted in "$work/nobodys/r.json" "$work/tmp/r.json"; do
  "$build/bin/repro_host_shm" --case read --json "$planted" >"$work/json.out" 2>"$work/json.err"
  rc=$?
  [ $rc = 2 ] && grep -q "is a symlink in a folder other users can write: not followed as root" "$work/json.err" ||
    fail "--json $planted: exit $rc: $(cat "$work/json.err")"
  "$build/bin/check_expected" --publish "$planted" --from "$work/first.out" 2>"$work/publish.err"
  rc=$?
  [ $rc = 99 ] && grep -q "^check_expected: cannot write $planted: it is a symlink in a folder other users can write" "$work/publish.err" ||
    fail "check_expected --publish $planted: exit $rc: $(cat "$work/publish.err")"
  [ "$(cat "$work/victim-file")" = precious ] && [ -L "$planted" ] || fail "$planted was followed or replaced"
done
ln -s "$work/victim-file" "$work/root-owned-link"
"$build/bin/check_expected" --publish "$work/root-owned-link" --from "$work/first.out" &&
  [ "$(cat "$work/victim-file")" = "$(cat "$work/first.out")" ] || fail "root's own link in root's folder was not written through"
echo "ok: links nobody planted are not followed as root (--json: 2, a tool's output: 99); root's own link is"
# 6. bug-report as root on a finished triage's folder that nobody owns, its bug-report.md a link nobody planted.
results=$work/nobodys/results
BUILD_DIR=$build VMR_FAKE_GPUS=1 RESULTS_DIR=$work/own-results "$repo/scripts/triage" >"$work/own-triage.out" 2>&1 ||
  fail "the triage for bug-report: $(tail -n 2 "$work/own-triage.out")"
cp -r "$work/own-results" "$results" && chown -R nobody "$results"
echo precious >"$work/victim-file"
runuser -u nobody -- ln -s "$work/victim-file" "$results/bug-report.md"
BUILD_DIR=$build "$repo/scripts/bug-report" "$results" >"$work/bug.out" 2>"$work/bug.err"
rc=$?
[ $rc = 99 ] && grep -q "it is a symlink in a folder other users can write" "$work/bug.err" ||
  fail "bug-report through nobody's link: exit $rc: $(cat "$work/bug.out" "$work/bug.err" | tail -n 3)"
[ "$(cat "$work/victim-file")" = precious ] && [ -L "$results/bug-report.md" ] || fail "bug-report followed or replaced nobody's link"
rm "$results/bug-report.md"
BUILD_DIR=$build "$repo/scripts/bug-report" "$results" >"$work/bug.out" 2>"$work/bug.err" && [ -f "$results/bug-report.md" ] ||
  fail "bug-report on nobody's folder without the link: $(tail -n 3 "$work/bug.err")"
echo "ok: bug-report as root does not follow nobody's link (99, named); without it, it writes its report"
# 7. A bisect step as root: under nobody's folder (RESULTS_ROOT), or in a RESULTS_DIR nobody made with a link to a
#    file of root's named as the step's log: 128 (stop the bisect), one line, before the commit's build, nothing
#    written there and the file intact.
theirs=$work/nobodys-bisect
mkdir -m 0755 "$theirs" && chown nobody "$theirs"
runuser -u nobody -- mkdir -m 0755 "$theirs/steps"
runuser -u nobody -- ln -s "$work/victim-file" "$theirs/steps/repro_host_shm.log"
echo precious >"$work/victim-file"
for where in "RESULTS_ROOT=$theirs" "RESULTS_DIR=$theirs/steps"; do
  env BUILD_DIR="$build" "$where" "$repo/scripts/bisect" --build "touch $work/bisect-built" repro_host_shm.read \
    >"$work/bisect.out" 2>&1
  rc=$?
  [ $rc = 128 ] && [ "$(wc -l <"$work/bisect.out")" = 1 ] &&
    grep -q "^scripts/bisect: will not write as root in $theirs.*: .*owned by uid $(id -u nobody), not root" "$work/bisect.out" ||
    fail "bisect as root with $where: exit $rc: $(cat "$work/bisect.out")"
  [ ! -e "$work/bisect-built" ] || fail "bisect with $where built the commit before it refused its folder"
  [ -z "$(find "$theirs" -user 0)" ] || fail "bisect wrote into nobody's folder: $(find "$theirs" -user 0)"
  [ "$(cat "$work/victim-file")" = precious ] || fail "bisect with $where wrote through nobody's link"
done
echo "ok: a bisect step as root in nobody's folder: 128 before the build, nothing written, nobody's link not followed"
echo "root_writes: all checks passed"
