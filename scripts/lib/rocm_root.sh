# Real ROCm releases to build against, each in a root made from Debian's own packages: Debian 12 serves only ROCm
# 5.2.3 (HSA AMD interface 1.0), which no user runs, and a default build once failed on every real ROCm >= 6.0 while
# a 5.2.3 build stayed green. Sourced by scripts/test, not run; needs VMR_ROOT and vmr_say (scripts/lib/common.sh).
#
#   sid           libamdhip64-dev and libhsa-runtime-dev 6.4.3, hipcc 7.0.2 on clang-21
#   experimental  all three 7.2.4, hipcc on clang-22
#
# A root is made once with mmdebstrap under VMR_ROCM_ROOTS (default /var/cache/vmem-repro/roots) and kept for the
# next run (a stamp names its suite and packages); a fresh machine makes it from the registry.

VMR_ROCM_ROOTS=${VMR_ROCM_ROOTS:-/var/cache/vmem-repro/roots}
VMR_ROCM_MIRROR=${VMR_ROCM_MIRROR:-http://deb.debian.org/debian}
# What the build and the tests need inside, nothing more.
VMR_ROCM_PACKAGES="hipcc,libamdhip64-dev,libhsa-runtime-dev,cmake,make,g++,libgtest-dev,python3"

vmr_rocm_suites() { echo "sid experimental"; }

# Seconds since the epoch with milliseconds, and a difference of two of them as "12.3 s".
vmr_now() { date +%s.%N | cut -c1-14; }
vmr_seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f s", b - a }'; }

# Makes (or reuses) the root of SUITE and prints its path on stdout; what it cost goes to stderr.
vmr_rocm_root() {
  local suite=$1 root="$VMR_ROCM_ROOTS/$1" stamp t0 sources=() opts=()
  stamp="suite=$suite packages=$VMR_ROCM_PACKAGES mirror=$VMR_ROCM_MIRROR"
  if [ -f "$root/.vmr-root" ] && [ "$(cat "$root/.vmr-root")" = "$stamp" ]; then
    vmr_say "rocm root $suite: reusing $root (made $(date -r "$root/.vmr-root" '+%F %T'); remove it to make it again)"
    printf '%s\n' "$root"
    return 0
  fi
  case "$suite" in
    sid) sources=("deb $VMR_ROCM_MIRROR sid main") ;;
    experimental)
      sources=("deb $VMR_ROCM_MIRROR sid main" "deb $VMR_ROCM_MIRROR experimental main")
      opts=(--aptopt='APT::Default-Release "experimental"') ;;
    *) vmr_say "scripts/test: --rocm takes one of: $(vmr_rocm_suites) (got '$suite')"; return 2 ;;
  esac
  if [ "$(id -u)" != 0 ]; then
    vmr_say "rocm root $suite: making a root (mmdebstrap, chroot, mount) needs root; run as root or with sudo"
    return 1
  fi
  command -v mmdebstrap >/dev/null 2>&1 || vmr_need_packages mmdebstrap || return 1
  rm -rf "$root.new" && mkdir -p "$VMR_ROCM_ROOTS" || return 1
  t0=$(vmr_now)
  # The registry is a snapshot whose Release files have expired: apt refuses it unless told not to check.
  # Each line of mmdebstrap's log gets the time it came, so the download and the bring-up are told apart.
  if ! (set -o pipefail
    mmdebstrap --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' "${opts[@]}" \
      --include="$VMR_ROCM_PACKAGES" sid "$root.new" "${sources[@]}" 2>&1 |
      while IFS= read -r line; do printf '%s %s\n' "$(vmr_now)" "$line"; done >"$VMR_ROCM_ROOTS/$suite.log"); then
    vmr_say "rocm root $suite: mmdebstrap failed (log: $VMR_ROCM_ROOTS/$suite.log):"
    tail -n 15 "$VMR_ROCM_ROOTS/$suite.log" | cut -d' ' -f2- >&2
    rm -rf "$root.new"
    return 1
  fi
  local dl ex end
  dl=$(awk '/downloading packages/ { print $1; exit }' "$VMR_ROCM_ROOTS/$suite.log")
  ex=$(awk '/extracting archives/ { print $1; exit }' "$VMR_ROCM_ROOTS/$suite.log")
  end=$(vmr_now)
  rm -rf "$root" && mv "$root.new" "$root" && printf '%s\n' "$stamp" >"$root/.vmr-root" || return 1
  vmr_say "rocm root $suite: made in $(vmr_seconds "$t0" "$end") (package download $(vmr_seconds "${dl:-$t0}" "${ex:-$t0}"), $(du -sh "$root" | cut -f1) unpacked)"
  printf '%s\n' "$root"
}

