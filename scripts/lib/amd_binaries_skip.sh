#!/usr/bin/env bash
# Inside a real-ROCm root (scripts/lib/rocm_root.sh), on a machine with no AMD GPU: every binary of the manifest but
# the CUDA one must be built, and every AMD binary must list its cases and SKIP each of them with the real runtime's
# own answer (a call that "returned" something), never PASS, FAIL, CRASH or HARNESS. Usage: amd_binaries_skip.sh BIN
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/case_list.sh"
bin=${1:?usage: amd_binaries_skip.sh BIN_DIR}
bad=0
list=$(mktemp) || exit 1
trap 'rm -f "$list"' EXIT
say() { printf '%s\n' "$*"; }
while IFS=$'\t' read -r name backend toolchain _; do
  case "$name" in '#'*) continue ;; esac
  if [ "$backend" = cuda ]; then
    say "  $name ($backend): not expected here (no nvcc in the root)"
    continue
  fi
  if [ "$toolchain" != ok ] || [ ! -x "$bin/$name" ]; then
    say "  $name ($backend): NOT BUILT"
    bad=1
    continue
  fi
  [ "$backend" = host ] && { say "  $name ($backend): built"; continue; }
  # Its cases as the tools read them (listed the one way, read by check_expected), every one: --all runs them all.
  cases=$(vmr_list_cases "$bin/$name" "$list" 2>&1 && "$bin/check_expected" --cases "$list" --with-opt-in 2>&1)
  s=$?
  n=$(printf '%s\n' "$cases" | grep -c '^[a-z0-9-]*$')
  if [ $s != 0 ] || [ "$n" = 0 ]; then
    say "  $name ($backend): --list --json and check_expected --cases gave no cases (exit $s): $cases"
    bad=1
    continue
  fi
  out=$("$bin/$name" --all 2>/dev/null)
  s=$?
  results=$(printf '%s\n' "$out" | grep '^RESULT: ')
  skips=$(printf '%s\n' "$results" | grep -cE "^RESULT: SKIP $name\.[^ ]+ .* returned ")
  if [ $s = 77 ] && [ "$skips" = "$n" ] && [ "$(printf '%s\n' "$results" | wc -l)" = "$n" ]; then
    say "  $name ($backend): $n cases, each SKIP: $(printf '%s\n' "$results" | head -n 1 | cut -d' ' -f4-)"
  else
    say "  $name ($backend): expected exit 77 and $n SKIPs naming the runtime's answer; got exit $s:"
    printf '%s\n' "$out" | tail -n $((n + 1)) | sed 's/^/    /'
    bad=1
  fi
done <"$bin/manifest.txt"
exit $bad
