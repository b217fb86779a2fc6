#!/usr/bin/env bash
# Ctrl-C in a run of several cases: the case in progress is HARNESS "interrupted", and the cases it left unstarted
# are named on the VERDICT line ("not run: ...") and in the record's not_run; the run is HARNESS (99), never the
# most severe verdict of the cases that happened to finish.
#   usage: interrupt_not_run.sh BIN WORK_DIR
set -uo pipefail
bin=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
# fault ends the first life (CRASH); hang blocks the second until the interrupt; peer-exit never starts (cases run
# in the binary's order: read, atomics, fault, hang, peer-exit).
"$bin" --case fault --case hang --case peer-exit --timeout 60 --json run.json >out 2>err &
pid=$!
for _ in $(seq 300); do grep -q '^--- fresh ranks' out && break; sleep 0.1; done
grep -q '^--- fresh ranks' out || { kill -KILL $pid; fail "the second life never started: $(cat out)"; }
sleep 0.5
kill -INT $pid
wait $pid; rc=$?
last=$(tail -n 1 out)
want="VERDICT: HARNESS repro_host_shm.fault+hang+peer-exit interrupted by SIGINT; not run: peer-exit; CRASH: fault; HARNESS: hang"
[ $rc = 99 ] && [ "$last" = "$want" ] || fail "exit $rc (want 99), last line '$last' (want '$want')"
python3 - run.json <<'PY' || fail "the record does not say it: $(head -c 400 run.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "HARNESS" and r["exit_code"] == 99, r["verdict"]
assert r["not_run"] == ["peer-exit"], r["not_run"]
assert [c["case"] for c in r["cases"]] == ["fault", "hang"], r["cases"]
assert "not run: peer-exit" in r["detail"], r["detail"]
PY
echo "ok: $last"
