#!/usr/bin/env bash
# A launcher killed by SIGKILL (it cannot clean up) leaves no rank behind: each rank asked for PR_SET_PDEATHSIG.
# usage: launcher_sigkill.sh BINARY
set -uo pipefail
bin=$1
marker=vmr-sigkill-$$-$RANDOM
ours() { grep -ls "VMR_SIGKILL_TEST_MARKER=$marker" /proc/[0-9]*/environ 2>/dev/null | wc -l; }
VMR_SIGKILL_TEST_MARKER=$marker "$bin" --case hang --ranks 3 --timeout 60 >/dev/null 2>&1 &
launcher=$!
for _ in $(seq 100); do [ "$(ours)" -ge 4 ] && break; sleep 0.1; done  # the launcher and its 3 ranks
n=$(ours)
[ "$n" -ge 4 ] || { kill -9 $launcher; echo "FAIL: only $n processes of the run appeared" >&2; exit 1; }
kill -9 $launcher
wait $launcher 2>/dev/null
for _ in $(seq 50); do [ "$(ours)" = 0 ] && break; sleep 0.1; done
left=$(ours)
if [ "$left" != 0 ]; then
  echo "FAIL: $left process(es) of the run outlived the SIGKILLed launcher" >&2
  grep -ls "VMR_SIGKILL_TEST_MARKER=$marker" /proc/[0-9]*/environ | sed 's,/environ,,;s,/proc/,,' | xargs -r kill -9
  exit 1
fi
echo "launcher SIGKILLed with $((n - 1)) ranks running: none outlived it"
