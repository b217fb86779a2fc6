#!/usr/bin/env bash
# scripts/mutate and scripts/stress read ctest's log: the failed tests' names and the summary line, in the forms of
# CMake 3.25 (Debian 12, CI) and 4.x (the H200 node's, which adds each failed test's labels after its status).
# An unread list of failures made every mutant "survive" there; a log without a summary must read as "not run".
#   usage: ctest_logs.sh REPO WORK_DIR
set -uo pipefail
repo=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
source "$repo/scripts/lib/common.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }

printf '%s\n' '97% tests passed, 3 tests failed out of 99' '' 'Total Test time (real) = 101.50 sec' '' \
  'The following tests FAILED:' $'\t 73 - hardening (Failed)' $'\t  6 - repro_host_shm.read (Timeout)' \
  $'\t 12 - repro_host_shm.fault (SEGFAULT)' 'Errors while running CTest' >cmake325.log
printf '%s\n' '98% tests passed, 2 tests failed out of 83' '' 'Label Time Summary:' 'harness    =  21.75 sec*proc (1 test)' '' \
  'The following tests FAILED:' $'\t 73 - hardening (Failed)                                harness' \
  $'\t 12 - repro_cuda_vmm.fault (Subprocess aborted)           cuda gpu' 'Errors while running CTest' >cmake4.log
printf '%s\n' '100% tests passed out of 83' '' 'Total Test time (real) = 368.02 sec' >cmake4-pass.log
printf '%s\n' 'Test project /nowhere' 'No tests were found!!!' >none.log

[ "$(vmr_ctest_failed cmake325.log | paste -sd,)" = "hardening,repro_host_shm.read,repro_host_shm.fault" ] ||
  fail "CMake 3.25 failed list read as '$(vmr_ctest_failed cmake325.log | paste -sd,)'"
[ "$(vmr_ctest_failed cmake4.log | paste -sd,)" = "hardening,repro_cuda_vmm.fault" ] ||
  fail "CMake 4 failed list (labels after the status) read as '$(vmr_ctest_failed cmake4.log | paste -sd,)'"
[ -z "$(vmr_ctest_failed cmake4-pass.log)" ] || fail "a passing log named a failed test"
[ "$(vmr_ctest_summary cmake325.log)" = "97% tests passed, 3 tests failed out of 99" ] || fail "CMake 3.25 summary"
[ "$(vmr_ctest_summary cmake4.log)" = "98% tests passed, 2 tests failed out of 83" ] || fail "CMake 4 summary"
[ "$(vmr_ctest_summary cmake4-pass.log)" = "100% tests passed out of 83" ] || fail "CMake 4 all-passed summary"
vmr_ctest_summary none.log >/dev/null && fail "a log without tests gave a summary"
echo "ok: ctest logs of CMake 3.25 and 4 read alike; a log without a summary is refused"
