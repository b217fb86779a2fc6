# How many GPUs each runtime will enumerate under its visibility variables, read as that runtime reads them, so
# that scripts/triage plans pairs on GPUs the binaries can open. Sourced, not run.
#
# Every runtime enumerates a visibility list up to its first invalid entry and hides the rest; they differ in
# what is invalid. An empty entry ("0,,1", ",0") ends the list in all three (CUDA measured; HIP's parser refuses
# it; ROCr's reads an entry's first character, which an empty one lacks, so we take the same rule); a trailing
# comma ("0,1,") adds no entry. Where the driver's own list cannot be read (no nvidia-smi, no KFD), an index
# cannot be checked against it and counts as one GPU: the runs then say, in the runtime's words, what is missing.

# CUDA_VISIBLE_DEVICES=LIST on a node whose driver lists PHYSICAL GPUs ("" when unknown) with these UUIDs.
# Measured with the CUDA 13.0 driver (580.159.04) on an H200: an entry is an index (leading blanks and a '+'
# allowed, read up to the first non-digit: "0gpu" is 0) below PHYSICAL, or a unique prefix of a GPU-/MIG- UUID
# longer than "GPU-"; anything else ("-1", "junk", "", an index past the driver's list) ends the list. A GPU
# named twice in one form ("0,0") makes cuInit fail (CUDA_ERROR_INVALID_DEVICE): none is visible; named again in
# the other form (an index and its UUID) it ends the list.
vmr_cuda_visible() {
  local list=$1 physical=$2
  shift 2
  local uuids=("$@") entries=() entry key index u count=0 seen=" "
  [ -n "$list" ] || { echo 0; return; }  # set and empty: cuInit answers CUDA_ERROR_NO_DEVICE
  IFS=, read -ra entries <<<"$list"
  for entry in "${entries[@]}"; do
    entry=${entry#"${entry%%[![:space:]]*}"}
    if [[ "$entry" =~ ^\+?([0-9]{1,9}) ]]; then
      index=$((10#${BASH_REMATCH[1]}))
      [ -z "$physical" ] || [ "$index" -lt "$physical" ] || break
      key="n$index"
    elif [[ "$entry" =~ ^(GPU|MIG)-. ]]; then
      index=
      if [ -n "$physical" ]; then
        local i matches=0
        for i in "${!uuids[@]}"; do
          u=${uuids[$i]}
          [[ "$u" == "$entry"* ]] && { matches=$((matches + 1)); index=$i; }
        done
        [ "$matches" = 1 ] || break
      fi
      key="u${index:-$entry}"
    else
      break  # "-1", "junk", "": the end of the list
    fi
    if [[ "$seen" == *" $key "* ]]; then echo 0; return; fi  # the same GPU twice, in the same form
    if [ -n "$index" ] && [[ "$seen" == *" n$index "* || "$seen" == *" u$index "* ]]; then break; fi
    seen+="$key "
    count=$((count + 1))
  done
  echo "$count"
}

# ROCR_VISIBLE_DEVICES=LIST over PHYSICAL KFD GPUs ("" when unknown), as ROCr's RvdFilter reads it
# (ROCR-Runtime src/core/runtime/amd_filter_device.cpp, BuildRvdTokenList and BuildUsrDeviceList): set and empty
# hides every GPU; each entry is trimmed; one starting with G is a UUID (5 to 20 characters; triage does not read
# the agents' UUIDs, so a well-formed one counts), any other is read whole by strtol in base 0 ("0x1" is 1, "010"
# is 8, "08" unreadable); a negative index, one past the GPUs, one seen before or anything unreadable ends it.
vmr_rocr_visible() {
  local list=$1 gpus=$2 entries=() entry index count=0 seen=" "
  [ -n "$list" ] || { echo 0; return; }  # set and empty: ROCr shows no GPU
  IFS=, read -ra entries <<<"$list"
  for entry in "${entries[@]}"; do
    entry=${entry#"${entry%%[![:space:]]*}"}
    entry=${entry%"${entry##*[![:space:]]}"}
    entry=${entry^^}
    if [[ "$entry" == G* ]]; then
      [ ${#entry} -ge 5 ] && [ ${#entry} -le 20 ] || break
      index=$entry
    elif [[ "$entry" =~ ^[+-]?(0X[0-9A-F]{1,8}|0[0-7]{0,9}|[1-9][0-9]{0,8})$ ]]; then
      index=$((entry))  # bash reads 0x and leading-0 octal as strtol's base 0 does
      [ "$index" -ge 0 ] && { [ -z "$gpus" ] || [ "$index" -lt "$gpus" ]; } || break
    else
      break  # empty, negative, or not a number: ROCr stops here
    fi
    [[ "$seen" != *" $index "* ]] || break
    seen+="$index "
    count=$((count + 1))
  done
  echo "$count"
}

# HIP's list (HIP_VISIBLE_DEVICES when not empty, else CUDA_VISIBLE_DEVICES) over the BASE GPUs ROCr shows (""
# when unknown), as clr reads it (rocclr/device/rocm/rocdevice.cpp, Device::init): each entry must be a plain
# decimal index ("01", "+1" and " 1" are invalid) below BASE, or a GPU- UUID (counted: triage does not read them);
# the first invalid one ends the list; an index given again is skipped.
vmr_hip_visible() {
  local list=$1 base=$2 entries=() entry count=0 seen=" "
  IFS=, read -ra entries <<<"$list"
  for entry in "${entries[@]}"; do
    if [[ "$entry" == *GPU-* ]]; then
      :
    elif [[ "$entry" =~ ^(0|[1-9][0-9]{0,8})$ ]]; then
      [ -z "$base" ] || [ "$entry" -lt "$base" ] || break
    else
      break  # clr: "anything to the right of invalid deviceId has to be discarded"
    fi
    [[ "$seen" == *" $entry "* ]] && continue
    seen+="$entry "
    count=$((count + 1))
  done
  echo "$count"
}

# The GPUs a backend's binaries will see on this node.
vmr_gpu_count() {
  local smi physical uuids=() base list
  case "$1" in
    host) echo "${VMR_FAKE_GPUS:-0}" ;;
    cuda)
      smi=$(nvidia-smi -L 2>/dev/null || true)
      physical=$(grep -c '^GPU ' <<<"$smi" || true)
      if [ -z "${CUDA_VISIBLE_DEVICES+set}" ]; then echo "$physical"; return; fi
      mapfile -t uuids < <(grep -oE '\(UUID: (GPU|MIG)-[^)]+\)' <<<"$smi" | sed -E 's/^\(UUID: (.*)\)$/\1/')
      [ "$physical" -gt 0 ] || physical=
      vmr_cuda_visible "$CUDA_VISIBLE_DEVICES" "$physical" "${uuids[@]+"${uuids[@]}"}"
      ;;
    hip | hsa)  # the HSA binary opens its devices through HIP too, so HIP's list applies to both
      physical=$({ grep -l '^simd_count [1-9]' /sys/class/kfd/kfd/topology/nodes/*/properties 2>/dev/null || true; } |
        wc -l)
      [ "$physical" -gt 0 ] || physical=
      # ROCr hides GPUs first (set and empty: all of them); HIP's indices count among those it shows.
      base=$physical
      if [ -n "${ROCR_VISIBLE_DEVICES+set}" ]; then base=$(vmr_rocr_visible "$ROCR_VISIBLE_DEVICES" "$physical"); fi
      # clr takes HIP_VISIBLE_DEVICES only when it is not empty, else CUDA_VISIBLE_DEVICES: set and empty, each
      # hides nothing from HIP.
      list=${HIP_VISIBLE_DEVICES:-${CUDA_VISIBLE_DEVICES-}}
      if [ -n "$list" ]; then vmr_hip_visible "$list" "$base"; else echo "${base:-0}"; fi
      ;;
    *) echo 0 ;;
  esac
}
