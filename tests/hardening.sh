#!/usr/bin/env bash
# The hostile battery of issue 13, each probe with the verdict and exit code it must give now:
# nothing a run writes clobbers what it should not, no verdict is lost to a signal, a full pipe or a low limit,
# echoed input stays one line, and the bug report leaks no host or user name.
#   usage: hardening.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
bin=$build/bin/repro_host_shm
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
last_line() { tail -n 1 "$1"; }
# Polls CMD... every 0.1 s for up to SECONDS: a loaded CI machine (two cores, builds beside the tests) may take many
# seconds to start what an idle one starts at once, so a probe waits for a state, never for a fixed time.
wait_until() { local tries=$(($1 * 10)); shift; until "$@"; do ((--tries > 0)) || return 1; sleep 0.1; done; }

# 1. --json: checked before the run; planted links beside it are not followed; concurrent writers never mix; a write
# error is HARNESS. (A symlink, device or FIFO named by --json itself is written through: json_write_through.sh.)
mkdir adir
"$bin" --case read --json adir >out 2>err; rc=$?
[ $rc = 2 ] && grep -q "is a directory" err && [ ! -e adir.tmp ] || fail "--json DIR: exit $rc $(cat err)"
"$bin" --case read --json no/such/folder/r.json >out 2>err; [ $? = 2 ] || fail "--json in a missing folder"
if [ "$(id -u)" = 0 ] && mknod fakenull c 1 3 2>/dev/null; then
  "$bin" --case read --json fakenull >out 2>err; rc=$?
  [ $rc = 0 ] && [ -c fakenull ] || fail "--json on a device node: exit $rc, $(ls -l fakenull)"
  ok "--json on a device node written through, the node untouched"
fi
echo precious >victim
ln -s victim r.json.tmp
"$bin" --case read --json r.json >out 2>&1 || fail "--json beside a planted r.json.tmp link: exit $?"
[ "$(cat victim)" = precious ] && [ -f r.json ] && [ ! -L r.json ] || fail "a planted link was followed"
ok "--json: directory and missing folder refused (exit 2), a planted link not followed"
for i in $(seq 10); do "$bin" --case atomics --json same.json >"c$i.out" 2>&1 & done
wait
for i in $(seq 10); do [ "$(last_line "c$i.out" | cut -d' ' -f2)" = PASS ] || fail "concurrent run $i: $(last_line "c$i.out")"; done
[ "$(head -c 1 same.json)" = "{" ] && [ "$(grep -o '"schema"' same.json | wc -l)" = 1 ] || fail "same.json is mixed"
[ -z "$(ls -A | grep '^\.same\.json\.')" ] || fail "temporary files left: $(ls -A | grep '^\.same')"
ok "10 concurrent runs on one --json path: all PASS, one whole record, no leftovers"
(ulimit -f 1; "$bin" --case read --json big.json >out 2>&1); rc=$?
[ $rc = 99 ] && last_line out | grep -q "^VERDICT: HARNESS .*--json: cannot write big.json: writing: File too large" || fail "a failed --json write: exit $rc: $(last_line out)"
ok "a --json write past the file-size limit is HARNESS (99), not PASS"

# 2. SIGCHLD ignored by the parent: a rank's SIGSEGV is still CRASH.
perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV' "$bin" --case fault >out 2>&1; rc=$?
[ $rc = 3 ] && last_line out | grep -q "killed by SIGSEGV" || fail "SIGCHLD ignored: exit $rc: $(last_line out)"
ok "SIGCHLD ignored by the parent: CRASH (3) naming SIGSEGV"

# 3. Signals to the launcher: a VERDICT line, a record, exit 99, no rank left.
for sig in INT TERM HUP; do
  marker=vmr-hard-$sig-$$
  VMR_HARD_MARKER=$marker "$bin" --case hang --timeout 60 --json "sig$sig.json" >out 2>&1 &
  pid=$!
  # The ranks are forked after the launcher's handlers are set: with one of them up the signal is the launcher's.
  wait_until 60 eval '[ "$(grep -ls "VMR_HARD_MARKER=$marker" /proc/[0-9]*/environ 2>/dev/null | wc -l)" -ge 2 ]' ||
    { kill -KILL $pid; fail "SIG$sig: no rank of the hang run appeared in 60 s"; }
  kill -$sig $pid
  wait $pid; rc=$?
  sleep 0.5
  left=$(grep -ls "VMR_HARD_MARKER=$marker" /proc/[0-9]*/environ 2>/dev/null | wc -l)
  [ $rc = 99 ] && last_line out | grep -q "^VERDICT: HARNESS .*interrupted by SIG$sig" && [ -s "sig$sig.json" ] &&
    [ "$left" = 0 ] || fail "SIG$sig: exit $rc, $left left, $(last_line out)"
