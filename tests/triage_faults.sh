#!/usr/bin/env bash
# scripts/triage's exit codes and INCOMPLETE marker under faults, without a GPU (VMR_FAKE_GPUS=1: one launch): a
# --prom or --junit file that cannot be written beside a CHANGED node, real signals at varied delays around the
# report's write, an interrupt during the build, and a terminal set to stop background writers (stty tostop).
#   usage: triage_faults.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
export CUDA_VISIBLE_DEVICES= HIP_VISIBLE_DEVICES= ROCR_VISIBLE_DEVICES=  # (the same plan on a GPU node)
triage() { BUILD_DIR=$build VMR_FAKE_GPUS=1 "$repo/scripts/triage" "$@"; }

# A --prom file that cannot be written on a node that reads CHANGED: the tool names the file on stderr, the exit
# stays the node's 1 (99 would read as the suite's problem, and a health check would not drain the node), the last
# line says both, and the folder is a finished triage (report.md, no INCOMPLETE).
VMR_FORCE_FAIL=repro_host_shm.atomics RESULTS_DIR=$work/prom triage --prom /nonexistent/x.prom >"$work/prom.out" 2>&1
rc=$?
[ $rc = 1 ] || { tail -n 5 "$work/prom.out"; fail "--prom unwritable on a CHANGED node: exit $rc, want 1"; }
grep -q '^check_expected: cannot write /nonexistent/x.prom: ' "$work/prom.out" || fail "--prom unwritable: not named on stderr"
tail -n 1 "$work/prom.out" | grep -q '^triage: CHANGED (exit 1): .*; and --prom /nonexistent/x.prom could not be written (above); ' ||
  fail "--prom unwritable: the last line is $(tail -n 1 "$work/prom.out")"
[ -f "$work/prom/report.md" ] && [ ! -e "$work/prom/INCOMPLETE" ] || fail "--prom unwritable: the folder is not a finished triage"
# The same for --junit on a node where all is as expected: "all as expected" is not said of a triage that lost an
# output it was asked for (99), and the last line names it.
RESULTS_DIR=$work/junit triage --junit /nonexistent/x.xml >"$work/junit.out" 2>&1
rc=$?
[ $rc = 99 ] && tail -n 1 "$work/junit.out" | grep -q '^triage: ERROR (exit 99): --junit /nonexistent/x.xml could not be written (above); the verdicts: ALL AS EXPECTED (exit 0): ' ||
  { tail -n 3 "$work/junit.out"; fail "--junit unwritable on a passing node: exit $rc, want 99 naming it"; }
echo "an unwritable --prom keeps a CHANGED node's 1; an unwritable --junit is 99 where all was as expected"

# Real signals at varied delays from the moment report.md appears. The seam VMR_TEST_PAUSE_AFTER_REPORT_S holds the
# triage between its report and its end (a real triage spends milliseconds there); a signal that lands there must
# change nothing: the exit is the node's 0, no INCOMPLETE comes back, the last line is the verdict's.
# (A background job starts with SIGINT ignored, which a shell cannot trap: env --default-signal gives it back.)
try=0
# "group": the signal goes to the triage's whole process group (setsid makes it one), as timeout, Slurm and a
# terminal send it, so the processes the triage runs after its report get it too.
for sig_delay in "TERM 0" "TERM 0.01" "TERM 0.05" "TERM 0.2" "INT 0" "HUP 0.1" "TERM 0 group" "TERM 0.3 group" \
  "HUP 0.05 group"; do
  read -r sig delay to <<<"$sig_delay"
  try=$((try + 1))
  VMR_TEST_PAUSE_AFTER_REPORT_S=0.6 RESULTS_DIR=$work/late$try setsid env --default-signal=INT \
    BUILD_DIR="$build" VMR_FAKE_GPUS=1 "$repo/scripts/triage" >"$work/late$try.out" 2>&1 &
  pid=$!
  target=$pid
  [ "${to-}" = group ] && target=-$pid
  for _ in $(seq 3000); do [ -e "$work/late$try/report.md" ] || ! kill -0 $pid 2>/dev/null && break; sleep 0.01; done
  [ -e "$work/late$try/report.md" ] || { cat "$work/late$try.out"; fail "try $try: the triage wrote no report"; }
  sleep "$delay"
  kill -"$sig" -- $target 2>/dev/null || echo "try $try: the triage had ended before SIG$sig (${delay} s after report.md)"
  wait $pid
  rc=$?
  [ $rc = 0 ] && [ ! -e "$work/late$try/INCOMPLETE" ] &&
    tail -n 1 "$work/late$try.out" | grep -q '^triage: ALL AS EXPECTED (exit 0): ' ||
    fail "SIG$sig ${delay} s after report.md (to ${to:-the triage}): exit $rc, INCOMPLETE: $(cat "$work/late$try/INCOMPLETE" 2>/dev/null || echo none), last line: $(tail -n 1 "$work/late$try.out")"
