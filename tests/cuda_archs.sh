#!/usr/bin/env bash
# The NVIDIA targets every build compiles for come from one rule (scripts/lib/cuda_archs.sh):
#   - the default list is computed from what nvcc answers (a stand-in nvcc on PATH: CUDA 12's and 13's lists);
#   - CMake's spelling becomes the nvcc flags it means;
#   - scripts/amalgamate's printed nvcc line builds for CUDA_ARCH, else the configured CMAKE_CUDA_ARCHITECTURES, else
#     the default for the nvcc found, and the header of a dist/ file does not depend on the nvcc found;
#   - the build without cmake compiles with exactly the printed line's targets;
#   - with the real nvcc (where there is one) the rule's list is what that nvcc accepts, and a build configured
#     without a list holds the rule's answer in its cache.
#   tests/cuda_archs.sh REPO_ROOT BUILD_DIR
set -uo pipefail
root=$1 build=$2 status=0
say_fail() { echo "FAIL: $*"; status=1; }
VMR_ROOT=$root
source "$root/scripts/lib/cuda_archs.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/bin"
# The stand-in nvcc: answers --list-gpu-code from $scratch/gpu-code, otherwise logs its arguments and writes -o's file.
cat >"$scratch/bin/nvcc" <<EOF
#!/usr/bin/env bash
if [ "\$1" = --list-gpu-code ]; then cat "$scratch/gpu-code"; exit \$(cat "$scratch/gpu-code-rc" 2>/dev/null || echo 0); fi
echo "\$*" >>"$scratch/nvcc.log"
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && : >"\$2"; shift; done
EOF
cp "$scratch/bin/nvcc" "$scratch/bin/c++"
printf '#!/bin/sh\nexit 1\n' >"$scratch/bin/hipcc"  # no HIP file is built here
chmod +x "$scratch/bin/"*
stand_in=$scratch/bin/nvcc

expect_default() {  # WHAT EXPECTED LIST-GPU-CODE-ANSWER
  printf '%s\n' "$3" >"$scratch/gpu-code"
  local got
  got=$(vmr_cuda_default_archs "$stand_in" 2>&1)
  [ "$got" = "$2" ] || say_fail "default for $1: '$got', expected '$2'"
}
# CUDA 12.8's answer: 50-53 dropped (no VMM with POSIX fds before Pascal), one real target per major, sm_90a left out.
expect_default "CUDA 12.8" "60-real;70-real;80-real;90-real;100-real;120" \
  "$(printf 'sm_50\nsm_52\nsm_53\nsm_60\nsm_61\nsm_62\nsm_70\nsm_72\nsm_75\nsm_80\nsm_86\nsm_87\nsm_89\nsm_90\nsm_90a\nsm_100\nsm_100a\nsm_101\nsm_120')"
# CUDA 13.0's answer, in its order (sm_110 before sm_103): it starts at sm_75.
expect_default "CUDA 13.0" "75-real;80-real;90-real;100-real;110-real;120" \
  "$(printf 'sm_75\nsm_80\nsm_86\nsm_87\nsm_88\nsm_89\nsm_90\nsm_100\nsm_110\nsm_103\nsm_120\nsm_121')"
expect_default "one line, blank-separated" "80-real;90" "sm_80 sm_86 sm_90"
printf 'sm_50\nsm_52\n' >"$scratch/gpu-code"
vmr_cuda_default_archs "$stand_in" >/dev/null 2>&1 && say_fail "an nvcc with nothing from sm_60 gave a default list"
echo 1 >"$scratch/gpu-code-rc"
vmr_cuda_default_archs "$stand_in" >/dev/null 2>&1 && say_fail "an nvcc whose --list-gpu-code fails gave a default list"
rm "$scratch/gpu-code-rc"

expect_flags() {
  local got
  got=$(vmr_cuda_arch_flags "$1" 2>&1)
  [ "$got" = "$2" ] || say_fail "flags for '$1': '$got', expected '$2'"
}
expect_flags "80-real" "-gencode=arch=compute_80,code=sm_80"
expect_flags "90-virtual" "-gencode=arch=compute_90,code=compute_90"
expect_flags "75-real;120" \
  "-gencode=arch=compute_75,code=sm_75 -gencode=arch=compute_120,code=sm_120 -gencode=arch=compute_120,code=compute_120"
expect_flags "86,90a-real" \
  "-gencode=arch=compute_86,code=sm_86 -gencode=arch=compute_86,code=compute_86 -gencode=arch=compute_90a,code=sm_90a"
expect_flags "all-major" "-arch=all-major"
vmr_cuda_arch_flags "sm_90" >/dev/null 2>&1 && say_fail "'sm_90' (not CMake's spelling) was taken as a target"