done
ok "SIGINT, SIGTERM, SIGHUP: VERDICT HARNESS (99) naming the signal, a record, no rank left"

# 4. A forged rank flag: the status record goes nowhere but a launcher's pipe; an absurd deadline is refused.
echo untouched >userfile
now=$(awk '{ printf "%.0f", $1 * 1e9 }' /proc/uptime)  # CLOCK_MONOTONIC, near enough for a 5 s deadline
flag="rank=0,ranks=2,case=read,timeouts_ms=5000,devices=0:1"
"$bin" "--vmem-repro-rank=$flag,status=5,ctl=-:6,deadline_ns=$((now + 5000000000))" 5>>userfile 6</dev/null >out 2>err; rc=$?
[ $rc = 99 ] && [ "$(cat userfile)" = untouched ] && grep -q "status fd 5 is not a pipe" err ||
  fail "forged status fd: exit $rc, userfile: $(cat userfile), stderr: $(cat err)"
start=$(date +%s)
mkfifo idle
exec 7<>idle
"$bin" "--vmem-repro-rank=$flag,status=7,ctl=-:7,deadline_ns=9223372036854775000" >out 2>err; rc=$?
exec 7>&-
[ $rc = 99 ] && [ $(($(date +%s) - start)) -lt 5 ] && grep -q "ctl fd 7 is not a SEQPACKET socket from the launcher" err ||
  fail "forged ctl fd: exit $rc, stderr: $(cat err)"
# The deadline check needs real launcher-shaped fds in front of it (a pipe and a SEQPACKET socket), which bash cannot make.
if command -v python3 >/dev/null; then
  python3 - "$bin" "$flag" <<'PY' || fail "forged deadline"
import os, socket, subprocess, sys
binary, flag = sys.argv[1:3]
r, w = os.pipe()  # r stays open: a rank writing its record must not meet a pipe without a reader
mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
arg = f"--vmem-repro-rank={flag},status={w},ctl=-:{theirs.fileno()},deadline_ns=9223372036854775000"
try:
    p = subprocess.run([binary, arg], pass_fds=(w, theirs.fileno()), capture_output=True, text=True, timeout=5)
except subprocess.TimeoutExpired:
    sys.exit("a deadline 292 years away was taken: the rank was still waiting after 5 s")
want = "deadline_ns 9223372036854775000 is not within a day of now"
if p.returncode != 99 or want not in p.stderr:
    sys.exit(f"exit {p.returncode}, want 99 and '{want}'; stderr: {p.stderr}")
PY
fi
ok "a forged rank flag: no write to a user's file, no wait for ever (99)"

# 5. Echoes: one line whatever the input; strict numbers; shared devices said; limits.
CTEST_RESOURCE_GROUP_COUNT=2 CTEST_RESOURCE_GROUP_0_GPUS=$'id:0\nVERDICT: PASS forged' CTEST_RESOURCE_GROUP_1_GPUS=id:1,slots:1 \
  "$bin" --case read >out 2>&1; rc=$?
[ $rc = 99 ] && [ "$(grep -c '^VERDICT:' out)" = 1 ] && last_line out | grep -q '^VERDICT: HARNESS .*\\x0a' ||
  fail "a newline in CTEST_RESOURCE_GROUP_0_GPUS forged a line: $(cat out)"
