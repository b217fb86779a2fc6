#!/usr/bin/env bash
# Cases written twice on purpose, once per backend, so that a driver engineer reads each file alone: the pow2 cases
# (repro/pow2_remap.hip, repro/cuda_vmm.cu) and the 2026 regression cases (repro/hip_vmem_regressions.hip,
# repro/cuda_vmm.cu). This keeps each clone from drifting: between "// twin-begin(NAME)" and "// twin-end(NAME)" the
# two files' lines must be the same once API names are made alike (vmr_hip::/vmr_cuda::, state.hip/state.cuda,
# hipMem*/cuMem*, hipSuccess/CUDA_SUCCESS), comment lines aside. A line that differs on purpose follows a
# "// twin-differs-next: why" line in both files.
#   tests/twins.sh REPO_ROOT
set -uo pipefail
root=$1
twin() {  # file name: the lines of twin NAME, made alike
  awk -v b="// twin-begin($2)" -v e="// twin-end($2)" 'index($0, b) == 1 { on = 1; next } index($0, e) == 1 { on = 0 } on' "$1" |
    awk '/^[[:space:]]*\/\/ twin-differs-next/ { skip = 1; next } skip { skip = 0; next } { print }' |
    grep -v '^[[:space:]]*//' |
    sed -E 's/vmr_(hip|cuda)::/vmr_api::/g; s/state\.(hip|cuda)\b/state.api/g; s/\b(hip|cu)(Mem[A-Z][A-Za-z]*)/\2/g;
            s/hipSuccess|CUDA_SUCCESS/SUCCESS/g; s/[[:space:]]*\/\/.*$//'
}
status=0
check() {  # name hip_file cuda_file min_lines
  local hip cuda lines drift
  hip=$(twin "$root/$2" "$1")
  cuda=$(twin "$root/$3" "$1")
  lines=$(printf '%s\n' "$hip" | grep -c .)
  if [ "$lines" -lt "$4" ]; then
    echo "FAIL: only $lines lines of twin $1 in $2: are the twin-begin($1)/twin-end($1) markers there?"
    status=1
    return
  fi
  if ! drift=$(diff <(printf '%s\n' "$hip") <(printf '%s\n' "$cuda")); then
    echo "FAIL: the $1 cases of $2 (<) and $3 (>) drifted apart:"
    printf '%s\n' "$drift" | head -n 30
    status=1
    return
  fi
  echo "twins: $1: $lines lines alike in $2 and $3"
}
check pow2 repro/pow2_remap.hip repro/cuda_vmm.cu 100
check regressions repro/hip_vmem_regressions.hip repro/cuda_vmm.cu 100
check access repro/hip_vmem_access.hip repro/cuda_vmm_access.cu 100
exit $status
