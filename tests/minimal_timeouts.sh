#!/usr/bin/env bash
# How a minimal reproducer's end is read (scripts/lib/minimal.sh, which bug-report --run-minimal and
# tests/minimal_agree.sh use), and the host one's own deadline:
#   - each exit code as the verdict contract names it: 124 (`timeout` ended a file that has no deadline of its own)
#     is HANG like 4; 127 is SKIP only where the loader found no libcuda.so.1;
#   - host_shm_atomics whose peer never finishes (stopped here) says HANG and exits 4 when its 60 s are up, not
#     before, and its peer is killed, not left behind.
#   tests/minimal_timeouts.sh REPO_ROOT BIN_DIR
set -uo pipefail
root=$1 bin=$2 status=0
say_fail() { echo "FAIL: $*"; status=1; }
VMR_ROOT=$root
source "$root/scripts/lib/minimal.sh"

no_driver="./cuda_vmm_atomics: error while loading shared libraries: libcuda.so.1: cannot open shared object file"
while read -r code output want; do
  [ "$output" = - ] && output="" || output=$no_driver
  got=$(vmr_minimal_verdict "$code" "$output")
  [ "$got" = "$want" ] || say_fail "exit $code${output:+ (no libcuda.so.1)} reads as $got, expected $want"
done <<'EOF'
0 - PASS
1 - FAIL
2 - USAGE
3 - CRASH
4 - HANG
124 - HANG
77 - SKIP
99 - HARNESS
127 no-driver SKIP
127 - exit-127
137 - exit-137
125 - exit-125
EOF
echo "minimal_timeouts: every exit code reads as the verdict contract names it (124: HANG)"

# The deadline: the peer is stopped as soon as it exists, so it never finishes its adds (a run whose peer finished
# first is tried again).
program=$bin/minimal/min_host_shm_atomics
[ -x "$program" ] || { say_fail "$program is not built"; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for attempt in 1 2 3 4 5; do
  start=$SECONDS
  "$program" >"$out" 2>&1 &
  owner=$!
  peer=
  while [ -z "$peer" ] && kill -0 "$owner" 2>/dev/null; do
    peer=$(cat "/proc/$owner/task/$owner/children" 2>/dev/null | awk '{ print $1 }')
  done
  [ -n "$peer" ] && kill -STOP "$peer" 2>/dev/null || peer=
  if [ -n "$peer" ] && sleep 0.2 && [ "$(awk '{ print $3 }' "/proc/$peer/stat" 2>/dev/null)" = T ]; then break; fi
  wait "$owner"
  echo "minimal_timeouts: attempt $attempt: the peer finished before it was stopped; again"
  peer=
done
[ -n "$peer" ] || { say_fail "the peer of $program could not be stopped in 5 attempts"; exit 1; }
wait "$owner"
rc=$? took=$((SECONDS - start))
[ "$rc" = 4 ] || say_fail "a peer that never finishes: exit $rc, expected 4 (HANG): $(cat "$out")"
grep -qx "VERDICT: HANG host_shm_atomics the peer did not finish in 60 s" "$out" ||
  say_fail "a peer that never finishes: no HANG line: $(cat "$out")"
[ "$took" -ge 59 ] && [ "$took" -le 75 ] || say_fail "the deadline of 60 s ended the run after $took s"
# The killed peer is reaped by whoever inherits it: up to 10 s for that on a loaded machine, polled.
for _ in $(seq 100); do
  state=$(awk '{ print $3 }' "/proc/$peer/stat" 2>/dev/null)
  [ -z "$state" ] || [ "$state" = Z ] && break
  sleep 0.1
done
[ -z "$state" ] || [ "$state" = Z ] || { kill -KILL "$peer"; say_fail "the stopped peer $peer was left behind ($state)"; }
echo "minimal_timeouts: host_shm_atomics with a peer that never finishes: exit $rc after $took s, peer killed"
exit $status