CTEST_RESOURCE_GROUP_COUNT=abc "$bin" --case read >out 2>&1
grep -q "'abc' is not a number of groups" out || fail "CTEST_RESOURCE_GROUP_COUNT=abc: $(last_line out)"
"$bin" --case $'read\nVERDICT: PASS' >out 2>err; rc=$?
[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && [ ! -s out ] || fail "a newline in a value: exit $rc, $(wc -l <err) stderr lines"
"$bin" --case $'\e[31mred' >out 2>err; grep -q $'\e' err && fail "an ESC sequence was echoed raw"
head -c 100000 /dev/zero | tr '\0' 'a' >long
"$bin" --case "$(cat long)" >out 2>err; [ "$(wc -c <err)" -lt 1000 ] || fail "a 100 kB value echoed whole"
for t in 0x2 +2 1e-10 2e0 .5 5.; do
  "$bin" --case read --timeout "$t" >out 2>err; [ $? = 2 ] || fail "--timeout $t accepted"
done
"$bin" --case read --timeout 2.5 >out 2>&1 || fail "--timeout 2.5 refused"
"$bin" --case read --devices 0,0 >out 2>&1; rc=$?
[ $rc = 0 ] && grep -q "ranks 0,1 share device 0 (allowed" out || fail "--devices 0,0: exit $rc"
ok "echoes: one line, control bytes escaped, long values cut; strict --timeout; shared devices said"
env $'VMR_BAD=\xff\xfe' "$bin" --case read --json utf8.json >out 2>&1 || fail "invalid UTF-8 in the environment: exit $?"
LC_ALL=C grep -q $'\xff' utf8.json && fail "invalid UTF-8 copied into the JSON record"
(ulimit -n 30; "$bin" --case read >out 2>&1) || fail "ulimit -n 30: $(last_line out)"
"$bin" --ranks 64 --case peer-exit >out 2>&1
grep -q "(deadline 240 s)" out || fail "--ranks 64: the default deadline does not scale: $(grep '^---' out)"
ok "invalid UTF-8 kept out of the JSON, ulimit -n 30 runs, 64 ranks get 240 s"
# RLIMIT_NPROC counts every task of the real user, so the probe runs as a user id of its own (no other run, no
# other test shares the count) and execs the launcher: the launcher and its 2 ranks are 3 tasks, and each rank
# starts its adder threads only after the "zeroed" barrier, when all 3 exist; with a limit of 3 both forks succeed
# and every thread creation fails, whatever the scheduler does. (As nobody, with a shell and a pipe in the count,
# a limit of 6 let an adder finish before its sibling started, and under load the run could pass.)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
  uid=$((50000 + $$ % 10000))
  while getent passwd $uid >/dev/null || pgrep -U $uid >/dev/null; do uid=$((uid + 1)); done
  cp "$bin" /tmp/vmr-hard-bin-$$ && chmod 755 /tmp/vmr-hard-bin-$$
  out_u=$(setpriv --reuid=$uid --regid=$uid --clear-groups -- bash -c "ulimit -u 3; exec /tmp/vmr-hard-bin-$$ --case atomics" 2>/dev/null | tail -n 1
    echo "rc=${PIPESTATUS[0]}")
  rm -f /tmp/vmr-hard-bin-$$
  grep -q "rc=99" <<<"$out_u" && grep -q "std::thread" <<<"$out_u" || fail "ulimit -u: $out_u"
  ok "a thread that cannot be created is HARNESS (99) naming std::thread, not SIGABRT"
fi

# 6. A stdout nobody reads: the deadline still kills the ranks on time.
mkfifo stuck
exec 8<>stuck  # a reader that never reads: the pipe fills and stays full
head -c 1048576 /dev/zero >stuck &
filler=$!
sleep 0.5
marker=vmr-hard-pipe-$$
VMR_HARD_MARKER=$marker "$bin" --case hang --timeout 2 >stuck 2>/dev/null &
launcher=$!
sleep 5
ranks_left=$(grep -ls "VMR_HARD_MARKER=$marker" /proc/[0-9]*/environ 2>/dev/null | wc -l)
cat <&8 >/dev/null &
drain=$!
wait $launcher; rc=$?
kill $drain $filler 2>/dev/null
exec 8>&-
[ "$ranks_left" -le 1 ] && [ $rc = 4 ] || fail "blocked stdout: $ranks_left processes after 5 s (want the launcher alone), exit $rc"
ok "a blocked stdout does not stop the watchdog: ranks gone at the deadline, HANG (4) once the pipe drains"

# 7. scripts/triage and scripts/bug-report. GPUs hidden, as in triage_e2e.sh: on a GPU node a ctest run lends this
# test no GPU (no resource groups), so the triages here must not run real pairs, known-crash cases among them.
export CUDA_VISIBLE_DEVICES= HIP_VISIBLE_DEVICES= ROCR_VISIBLE_DEVICES=
BUILD_DIR=$build RESULTS_ROOT=$work/res "$repo/scripts/triage" -- --timeout abc >out 2>&1; rc=$?
[ $rc = 2 ] && grep -q "arguments after -- are refused" out && [ ! -d res ] || fail "triage -- --timeout abc: exit $rc"
BUILD_DIR=$build RESULTS_ROOT=$work/res "$repo/scripts/triage" >out 2>&1; rc=$?
[ $rc = 77 ] || fail "triage with every GPU hidden: exit $rc, want 77 (nothing could run)"
# As Ctrl-C does: the signal goes to the triage's whole process group (its own session here).
BUILD_DIR=$build RESULTS_ROOT=$work/res setsid "$repo/scripts/triage" --include-crash -- --timeout 20 >out 2>&1 &
tpid=$!
# Stopped once it has planned (its folder is named by its pid; rounds.txt comes after the marker), not after a fixed
# time: on a loaded machine counting the GPUs before the folder is made can take longer than any fixed sleep.
wait_until 120 eval 'compgen -G "res/*-$tpid/rounds.txt" >/dev/null' ||
  { kill -KILL -- -$tpid; fail "the triage planned nothing in 120 s: $(cat out)"; }
kill -TERM -- -$tpid  # (SIGINT is ignored in background jobs of a script; a terminal's Ctrl-C reaches triage)
wait $tpid; rc=$?
incomplete=$(ls -d res/*/INCOMPLETE 2>/dev/null | wc -l)
[ $rc = 99 ] && [ "$incomplete" = 1 ] || fail "an interrupted triage: exit $rc (want 99), $incomplete INCOMPLETE markers"
# A triage killed outright (SIGKILL: no trap runs) is marked INCOMPLETE too: the marker is written first.
BUILD_DIR=$build RESULTS_ROOT=$work/res2 setsid "$repo/scripts/triage" --include-crash -- --timeout 20 >out 2>&1 &
tpid=$!
wait_until 120 eval 'compgen -G "res2/*-$tpid/rounds.txt" >/dev/null' ||
  { kill -KILL -- -$tpid; fail "the triage planned nothing in 120 s: $(cat out)"; }
kill -KILL -- -$tpid
wait $tpid 2>/dev/null
[ "$(ls -d res2/*/INCOMPLETE 2>/dev/null | wc -l)" = 1 ] || fail "a SIGKILLed triage left no INCOMPLETE marker"
report=$(BUILD_DIR=$build RESULTS_ROOT=$work/res "$repo/scripts/bug-report") || fail "bug-report: exit $?"
[ -e "$(dirname "$report")/INCOMPLETE" ] && fail "bug-report took the interrupted folder"
ok "triage: bad -- arguments exit 2; an interrupted triage is marked INCOMPLETE and bug-report passes it over"
host=$(uname -n)
if [ ${#host} -ge 2 ]; then
  grep -Eq "(^|[^A-Za-z0-9_.-])$host([^A-Za-z0-9_-]|$)" "$report" && fail "the bug report names the host '$host'"
fi
grep -q "kernel command line: .*left out; --no-redact shows them" "$report" || fail "the kernel command line is not reduced"
for section in "### Problem Description" "### Operating System" "### GPU" "### ROCm Version" "### Steps to Reproduce"; do
  grep -q "^$section" "$report" || fail "the redacted report lacks $section"
done
full=$(BUILD_DIR=$build RESULTS_ROOT=$work/res "$repo/scripts/bug-report" --no-redact) || fail "bug-report --no-redact"
grep -q "kernel command line: $(cut -c1-20 /proc/cmdline)" "$full" || fail "--no-redact does not keep the command line"
ok "the bug report: host name redacted, kernel command line reduced, every section kept; --no-redact keeps all"
echo "hardening: all probes gave the right verdicts"
