#!/usr/bin/env bash
# How many GPUs each runtime shows under a visibility list (scripts/lib/visible.sh), against the runtime's own
# reading: CUDA as measured on an H200 (driver 580.159.04), ROCr's RvdFilter and clr's Device::init as their
# sources read. Each row: the list, the GPUs the driver lists ("" when it cannot be read) and the count wanted.
#   usage: visible_devices.sh REPO
set -uo pipefail
source "$1/scripts/lib/visible.sh"
failures=0
check() {  # check FUNCTION LIST GPUS WANT [UUID...]
  local fn=$1 list=$2 gpus=$3 want=$4 got
  shift 4
  got=$("$fn" "$list" "$gpus" "$@")
  if [ "$got" != "$want" ]; then
    echo "FAIL: $fn '$list' over ${gpus:-unknown} GPUs: $got, want $want" >&2
    failures=$((failures + 1))
  fi
}

# CUDA_VISIBLE_DEVICES over 3 GPUs listed by the driver with these UUIDs.
uuids=(GPU-aa11 GPU-bb22 GPU-bb33)
for row in "0,1,2 3" "2,0 2" "0,,1 1" ",0 0" "0,1, 2" "-1 0" "0,-1,1 1" "0,5,1 1" "3 0" "junk,0 0" " 1,+0 2" \
  "0gpu,1 2" "0,0 0" "1,2,1 0" "GPU-a,2 2" "GPU-b,0 0" "GPU- 0" "GPU-bb3,GPU-aa 2" "0,GPU-aa,1 1" "GPU-x 0"; do
  check vmr_cuda_visible "${row% *}" 3 "${row##* }" "${uuids[@]}"
done
check vmr_cuda_visible "" 3 0 "${uuids[@]}"  # set and empty: no device
# Without the driver's list an index cannot be checked: it counts; the rest of the rule holds.
for row in "0,5 2" "0,,1 1" "-1 0" "GPU-zz,1 2" "0,0 0"; do check vmr_cuda_visible "${row% *}" "" "${row##* }"; done

# ROCR_VISIBLE_DEVICES over 3 KFD GPUs: strtol in base 0, trimmed; a repeat, an index past them or anything
# unreadable ends the list.
for row in "0,1,2 3" "2,0 2" "0,,1 1" ",0 0" "0,1, 2" "-1 0" "0,-1,1 1" "0,5,1 1" " 1 ,0 2" "0x2,1 2" "02,1 2" \
  "08 0" "0,0,1 1" "1gpu 0" "GPU-0123456789abcdef,0 2" "GPU 0" "+1 1"; do
  check vmr_rocr_visible "${row% *}" 3 "${row##* }"
done
check vmr_rocr_visible "" 3 0  # set and empty: ROCr shows no GPU
for row in "0,5 2" "-1 0" "0,,1 1"; do check vmr_rocr_visible "${row% *}" "" "${row##* }"; done

# HIP's list over the 3 GPUs ROCr shows: plain decimal indices only; a repeat is skipped, not an end.
for row in "0,1,2 3" "2,0 2" "0,,1 1" ",0 0" "0,1, 2" "-1 0" "0,-1,1 1" "0,5,1 1" " 1 0" "+1 0" "01 0" \
  "0,0,1 2" "1gpu 0" "GPU-0123456789abcdef,0 2" "3 0"; do
  check vmr_hip_visible "${row% *}" 3 "${row##* }"
done
check vmr_hip_visible "0,1" 0 0  # ROCr hides every GPU: no index is valid
for row in "0,5 2" "-1 0" "0,,1 1"; do check vmr_hip_visible "${row% *}" "" "${row##* }"; done

[ "$failures" = 0 ] || exit 1
echo "visible devices: every count as the runtimes count"
