#!/usr/bin/env bash
# The AMD targets of the single-file build are the CMake build's:
#   - with nothing configured, scripts/amalgamate's printed hipcc line (HIP and HSA binaries alike) carries one
#     --offload-arch for each target CMake's own default takes for a compiler that accepts them all
#     (cmake/Backends.cmake run for real, its GPU tools out of reach), in that order, and the dist/ header the same;
#   - a build configured by CMake (its CMakeCache.txt, written by CMake itself: a compiler that rejects gfx950) is
#     printed as configured, while the dist/ header stays the machine-independent default;
#   - HIP_ARCH wins over both, ';' or ',' separated, in the printed line and the header;
#   - the build without cmake compiles each HIP binary with the printed line's targets.
#   tests/hip_archs.sh REPO_ROOT
set -uo pipefail
root=$1 status=0
say_fail() { echo "FAIL: $*"; status=1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/bin"
# A stand-in compiler: refuses any --offload-arch listed in $scratch/rejected, logs its arguments and writes -o's file.
cat >"$scratch/bin/clang++" <<EOF
#!/usr/bin/env bash
[ "\$1" = --list-gpu-code ] && { echo sm_80; exit 0; }  # as nvcc: the CUDA files of the build without cmake
for a in "\$@"; do
  case "\$a" in --offload-arch=*) grep -qx "\${a#--offload-arch=}" "$scratch/rejected" 2>/dev/null && exit 1 ;; esac
done
echo "\$*" >>"$scratch/\$(basename "\$0").log"
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && : >"\$2"; shift; done
exit 0
EOF
chmod +x "$scratch/bin/clang++"
for tool in hipcc nvcc c++; do cp "$scratch/bin/clang++" "$scratch/bin/$tool"; done

# CMake's default list: cmake/Backends.cmake configured for real with the stand-in as the HIP compiler; programs are
# found only under a root that holds none, so no amdgpu-arch or rocm_agent_enumerator answers for this machine (make
# and the C++ compiler named, as that root hides them too).
cmake_default() {  # NAME: configures $scratch/NAME, prints its CMAKE_HIP_ARCHITECTURES
  mkdir -p "$scratch/$1/src"
  printf 'cmake_minimum_required(VERSION 3.21)\nproject(archs LANGUAGES CXX)\ninclude(%s)\n' \
    "$root/cmake/Backends.cmake" >"$scratch/$1/src/CMakeLists.txt"
  cmake -S "$scratch/$1/src" -B "$scratch/$1/build" -DVMR_ENABLE_CUDA=OFF -DCMAKE_HIP_COMPILER="$scratch/bin/clang++" \
    -DCMAKE_MAKE_PROGRAM="$(command -v make)" -DCMAKE_CXX_COMPILER="$(command -v c++)" \
    -DCMAKE_FIND_ROOT_PATH="$scratch/no-programs" -DCMAKE_FIND_ROOT_PATH_MODE_PROGRAM=ONLY >"$scratch/$1.log" 2>&1 ||
    say_fail "configuring $1 failed: $(tail -5 "$scratch/$1.log")"
  sed -n 's/^CMAKE_HIP_ARCHITECTURES:[A-Z]*=//p' "$scratch/$1/build/CMakeCache.txt"
}
cmake_list=$(cmake_default all-accepted)
[ -n "$cmake_list" ] || say_fail "CMake chose no AMD target: $(grep 'backend hip' "$scratch/all-accepted.log")"
want=$(for a in ${cmake_list//;/ }; do printf -- '--offload-arch=%s ' "$a"; done)
want=${want% }

# FLAGS LINE BINARY: the targets of amalgamate's printed hipcc line, what lies between -O2 and the file.
printed_flags() {
  sed -n "s|^hipcc -std=c++17 -O2 \(.*\) [^ ]*/$2\.hip -o $2 -lhsa-runtime64 -ldl\$|\1|p" <<<"$1"
}
header_flags() {
  sed -n "2s|^// Build: hipcc -std=c++17 -O2 \(.*\) $1\.hip -o $1 -lhsa-runtime64 -ldl\$|\1|p" "$scratch/dist/$1.hip"
}
amalgamate() { PATH="$scratch/bin:$PATH" DIST_DIR="$scratch/dist" "$root/scripts/amalgamate" "$@"; }
expect() {  # WHAT BINARY LINE WANT_PRINTED WANT_HEADER
  [ "$(printed_flags "$3" "$2")" = "$4" ] || say_fail "$1: amalgamate printed '$3', expected the targets '$4'"
  [ "$(header_flags "$2")" = "$5" ] ||
    say_fail "$1: $2's header reads '$(sed -n 2p "$scratch/dist/$2.hip")', expected '$5'"
}
mkdir -p "$scratch/unconfigured"
for binary in repro_hip_vmem_pinned repro_hsa_fine_grained; do
  line=$(BUILD_DIR=$scratch/unconfigured amalgamate "$binary") || say_fail "amalgamate $binary failed: $line"
  expect "unconfigured" "$binary" "$line" "$want" "$want"
done
echo "hip_archs: unconfigured, the printed line and the header carry CMake's default targets: $want"

# A build CMake configured where the compiler rejects gfx950: printed as configured, the header as before.
echo gfx950 >"$scratch/rejected"
configured=$(cmake_default gfx950-rejected)
rm "$scratch/rejected"
[ "$configured" = "${cmake_list/;gfx950/}" ] || say_fail "a compiler rejecting gfx950: CMake chose '$configured'"
mine=$(for a in ${configured//;/ }; do printf -- '--offload-arch=%s ' "$a"; done)
line=$(BUILD_DIR=$scratch/gfx950-rejected/build amalgamate repro_hip_vmem_pinned)
expect "configured '$configured'" repro_hip_vmem_pinned "$line" "${mine% }" "$want"
for spelled in "gfx942;gfx1100" "gfx942,gfx1100"; do
  line=$(BUILD_DIR=$scratch/gfx950-rejected/build HIP_ARCH=$spelled amalgamate repro_hip_vmem_pinned)
  expect "HIP_ARCH=$spelled" repro_hip_vmem_pinned "$line" "--offload-arch=gfx942 --offload-arch=gfx1100" \
    "--offload-arch=gfx942 --offload-arch=gfx1100"
done
echo "hip_archs: a configured build is printed as configured (${mine% }), HIP_ARCH wins, the header stays the default"

# The build without cmake: every compiler a stand-in, so only the commands are seen.
BUILD_DIR=$scratch/single PATH="$scratch/bin:/usr/bin:/bin" \
  bash -c 'set -euo pipefail; source "$1/scripts/lib/common.sh"; vmr_build_single_files' vmr "$root" \
  >"$scratch/single.out" 2>&1 || say_fail "the single-file build failed: $(tail -5 "$scratch/single.out")"
hip_binaries=$(awk '$1 == "binary" && ($3 == "hip" || $3 == "hsa") { print $2 }' "$root/repro/manifest.txt")
[ -n "$hip_binaries" ] || say_fail "repro/manifest.txt names no HIP binary"
for name in $hip_binaries; do
  used=$(sed -n "s|^-std=c++17 -O2 \(.*\) [^ ]*/$name\.hip -o $name -lhsa-runtime64 -ldl\$|\1|p" "$scratch/hipcc.log")
  [ "$used" = "$want" ] || say_fail "the single-file build compiled $name for '$used', expected $want"
done
echo "hip_archs: the build without cmake compiles every HIP binary with those targets"
exit $status
