#!/usr/bin/env bash
# A minimal reproducer (repro/minimal/) and the suite's case it stands for must give the same verdict on the same
# machine: the minimal runs first (on a GPU it prints "devices: A,B", the pair it used), then the suite's case on
# that pair. Exit 0 when they agree on a verdict that ran, 77 when both SKIP (nothing to compare here), 1 otherwise.
#   tests/minimal_agree.sh MINIMAL_BINARY SUITE_BINARY CASE
set -uo pipefail
minimal=$1 suite=$2 case=$3
[ -x "$minimal" ] && [ -x "$suite" ] || { echo "minimal_agree: $minimal or $suite is not built"; exit 1; }
source "$(dirname "$0")/../scripts/lib/minimal.sh"
out=$(timeout 80 "$minimal" 2>&1)
m=$(vmr_minimal_verdict $? "$out")
# A program linked to the driver API cannot start without the NVIDIA driver: that is the suite's SKIP "no NVIDIA
# driver", not a failure of the program.
[[ "$m" == SKIP && "$out" != *VERDICT:* ]] && out="VERDICT: SKIP (the loader found no libcuda.so.1: no NVIDIA driver)"
devices=$(printf '%s\n' "$out" | sed -n 's/^devices: \([0-9,]*\)$/\1/p' | head -n 1)
args=(--case "$case")
[ -n "$devices" ] && args+=(--devices "$devices")
suite_out=$(timeout 80 "$suite" "${args[@]}" 2>&1)
s=$(vmr_minimal_verdict $?)
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
