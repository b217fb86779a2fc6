#!/usr/bin/env bash
# A minimal reproducer (repro/minimal/) and the suite's case it stands for must give the same verdict on the same
# machine: the minimal runs first (on a GPU it prints "devices: A,B", the pair it used), then the suite's case on
# that pair. Exit 0 when they agree on a verdict that ran, 77 when both SKIP (nothing to compare here), 1 otherwise.
#   tests/minimal_agree.sh MINIMAL_BINARY SUITE_BINARY CASE
set -uo pipefail
minimal=$1 suite=$2 case=$3
[ -x "$minimal" ] && [ -x "$suite" ] || { echo "minimal_agree: $minimal or $suite is not built"; exit 1; }
verdict_of() {  # an exit code as the suite's verdict contract names it
  case $1 in
    0) echo PASS ;; 1) echo FAIL ;; 2) echo USAGE ;; 3) echo CRASH ;; 4 | 124) echo HANG ;; 77) echo SKIP ;; 99) echo HARNESS ;;
    *) echo "exit-$1" ;;
  esac
}
out=$(timeout 80 "$minimal" 2>&1)  # 124: a minimal file has no deadline of its own
rc=$?
m=$(verdict_of $rc)
# A program linked to the driver API cannot start without the NVIDIA driver: that is the suite's SKIP "no NVIDIA
# driver", not a failure of the program.
if [ "$rc" = 127 ] && grep -q 'libcuda.so.1: cannot open shared object file' <<<"$out"; then
  m=SKIP
  out="VERDICT: SKIP (the loader found no libcuda.so.1: no NVIDIA driver)"
fi
devices=$(printf '%s\n' "$out" | sed -n 's/^devices: \([0-9,]*\)$/\1/p' | head -n 1)
args=(--case "$case")
[ -n "$devices" ] && args+=(--devices "$devices")
suite_out=$(timeout 80 "$suite" "${args[@]}" 2>&1)
s=$(verdict_of $?)
echo "minimal: $(printf '%s\n' "$out" | grep '^VERDICT:' | tail -n 1)"
echo "suite:   $(printf '%s\n' "$suite_out" | grep '^VERDICT:' | tail -n 1)"
name=$(basename "$minimal")
if [ "$m" != "$s" ]; then
  echo "minimal_agree: DISAGREE: $name says $m, $(basename "$suite").$case says $s${devices:+ (devices $devices)}"
  exit 1
fi
echo "minimal_agree: $name and $(basename "$suite").$case agree: $m${devices:+ (devices $devices)}"
[ "$m" = SKIP ] && exit 77
exit 0