# Runs a bash command inside ROOT with /proc mounted, in a mount namespace of its own (so nothing stays mounted,
# whatever happens), with a clean environment.
vmr_in_root() {
  local root=$1
  shift
  unshare --mount --propagation private -- sh -c 'mount -t proc proc "$1/proc" && shift && exec chroot "$@"' \
    sh "$root" "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
    /bin/bash -c "$*"
}

# Builds this working tree (tracked and untracked files git does not ignore) inside the root of SUITE (making the
# root first where it is not there), from the niceness NICE (default 0): scripts/test builds at 19 while the host's
# tests run, so the build takes only the CPU they leave idle (their deadlines keep theirs), and back at 0 after them.
# Its time is written to the root's /build.took for vmr_rocm_root_tests. Returns 1 where the build failed, 2 where
# the root could not be made.
vmr_rocm_root_build() {
  local suite=$1 nice=${2:-0} root t0 t1
  root=$(vmr_rocm_root "$suite") || return 2
  rm -rf "$root/src" "$root/build" "$root/build.took" && vmr_copy_tree "$root/src" || return 1
  vmr_say "rocm root $suite: $(vmr_in_root "$root" "dpkg-query -W -f='\${Package} \${Version}  ' hipcc libamdhip64-dev libhsa-runtime-dev cmake g++")"
  t0=$(vmr_now)
  # VMR_EXPECT_HSA_VMEM_HEADER: these headers declare the HSA vmem API, and hsa_api.h must take their declarations;
  # VMR_WERROR: a warning of clang-21/22 or g++ 16 in our code fails the build, as g++ 12's does on the host.
  # RelWithDebInfo's -O2 (some warnings need the optimiser) without its -g: no debugger runs here, and debug
  # information was a quarter of the root's compile time (8.1 CPU-minutes instead of 10.5 for the sid root).
  # (a subshell reniced: the compilers inherit its niceness)
  (renice --priority "$nice" -p "$BASHPID" >/dev/null && vmr_in_root "$root" "cmake -S /src -B /build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVMR_WERROR=ON \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O2 -DNDEBUG' -DCMAKE_HIP_FLAGS_RELWITHDEBINFO='-O2 -DNDEBUG' \
      -DCMAKE_CXX_FLAGS=-DVMR_EXPECT_HSA_VMEM_HEADER -DCMAKE_HIP_FLAGS=-DVMR_EXPECT_HSA_VMEM_HEADER >/build.configure.log 2>&1 ||
      { tail -n 30 /build.configure.log; exit 1; }
    grep -E '^-- backend' /build.configure.log
    cmake --build /build -j$(nproc) >/build.log 2>&1 || { grep -E -B3 -A12 'error' /build.log | head -n 80; exit 1; }") >&2 ||
    { vmr_say "rocm root $suite: the build FAILED"; return 1; }
  t1=$(vmr_now)
  echo "$(vmr_seconds "$t0" "$t1") from niceness $nice" >"$root/build.took"
}

# Runs, in the root of SUITE that vmr_rocm_root_build built, the unit tests, expected_verdicts (with every case it
# needs) and every AMD binary's --list and cases, which must each SKIP with the real runtime's own answer where the
# machine has no AMD GPU.
vmr_rocm_root_tests() {
  local suite=$1 root="$VMR_ROCM_ROOTS/$1" t1 t2 rc=0
  [ -s "$root/build.took" ] || { vmr_say "rocm root $suite: not built, so not tested"; return 1; }
  t1=$(vmr_now)
  # minimal: the one-file reproducers built with this ROCm, their header's hipcc line run as written, and each
  # started beside its suite case (both SKIP here, without a GPU).
  vmr_in_root "$root" "cd /build && ctest -L '^(unit|minimal)$' -j$(nproc) --output-on-failure >/ctest.log 2>&1 &&
      ctest -R '^expected_verdicts\$' -V >>/ctest.log 2>&1; s=\$?
    grep -E '% tests passed|[0-9]+ OK, [0-9]+ CHANGED|CHANGED  |Failed' /ctest.log | sed 's/^[0-9]*: //'; exit \$s" >&2 || rc=1
  vmr_in_root "$root" "bash /src/scripts/lib/amd_binaries_skip.sh /build/bin" >&2 || rc=1
  t2=$(vmr_now)
  vmr_say "rocm root $suite: build $(cat "$root/build.took"), tests $(vmr_seconds "$t1" "$t2"): $([ $rc = 0 ] && echo passed || echo FAILED)"
  return $rc
}