done
echo "$try signals after report.md changed nothing"

# An interrupt during the build (the first step; before any folder) is 99 with its line, promptly, and the build it
# started stops: never the shell's 130 or 143, which no exit table lists. The suite is seen through a root whose
# scripts/ is this one's and whose configure step waits (a marked sleep), by SIGTERM or SIGINT to the triage, and by
# SIGINT to its whole process group as Ctrl-C sends it.
root=$work/slow-root
mkdir -p "$root" && ln -sfn "$repo/scripts" "$root/scripts" && cp "$repo/CMakePresets.json" "$root/" || exit 1
printf 'cmake_minimum_required(VERSION 3.21)\nproject(planted NONE)\nexecute_process(COMMAND sleep 47.25)\n' >"$root/CMakeLists.txt"
sleeping() { ps -e -o pid=,args= | awk '$2 == "sleep" && $3 == "47.25" { print $1 }'; }
for how in TERM INT INT-group; do
  rm -rf "$work/slow-build"
  BUILD_DIR=$work/slow-build RESULTS_ROOT=$work/slow-results env --default-signal=INT setsid "$root/scripts/triage" \
    >"$work/slow-$how.out" 2>&1 &
  pid=$!
  for _ in $(seq 600); do [ -n "$(sleeping)" ] && break; sleep 0.05; done
  [ -n "$(sleeping)" ] || { cat "$work/slow-$how.out"; fail "$how: the planted configure never started"; }
  start=$(date +%s%N)
  case $how in
    INT-group) kill -INT -- -$pid ;;
    *) kill -$how $pid ;;
  esac
  wait $pid
  rc=$? took=$((($(date +%s%N) - start) / 1000000))
  [ $rc = 99 ] || { cat "$work/slow-$how.out"; fail "SIG$how during the build: exit $rc, want 99"; }
  tail -n 1 "$work/slow-$how.out" | grep -q "^triage: ERROR (exit 99): interrupted by SIG${how%-group} before the results folder was made; " ||
    fail "SIG$how during the build: the last line is $(tail -n 1 "$work/slow-$how.out")"
  [ "$took" -lt 5000 ] || fail "SIG$how during the build: it took $took ms to stop"
  for _ in $(seq 40); do [ -z "$(sleeping)" ] && break; sleep 0.05; done
  [ -z "$(sleeping)" ] || fail "SIG$how during the build: the build it started runs on"
  [ ! -e "$work/slow-results" ] || fail "SIG$how during the build: a results folder was made"
done
echo "an interrupted build: 99 with its line, the build stopped"

# On a terminal, a process group not in its foreground stops when it reads there (SIGTTIN), and where the terminal is
# set to `stty tostop`, when it writes there (SIGTTOU). The launch group (the progress lines) and the build (its log,
# through tee) write to it, a build step may read, so the groups read /dev/null and ignore SIGTTOU (in_group).
# script(1) (Debian's bsdutils) gives the triage that terminal, running the command with $SHELL; a stopped triage
# prints nothing more and meets the timeout's 60 s (124).
command -v script >/dev/null || fail "script(1) is missing (Debian: bsdutils)"
on_tostop_tty() {
  local cmd
  printf -v cmd '%q ' env "BUILD_DIR=$1" "RESULTS_DIR=$2" VMR_FAKE_GPUS=1 "$3/scripts/triage"
  SHELL=/bin/bash timeout 60 script -qec "stty tostop && $cmd" /dev/null </dev/null >"$2.out" 2>&1
}
stopped() { [ "$1" != 124 ] || echo " (timed out: stopped by SIGTTOU or SIGTTIN?)"; }
on_tostop_tty "$build" "$work/tostop" "$repo"
rc=$?
[ $rc = 0 ] && tail -n 1 "$work/tostop.out" | tr -d '\r' | grep -q '^triage: ALL AS EXPECTED (exit 0): ' ||
  { tail -n 3 "$work/tostop.out"; fail "a triage on a tostop terminal: exit $rc$(stopped $rc), want 0 with its last line"; }
printf 'cmake_minimum_required(VERSION 3.21)\nproject(planted NONE)\nexecute_process(COMMAND sh -c "read x")\nmessage(FATAL_ERROR "planted")\n' \
  >"$root/CMakeLists.txt"
rm -rf "$work/slow-build"
on_tostop_tty "$work/slow-build" "$work/tostop-build" "$root"
rc=$?
[ $rc = 99 ] && grep -q planted "$work/tostop-build.out" &&
  tail -n 1 "$work/tostop-build.out" | tr -d '\r' | grep -q '^triage: ERROR (exit 99): the build failed ' ||
  { tail -n 3 "$work/tostop-build.out"; fail "a build that reads its input and fails, on a tostop terminal: exit $rc$(stopped $rc), want 99 with its log shown"; }
echo "on a tostop terminal: the triage and its build's log go on; a build step that reads gets no terminal"
