#!/usr/bin/env bash
# scripts/resource-spec for 0, 1, 2 and 8 GPUs: the GPUs it lists and their slots, then what the real ctest makes of
# each spec for a test that asks what a GPU case asks (cmake/DiscoverCases.cmake's RESOURCE_GROUPS): on one GPU both
# groups get GPU 0, on two or more two different GPUs, on none the test is not run.
#   usage: resource_spec.sh REPO CMAKE CTEST
set -uo pipefail
repo=$1 cmake=$2 ctest=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

groups=$(grep -o 'RESOURCE_GROUPS [^)]*' "$repo/cmake/DiscoverCases.cmake" | head -n 1 | cut -d' ' -f2)
[ "$groups" = "2,gpus:1" ] || fail "cmake/DiscoverCases.cmake asks for '$groups', this test knows 2,gpus:1"

# The GPUs listed, as "id:slots" words.
listed() { grep -o '{"id": "[0-9]*", "slots": [0-9]*}' "$1" | sed 's/{"id": "\([0-9]*\)", "slots": \([0-9]*\)}/\1:\2/' | xargs; }
for row in "0|" "1|0:2" "2|0:1 1:1" "8|0:1 1:1 2:1 3:1 4:1 5:1 6:1 7:1" "01|0:2"; do
  count=${row%%|*} want=${row#*|}
  "$repo/scripts/resource-spec" "$count" >"$work/spec-$count.json" || fail "resource-spec $count exited $?"
  got=$(listed "$work/spec-$count.json")
  [ "$got" = "$want" ] || fail "resource-spec $count lists '$got', want '$want'"
done
"$repo/scripts/resource-spec" two >/dev/null 2>&1 && fail "resource-spec accepted the count 'two'"

# Without a count: the GPUs the binaries will see. A stand-in nvidia-smi lists 8; CUDA_VISIBLE_DEVICES (Slurm sets
# it in a job) leaves fewer, and the ids must be those the binaries index, from 0.
mkdir -p "$work/smi"
printf '#!/bin/sh\nfor i in 0 1 2 3 4 5 6 7; do echo "GPU $i: NVIDIA H200 (UUID: GPU-000$i)"; done\n' >"$work/smi/nvidia-smi"
chmod +x "$work/smi/nvidia-smi"
for row in "unset|0:1 1:1 2:1 3:1 4:1 5:1 6:1 7:1" "6,7|0:1 1:1" "5|0:2" "GPU-0003,1,2|0:1 1:1 2:1"; do
  visible=${row%%|*} want=${row#*|}
  if [ "$visible" = unset ]; then
    (unset CUDA_VISIBLE_DEVICES; PATH="$work/smi:$PATH" "$repo/scripts/resource-spec") >"$work/visible.json"
  else
    CUDA_VISIBLE_DEVICES=$visible PATH="$work/smi:$PATH" "$repo/scripts/resource-spec" >"$work/visible.json"
  fi || fail "resource-spec with CUDA_VISIBLE_DEVICES=$visible exited $?"
  got=$(listed "$work/visible.json")
  [ "$got" = "$want" ] || fail "resource-spec with CUDA_VISIBLE_DEVICES=$visible lists '$got', want '$want'"
done
CUDA_VISIBLE_DEVICES= PATH="$work/smi:$PATH" "$repo/scripts/resource-spec" >"$work/none.json" ||
  fail "resource-spec with CUDA_VISIBLE_DEVICES set and empty exited $?"
[ -z "$(listed "$work/none.json")" ] || fail "CUDA_VISIBLE_DEVICES set and empty lists GPUs: $(listed "$work/none.json")"

# A project of one test that prints the groups CTest gave it.
mkdir -p "$work/project"
cat >"$work/project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(resource_spec NONE)
enable_testing()
add_test(NAME groups COMMAND sh -c "echo groups=\\\$CTEST_RESOURCE_GROUP_0_GPUS/\\\$CTEST_RESOURCE_GROUP_1_GPUS")
set_tests_properties(groups PROPERTIES RESOURCE_GROUPS $groups)
CMAKE
"$cmake" -S "$work/project" -B "$work/build" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
for row in "1|groups=id:0,slots:1/id:0,slots:1" "2|groups=id:0,slots:1/id:1,slots:1" \
  "8|groups=id:0,slots:1/id:1,slots:1" "0|Not Run"; do
  count=${row%%|*} want=${row#*|}
  "$ctest" --test-dir "$work/build" --resource-spec-file "$work/spec-$count.json" -V >"$work/ctest-$count.log" 2>&1
  grep -q -- "$want" "$work/ctest-$count.log" || fail "ctest with resource-spec $count: no '$want' in: $(grep -E 'groups=|Not Run|nsufficient|Could not' "$work/ctest-$count.log" | head -n 3)"
done

[ "$failures" = 0 ] || exit 1
echo "resource spec: one GPU gives both groups GPU 0, two or more give two GPUs, none runs nothing; the count is the visible GPUs"
