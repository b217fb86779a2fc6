#!/usr/bin/env bash
# The build that needs only a compiler: with no cmake, scripts/lib/common.sh builds the single-file reproducers with
# the compilers on PATH (and check_expected with the C++ one) and writes a manifest saying what it built; triage then
# runs from that build. Also: the manifest read from the CMakeLists (no cmake) equals the one CMake wrote.
#   usage: triage_without_cmake.sh REPO CMAKE_BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 cmake_build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
diff <(grep -v '^#' "$cmake_build/bin/manifest.txt" | cut -f1,2,4,5) \
     <(VMR_ROOT=$repo bash -c 'source "$VMR_ROOT/scripts/lib/manifest.sh"; vmr_manifest_from_sources' | cut -f1,2,4,5) ||
  fail "the manifest read from the CMakeLists differs from CMake's"
# The targets the CMake build was configured with (the AMD ones its hipcc accepts), as CI's build uses: with none,
# amalgamate prints every CDNA target, some of which an older hipcc (Debian 12's 5.2.3) rejects.
hip_arch=$(sed -n 's/^CMAKE_HIP_ARCHITECTURES:[A-Z]*=//p' "$cmake_build/CMakeCache.txt" 2>/dev/null || true)
[ -z "$hip_arch" ] || export HIP_ARCH=$hip_arch
cuda_arch=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$cmake_build/CMakeCache.txt" 2>/dev/null || true)
[ -z "$cuda_arch" ] || export CUDA_ARCH=$cuda_arch
BUILD_DIR=$work/build bash -c "set -euo pipefail; source '$repo/scripts/lib/common.sh'; PATH=/usr/bin:/bin
  vmr_build_single_files; echo built with \$VMR_BUILT_WITH" \
  >"$work/build.out" 2>&1 || { cat "$work/build.out"; fail "the single-file build failed"; }
grep -q "built with single-file" "$work/build.out" || fail "VMR_BUILT_WITH is not single-file"
# A warning from the printed command is what a user pasting a reproducer into an issue sees first (nvcc's #177 for
# a shared helper one binary does not use, once per GPU target): none.
! grep -i 'warning' "$work/build.out" || fail "the single-file build warns (above)"
grep -Pq '^repro_host_shm\thost\tok\t' "$work/build/bin/manifest.txt" && [ -x "$work/build/bin/repro_host_shm" ] ||
  fail "the host reproducer was not built"
# Every single file of a backend the CMake build made here must build with the command scripts/amalgamate prints:
# the manifest's toolchain column says "ok" only for a compile that succeeded. (CI's build has g++, nvcc and Debian's
# hipcc: this is its proof that every single-file reproducer builds.)
declare -A have=()
while IFS=$'\t' read -r _ backend toolchain _; do [ "$toolchain" != ok ] || have[$backend]=1; done \
  < <(grep -v '^#' "$cmake_build/bin/manifest.txt")
unbuilt=$(awk -F'\t' -v have="${!have[*]}" 'BEGIN { n = split(have, h, " "); for (i = 1; i <= n; i++) on[h[i]] = 1 }
  !/^#/ && on[$2] && $3 != "ok" { print $1 " (" $2 ")" }' "$work/build/bin/manifest.txt" | paste -sd' ' -)
[ -z "$unbuilt" ] || { cat "$work/build.out"; fail "single files of backends the CMake build made did not build: $unbuilt"; }
for name in $(awk -F'\t' '!/^#/ && $3 == "ok" { print $1 }' "$work/build/bin/manifest.txt"); do
  [ -x "$work/build/bin/$name" ] || fail "the manifest says $name was built, but bin/$name is not there"
done
# GPUs hidden, as in triage_e2e.sh: ctest lends this test no GPU, so no real pair may run here.
export CUDA_VISIBLE_DEVICES= HIP_VISIBLE_DEVICES= ROCR_VISIBLE_DEVICES=
BUILD_DIR=$work/build VMR_FAKE_GPUS=2 RESULTS_DIR=$work/results "$repo/scripts/triage" >"$work/triage.out" 2>&1 ||
  { tail -20 "$work/triage.out"; fail "triage from the single-file build: exit $?"; }
grep -q "single-file build (no cmake on this node)" "$work/triage.out" || fail "triage does not say how it was built"
grep -Eq '^8 OK, 0 CHANGED' "$work/triage.out" || fail "triage from the single-file build: $(grep CHANGED, "$work/triage.out")"
echo "single-file build: $(ls "$work/build/bin" | grep -c '^repro_') binaries built (backends: ${!have[*]}); triage from it: 8 OK"
