#!/usr/bin/env bash
# Every file the tools write goes through one writer (tools/report.h: the harness's atomic write; a device such as
# /dev/full is written in place, every call checked): a file that cannot be written is exit 99 and one line naming
# it with errno's text, never "written", and a write that fails midway leaves the file that was there whole.
# Runs as root too (CI does): a folder root cannot write is not a failure root sees, so the failures here are a path
# under a regular file, a full device and a file-size limit.
#   usage: tool_write_failures.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work/results" "$work/ok" "$work/kept"
fail() { echo "FAIL: $*" >&2; exit 1; }
check=$build/bin/check_expected
table=$repo/expected/verdicts.md
printf '%s\n' '{"schema":"vmem-repro-run/1","binary":"repro_host_shm","backend":"host","verdict":"PASS",
"environment":{"os":"test"},"cases":[{"case":"read","verdict":"PASS","detail":"read exactly","ranks":[{"info":{}}]}]}' \
  >"$work/results/repro_host_shm.read.json"
compare() { "$check" --table "$table" --results "$work/results" "$@"; }
report() {  # report OUT SUMMARY [ARGS...]: check_expected's report.md mode
  local out=$1 summary=$2
  shift 2
  "$check" --report-md "$out" --summary "$summary" --launches 3 --took 1.5 --modelled 0.5 --concurrency "each round" \
    --note "host: 2 GPUs" "$@"
}
# expect_99 NAME PREFIX SUFFIX COMMAND...: exit 99 and one line on stderr, starting with PREFIX and ending with SUFFIX.
expect_99() {
  local name=$1 prefix=$2 suffix=$3 rc line
  shift 3
  "$@" >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
  [ $rc = 99 ] || fail "$name: exit $rc, want 99: $(cat "$work/$name.err")"
  [ "$(wc -l <"$work/$name.err")" = 1 ] || fail "$name: want one line on stderr, got: $(cat "$work/$name.err")"
  line=$(cat "$work/$name.err")
  [[ "$line" == "$prefix"*"$suffix" ]] || fail "$name: '$line' is not '$prefix...$suffix'"
}
# The command under a file-size limit of 1 KiB (SIGXFSZ ignored, so the write fails with EFBIG), stdout dropped.
limited() { bash -c 'trap "" XFSZ; ulimit -f 1; exec "$@" >/dev/null' limited "$@"; }

# Written: every output there, and nothing else (no temporary file left beside them).
compare --summary-json "$work/ok/summary.json" --markdown "$work/ok/verdicts.md" --junit "$work/ok/junit.xml" \
  >/dev/null || fail "the outputs into a folder that takes them: exit $?"
[ "$(ls -A "$work/ok" | paste -sd' ')" = "junit.xml summary.json verdicts.md" ] || fail "left: $(ls -A "$work/ok")"
report "$work/ok/report.md" "$work/ok/summary.json" || fail "report.md from summary.json: exit $?"
[ "$(ls -A "$work/ok" | wc -l)" = 4 ] || fail "report.md: left $(ls -A "$work/ok")"

# 1. A path under a regular file (ENOTDIR): each output of each mode, one line naming it.
: >"$work/a-file"
for flag in --summary-json --markdown --junit; do
  expect_99 "compare$flag" "check_expected: cannot write $work/a-file/out: " ": Not a directory" \
    compare "$flag" "$work/a-file/out"
done
# (bug-report's files, from the summary and the records)
for flag in --markdown --failing-tsv --failures-md --gpus-md --backends-ran --rocm-md --junit; do
  expect_99 "from-summary$flag" "check_expected: cannot write $work/a-file/out: " ": Not a directory" \
    "$check" --from-summary "$work/ok/summary.json" --results "$work/results" "$flag" "$work/a-file/out"
done
expect_99 report-md "check_expected: cannot write $work/a-file/report.md: " ": Not a directory" \
  report "$work/a-file/report.md" "$work/ok/summary.json"
cp -r "$work/results" "$work/node" && cp "$work/ok/summary.json" "$work/node/"  # (a node folder: its summary)
expect_99 fleet "fleet_report: cannot write $work/a-file/fleet.xml: " ": Not a directory" \
  "$build/bin/fleet_report" --out "$work/ok" --junit "$work/a-file/fleet.xml" "$work/node"
grep -q "fleet report:" "$work/fleet.out" && fail "fleet_report claims its report written: $(cat "$work/fleet.out")"

# 2. A full device: written in place (a device cannot be renamed over; /dev/full must stay what it is).
expect_99 full "check_expected: cannot write /dev/full: " "No space left on device" compare --junit /dev/full
[ -c /dev/full ] || fail "/dev/full is no longer a character device"
# An answer on standard output that cannot be written is no answer: 99 and one line, never the 0 of a mode that
# answered (the triage once took an empty case list from a write to a full disk for a binary with no case).
to_full() { "$@" >/dev/full; }
"$build/bin/repro_host_shm" --list --json "$work/list.json" >/dev/null || fail "repro_host_shm --list --json: exit $?"
expect_99 stdout-cases "check_expected: cannot write standard output: " "No space left on device" \
  to_full "$check" --cases "$work/list.json"
expect_99 stdout-counts "check_expected: cannot write standard output: " "No space left on device" \
  to_full "$check" --counts "$work/ok/summary.json"

# 3. A write that fails midway (EFBIG past the limit): exit 99, and the file that was there is whole, with no
#    temporary file left beside it.
echo "the report before" >"$work/kept/verdicts.md"
expect_99 efbig "check_expected: cannot write $work/kept/verdicts.md: " "File too large" \
  limited "$check" --table "$table" --results "$work/results" --markdown "$work/kept/verdicts.md"
[ "$(cat "$work/kept/verdicts.md")" = "the report before" ] || fail "a failed write changed the old report"
[ "$(ls -A "$work/kept")" = verdicts.md ] || fail "a failed write left $(ls -A "$work/kept")"
echo "the report before" >"$work/kept/report.md"
expect_99 efbig-report "check_expected: cannot write $work/kept/report.md: " "File too large" \
  limited "$check" --report-md "$work/kept/report.md" --summary "$work/ok/summary.json" --launches 3 --took 1.5 \
  --modelled 0.5 --concurrency "each round"
[ "$(cat "$work/kept/report.md")" = "the report before" ] || fail "a failed write changed the old report.md"

# 4. The report.md mode's inputs: a summary it cannot read or that is not one is 99 naming it; bad arguments are 2.
expect_99 no-summary "check_expected: cannot read --summary $work/none.json" "" report "$work/r.md" "$work/none.json"
echo '{"schema":"vmem-repro-run/1"}' >"$work/not-summary.json"
expect_99 not-summary "check_expected: $work/not-summary.json is not a summary" "" \
  report "$work/r.md" "$work/not-summary.json"
[ ! -e "$work/r.md" ] || fail "a report.md was written from no summary"
for bad in "--launches x" "--took -1" "--modelled 1e3" "--concurrency ''" "--bogus 1"; do
  eval "report '$work/r.md' '$work/ok/summary.json' $bad" >/dev/null 2>"$work/bad.err"
  rc=$?
  [ $rc = 2 ] || fail "report.md with $bad: exit $rc, want 2"
done
echo "tool writes: each failure exit 99 and one line naming the file; a failed write keeps the old file whole"