# amalgamate's printed line and the dist/ header, with the stand-in on PATH.
printf 'sm_75\nsm_80\nsm_86\nsm_90\nsm_120\n' >"$scratch/gpu-code"
want=$(vmr_cuda_arch_flags "75-real;80-real;90-real;120")
printed_flags() {  # the targets of amalgamate's printed nvcc line: what lies between -O2 and the file
  sed -n 's|^nvcc -std=c++17 -O2 \(.*\) [^ ]*/repro_cuda_vmm\.cu -o repro_cuda_vmm -ldl$|\1|p' <<<"$1"
}
amalgamate() { PATH="$scratch/bin:$PATH" DIST_DIR="$scratch/dist" "$root/scripts/amalgamate" repro_cuda_vmm; }
mkdir -p "$scratch/unconfigured" "$scratch/configured"
line=$(BUILD_DIR=$scratch/unconfigured amalgamate) || say_fail "amalgamate failed: $line"
[ "$(printed_flags "$line")" = "$want" ] || say_fail "unconfigured: amalgamate printed '$line', expected the targets $want"
header=$(sed -n 2p "$scratch/dist/repro_cuda_vmm.cu")
printf 'sm_80\nsm_90\n' >"$scratch/gpu-code"
BUILD_DIR=$scratch/unconfigured amalgamate >/dev/null
[ "$(sed -n 2p "$scratch/dist/repro_cuda_vmm.cu")" = "$header" ] || say_fail "the dist/ header depends on the nvcc found"
[ "$header" = "// Build: nvcc -std=c++17 -O2 -arch=all-major repro_cuda_vmm.cu -o repro_cuda_vmm -ldl" ] ||
  say_fail "the dist/ header reads: $header"
printf 'CMAKE_CUDA_ARCHITECTURES:STRING=80-real\n' >"$scratch/configured/CMakeCache.txt"
line=$(BUILD_DIR=$scratch/configured amalgamate)
[ "$(printed_flags "$line")" = "-gencode=arch=compute_80,code=sm_80" ] ||
  say_fail "configured with 80-real: amalgamate printed '$line'"
line=$(BUILD_DIR=$scratch/configured CUDA_ARCH=86-real amalgamate)
[ "$(printed_flags "$line")" = "-gencode=arch=compute_86,code=sm_86" ] || say_fail "CUDA_ARCH=86-real: amalgamate printed '$line'"
grep -q "^// Build: nvcc -std=c++17 -O2 -gencode=arch=compute_86,code=sm_86 repro_cuda_vmm.cu " \
  "$scratch/dist/repro_cuda_vmm.cu" || say_fail "CUDA_ARCH=86-real: the header does not name it"
echo "cuda_archs: the default list follows nvcc's answer; amalgamate prints it, the cache's list or CUDA_ARCH"

# The build without cmake: every compiler a stand-in, so only the commands are seen.
printf 'sm_75\nsm_80\nsm_86\nsm_90\nsm_120\n' >"$scratch/gpu-code"
BUILD_DIR=$scratch/single PATH="$scratch/bin:/usr/bin:/bin" \
  bash -c 'set -euo pipefail; source "$1/scripts/lib/common.sh"; vmr_build_single_files' vmr "$root" \
  >"$scratch/single.out" 2>&1 || say_fail "the single-file build failed: $(tail -5 "$scratch/single.out")"
for name in repro_cuda_vmm repro_cuda_vmm_access; do
  used=$(sed -n "s|^-std=c++17 -O2 \(.*\) [^ ]*/$name\.cu -o $name -ldl\$|\1|p" "$scratch/nvcc.log")
  [ "$used" = "$want" ] || say_fail "the single-file build compiled $name for '$used', expected $want"
  grep -Pq "^$name\tcuda\tok\t" "$scratch/single/bin/manifest.txt" || say_fail "$name not marked built"
done
echo "cuda_archs: the build without cmake compiles both CUDA binaries with amalgamate's targets"

# The real nvcc: the rule's list is what it accepts, and a build configured without a list holds it.
if real=$(vmr_nvcc); then
  list=$(vmr_cuda_default_archs "$real") || say_fail "the rule gave no list for $real"
  codes=$("$real" --list-gpu-code)
  for n in $(tr ';' ' ' <<<"${list//-real/}"); do
    grep -qx "sm_$n" <<<"$codes" || say_fail "$real: the default names $n, which --list-gpu-code does not"
  done
  echo '__global__ void k() {}' >"$scratch/empty.cu"
  # shellcheck disable=SC2046  # the flags are words
  "$real" $(vmr_cuda_arch_flags "$list") -c "$scratch/empty.cu" -o "$scratch/empty.o" ||
    say_fail "$real rejects the default's flags: $(vmr_cuda_arch_flags "$list")"
  echo "cuda_archs: $real: default $list, which it compiles"
  cache=$build/CMakeCache.txt
  if grep -q '^//NVIDIA GPU targets (each major' "$cache" 2>/dev/null; then
    compiler=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$cache")
    configured=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$cache")
    [ "$configured" = "$(vmr_cuda_default_archs "$compiler")" ] ||
      say_fail "$build was configured for $configured, the rule says $(vmr_cuda_default_archs "$compiler")"
    echo "cuda_archs: $build was configured with the rule's list ($configured)"
  else
    echo "cuda_archs: $build has no defaulted CUDA targets (a host-only build, or a list given): not compared"
  fi
else
  echo "cuda_archs: no nvcc here: the real compiler's answer not tried"
fi
exit $status
