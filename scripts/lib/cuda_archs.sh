# The NVIDIA targets a CUDA build compiles for, in CMake's CMAKE_CUDA_ARCHITECTURES spelling ("80-real;90"), and
# the nvcc flags that spell the same list. One rule for every build: cmake/Backends.cmake sets the cache variable's
# default with vmr_cuda_default_archs, scripts/amalgamate prints its nvcc line (and so the build without cmake
# compiles) with vmr_cuda_build_archs. Sourced, not run (CMake sources it alone: vmr_say may not be defined yet).
declare -F vmr_say >/dev/null || vmr_say() { printf '%s\n' "$*" >&2; }

# The list when the rule cannot ask an nvcc (none here, or it gave no answer): nvcc's own -arch=all-major (nvcc 11.5
# and later), which needs no list. Its one place: CMake's default, amalgamate's line and header read it from here.
vmr_cuda_fallback_archs=all-major

# The nvcc the scripts build with: the one on PATH, else the toolkit's usual place; nothing (status 1) without one.
vmr_nvcc() { command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; }; }

# The default list for NVCC: for each major architecture from 6 (Pascal: the oldest whose devices take VMM with
# POSIX-fd handles) the oldest minor NVCC can make code for, as real code (a cubin for sm_XY runs on every sm_XZ,
# Z >= Y, of that major), and the newest of them also as PTX, which the driver compiles for GPUs newer than NVCC.
# Asked of NVCC itself (--list-gpu-code): each release drops and adds architectures (CUDA 13 starts at sm_75), and
# CMake's own all-major table is older than some. Arch-specific targets (sm_90a) are left out: their code runs on
# that one architecture only. Fails, saying why, when NVCC gives no answer or no target from sm_60.
vmr_cuda_default_archs() {
  local nvcc=$1 listed
  listed=$("$nvcc" --list-gpu-code 2>&1) || { vmr_say "$nvcc --list-gpu-code failed: $listed"; return 1; }
  tr -c 'a-z0-9_' '\n' <<<"$listed" | sed -n 's/^sm_\([0-9][0-9]*\)$/\1/p' | sort -n -u |
    awk '$1 >= 60 { major = int($1 / 10); if (!(major in first)) { first[major] = 1; archs[n++] = $1 } }
         END { if (n == 0) exit 1
               for (i = 0; i < n; i++) printf "%s%s%s", (i ? ";" : ""), archs[i], (i < n - 1 ? "-real" : "")
               print "" }' ||
    { vmr_say "$nvcc --list-gpu-code names no target from sm_60: $listed"; return 1; }
}

# The nvcc flags for LIST (CMAKE_CUDA_ARCHITECTURES spelling, ';' or ',' separated): N-real is sm_N code, N-virtual
# compute_N PTX, N both; all, all-major and native are nvcc's own -arch values. Fails naming an entry it cannot read.
vmr_cuda_arch_flags() {
  local entry flags=() n
  for entry in $(tr ';,' '  ' <<<"$1"); do
    if [[ "$entry" =~ ^(all|all-major|native)$ ]]; then
      flags+=("-arch=$entry")
    elif [[ "$entry" =~ ^([0-9]+[a-z]?)(-real|-virtual)?$ ]]; then
      n=${BASH_REMATCH[1]}
      [ "${BASH_REMATCH[2]}" = -virtual ] || flags+=("-gencode=arch=compute_$n,code=sm_$n")
      [ "${BASH_REMATCH[2]}" = -real ] || flags+=("-gencode=arch=compute_$n,code=compute_$n")
    else
      vmr_say "CUDA target '$entry' is not N, N-real, N-virtual, all, all-major or native (CMAKE_CUDA_ARCHITECTURES)"
      return 1
    fi
  done
  [ ${#flags[@]} -gt 0 ] || { vmr_say "no CUDA target given"; return 1; }
  echo "${flags[*]}"
}

# The list a build of this checkout uses: CUDA_ARCH when set, else what $BUILD_DIR was configured with
# (CMAKE_CUDA_ARCHITECTURES in its CMakeCache.txt), else the default for the nvcc found, else nvcc's own all-major
# (no nvcc here: the printed command is then for whichever nvcc runs it).
vmr_cuda_build_archs() {
  local configured nvcc
  if [ -n "${CUDA_ARCH-}" ]; then
    echo "$CUDA_ARCH"
    return
  fi
  configured=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null || true)
  if [ -n "$configured" ]; then
    echo "$configured"
  elif nvcc=$(vmr_nvcc); then
    vmr_cuda_default_archs "$nvcc" || echo "$vmr_cuda_fallback_archs"
  else
    echo "$vmr_cuda_fallback_archs"
  fi
}
