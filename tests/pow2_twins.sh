#!/usr/bin/env bash
# The pow2 cases are written twice on purpose, once per backend (repro/pow2_remap.hip, repro/cuda_vmm.cu), so a
# driver engineer reads each file alone. This keeps the clone from drifting: between "// twin-begin" and
# "// twin-end" the two must be the same lines once API names are made alike (vmr_hip::/vmr_cuda::,
# state.hip/state.cuda, hipMem*/cuMem*, hipSuccess/CUDA_SUCCESS), comment lines aside. A line that differs on
# purpose follows a "// twin-differs-next: why" line in both files.
#   tests/pow2_twins.sh REPO_ROOT
set -uo pipefail
root=$1
twin() {  # file: its twin lines, made alike
  awk '/\/\/ twin-begin/ { on = 1; next } /\/\/ twin-end/ { on = 0 } on' "$1" |
    awk '/^[[:space:]]*\/\/ twin-differs-next/ { skip = 1; next } skip { skip = 0; next } { print }' |
    grep -v '^[[:space:]]*//' |
    sed -E 's/vmr_(hip|cuda)::/vmr_api::/g; s/state\.(hip|cuda)\b/state.api/g; s/\b(hip|cu)(Mem[A-Z][A-Za-z]*)/\2/g;
            s/hipSuccess|CUDA_SUCCESS/SUCCESS/g; s/[[:space:]]*\/\/.*$//'
}
hip=$(twin "$root/repro/pow2_remap.hip")
cuda=$(twin "$root/repro/cuda_vmm.cu")
lines=$(printf '%s\n' "$hip" | grep -c .)
[ "$lines" -ge 100 ] || { echo "FAIL: only $lines twin lines in repro/pow2_remap.hip: are the twin-begin/end markers there?"; exit 1; }
if ! drift=$(diff <(printf '%s\n' "$hip") <(printf '%s\n' "$cuda")); then
  echo "FAIL: the pow2 cases of repro/pow2_remap.hip (<) and repro/cuda_vmm.cu (>) drifted apart:"
  printf '%s\n' "$drift" | head -n 30
  exit 1
fi
echo "pow2_twins: $lines lines alike in both backends"
