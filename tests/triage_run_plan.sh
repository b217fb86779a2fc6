#!/usr/bin/env bash
# scripts/triage's runner (scripts/lib/triage_launch.sh run_plan) against the planner's rounds.txt: with every round
# whole, the launches of binaries marked "together" overlap (side by side, one GPU shared), an "alone" binary starts
# only after all of them ended and runs by itself, and each binary's rounds stay in order; with --jobs 1 (--serial)
# and --jobs 2 no two binaries overlap and at most N launches run at once. `launch` is replaced by one that sleeps
# and logs its start and end: what is tested is the order the runner starts them in, not a reproducer. And the real
# planner (tools/triage_plan) marks a binary "alone" exactly where a case it runs is labelled gpu-alone in the
# binary's real --list --json (expected/verdicts.md's labels), its mesh run and re-plan too.
#   tests/triage_run_plan.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
say_fail() { echo "FAIL: $*"; fail=1; }
source "$src/scripts/lib/triage_launch.sh"
# The stand-in launch: "start k binary round ns" and "end k binary round ns" lines.
launch() {
  local k=$1 name=$2
  echo "start $k $name $(date +%s%N)" >>"$work/log"
  sleep 1  # (long enough that a loaded machine still starts two side-by-side binaries within it)
  echo "end $k $name $(date +%s%N)" >>"$work/log"
}
plan=(
  "1 0 bin_a 0,0 read together" "2 1 bin_a 0,1 read together"
  "3 0 bin_b 0,0 read together" "4 1 bin_b 0,1 read together"
  "5 0 bin_c 0,0 leak alone" "6 0 bin_c 1,1 leak alone"
)
# Intervals per launch from the log: "k binary start end".
intervals() { awk '{ t[$2, $1] = $4; b[$2] = $3 } END { for (k = 1; k <= 6; k++) print k, b[k], t[k, "start"], t[k, "end"] }' "$work/log"; }
# The most launches running at one moment, and whether any launches of two different binaries overlap.
max_at_once() { intervals | awk '{ s[NR] = $3; e[NR] = $4 } END { m = 0; for (i in s) { n = 0; for (j in s) if (s[j] <= s[i] && e[j] > s[i]) n++; if (n > m) m = n } print m }'; }
binaries_overlap() {  # A B: 0 where some launch of A overlaps some launch of B
  intervals | awk -v a="$1" -v b="$2" '{ s[NR] = $3; e[NR] = $4; n[NR] = $2 }
    END { for (i in s) for (j in s) if (n[i] == a && n[j] == b && s[i] < e[j] && s[j] < e[i]) exit 0; exit 1 }'
}

: >"$work/log"; run_plan 0 "${plan[@]}"
[ "$(wc -l <"$work/log")" = 12 ] || say_fail "every round whole: not 6 launches started and ended: $(cat "$work/log")"
binaries_overlap bin_a bin_b || say_fail "every round whole: bin_a and bin_b (together) did not run side by side"
for other in bin_a bin_b; do
  ! binaries_overlap bin_c "$other" || say_fail "every round whole: bin_c (alone) overlapped $other"
done
# Each binary's rounds in order: round 1 starts after round 0 ended; an alone binary's launches one at a time, even
# two of one round (KFD counts another launch's ranks as other processes on every GPU).
intervals | awk '{ s[$1] = $3; e[$1] = $4 } END { exit !(s[2] >= e[1] && s[4] >= e[3]) }' ||
  say_fail "every round whole: a binary's round 1 started before its round 0 ended"
intervals | awk '{ s[$1] = $3; e[$1] = $4 } END { exit !(s[6] >= e[5] || s[5] >= e[6]) }' ||
  say_fail "every round whole: two launches of the alone bin_c overlapped"

for jobs in 1 2; do
  : >"$work/log"; run_plan "$jobs" "${plan[@]}"
  [ "$(max_at_once)" -le "$jobs" ] || say_fail "--jobs $jobs: $(max_at_once) launches at once"
  for pair in "bin_a bin_b" "bin_a bin_c" "bin_b bin_c"; do
    ! binaries_overlap $pair || say_fail "--jobs $jobs: $pair overlapped (one binary after another)"
  done
done
# The planner: the host binary's listing with gpu-alone added to its read case.
"$build/bin/repro_host_shm" --list --json "$work/list.json" >/dev/null
python3 - "$work/list.json" "$work/alone.json" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))
for c in l["cases"]:
    if c["name"] == "read": c["labels"].append("gpu-alone")
json.dump(l, open(sys.argv[2], "w"))
PY
sharing_of() {  # LIST CASES [--mesh]: the sharing field of every launch planned
  : >"$work/rounds.txt"
  "$build/bin/triage_plan" --binary repro_host_shm --backend host --gpus 3 --cases "$2" --list "$1" ${3:+"$3"} \
    --rounds "$work/rounds.txt" >/dev/null || { echo "triage_plan failed"; return; }
  awk '{ print $6 }' "$work/rounds.txt" | sort -u | paste -sd' ' -
}
[ "$(sharing_of "$work/alone.json" read+atomics)" = alone ] || say_fail "a gpu-alone case did not make its binary alone"
[ "$(sharing_of "$work/alone.json" atomics)" = together ] || say_fail "a gpu-alone case not run made its binary alone"
[ "$(sharing_of "$work/list.json" read+atomics)" = together ] || say_fail "no gpu-alone label, yet not together"
[ "$(sharing_of "$work/alone.json" read --mesh)" = alone ] || say_fail "--mesh: the mesh run of an alone binary is not alone"
# A known-crash case run (--include-crash) makes its binary alone: a fault that resets the GPU must not take other
# binaries' runs down with it.
[ "$(sharing_of "$work/list.json" read+fault)" = alone ] || say_fail "a known-crash case run did not make its binary alone"

[ "$fail" = 0 ] && echo "run_plan: together side by side, alone after them, --jobs one binary at a time"
exit "$fail"
