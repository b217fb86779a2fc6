# Shared by the scripts: repository root, build directory, dependency installation and the build itself.
# Sourced, not run. Honours BUILD_DIR (default: build).

VMR_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$VMR_ROOT/$BUILD_DIR" ;; esac

vmr_say() { printf '%s\n' "$*" >&2; }

# Installs the Debian packages given when missing: with apt-get as root on Debian/Ubuntu, otherwise prints the
# exact command and fails.
vmr_need_packages() {
  local missing=() p
  if ! command -v dpkg-query >/dev/null 2>&1; then
    vmr_say "not a Debian/Ubuntu system: make sure these (Debian names) are installed: $*"
    return 0
  fi
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    vmr_say "installing: ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    vmr_say "missing packages: ${missing[*]}"
    vmr_say "install them with: sudo apt-get install -y ${missing[*]}"
    return 1
  fi
}

# Debian's ROCm 5.2.3 (enough to compile HIP for gfx90a), and the links CMake 3.25's HIP language needs:
# Debian puts ROCm's CMake packages under /usr/lib/x86_64-linux-gnu/cmake, where enable_language(HIP) does not look.
vmr_need_rocm() {
  vmr_need_packages hipcc libamdhip64-dev libhsa-runtime-dev || return 1
  local d
  for d in hip-lang hip amd_comgr hsa-runtime64; do
    [ -e "/usr/lib/cmake/$d" ] && continue
    if [ "$(id -u)" = 0 ]; then
      mkdir -p /usr/lib/cmake && ln -s "/usr/lib/x86_64-linux-gnu/cmake/$d" "/usr/lib/cmake/$d"
    else
      vmr_say "run as root: ln -s /usr/lib/x86_64-linux-gnu/cmake/$d /usr/lib/cmake/$d"
      return 1
    fi
  done
}

# The preset that fits this machine: debian-rocm where Debian's ROCm is set up, else default.
vmr_preset() {
  if [ -e /usr/lib/cmake/hip-lang ] && command -v clang++-15 >/dev/null 2>&1 &&
     [ -d /usr/lib/x86_64-linux-gnu/amdgcn/bitcode ] && [ ! -e /opt/rocm ]; then
    echo debian-rocm
  else
    echo default
  fi
}

# Configures $BUILD_DIR once: enough for bin/manifest.txt, the list of every binary and its sources.
vmr_configure() {
  vmr_need_packages cmake g++ make git libgtest-dev || return 1
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    cmake --preset "$(vmr_preset)" -S "$VMR_ROOT" -B "$BUILD_DIR" >&2 || return 1
  fi
}

# Configures (once) and builds everything this machine can build into $BUILD_DIR.
vmr_build() {
  vmr_configure || return 1
  cmake --build "$BUILD_DIR" -j "$(nproc)" >&2
}

# The manifest's lines (binary, backend, built, defines, sources; tab-separated), comments left out.
vmr_manifest() {
  grep -v '^#' "$BUILD_DIR/bin/manifest.txt"
}

# What a report meant for a public issue keeps of the kernel command line: the parameters that matter for P2P
# (IOMMU mode, PCIe, the GPU drivers'); the rest can hold credentials and site details and is only counted.
vmr_p2p_cmdline() {
  local kept=() dropped=0 p
  for p in $(cat /proc/cmdline 2>/dev/null); do
    if [[ "$p" =~ ^(iommu|amd_iommu|intel_iommu|pci|pcie_[a-z_]+|amdgpu\.[a-z_]+|amdkfd\.[a-z_]+|nvidia\.[A-Za-z_]+|nvidia-drm\.[a-z_]+)(=|$) ]]; then
      kept+=("$p")
    else
      dropped=$((dropped + 1))
    fi
  done
  printf '%s (%d other parameter(s) left out; --no-redact shows them)\n' "${kept[*]:-(no P2P-relevant parameters)}" "$dropped"
}

# Filters text for a public issue: the host's names become <host>, home folders /home/<user>, and the user's name
# <user> (not root's: "root" is also an ordinary word).
vmr_redact() {
  local args=() name
  for name in $(hostname -f 2>/dev/null) $(hostname -s 2>/dev/null) $(uname -n); do
    [ ${#name} -ge 2 ] && args+=(-e "s/(^|[^A-Za-z0-9_.-])$(printf '%s' "$name" | sed 's/[.[\*^$/]/\\&/g')([^A-Za-z0-9_-]|$)/\1<host>\2/g")
  done
  args+=(-e 's#/(home|Users)/[^/[:space:]"'"'"']+#/\1/<user>#g')
  name=$(id -un 2>/dev/null)
  if [ -n "$name" ] && [ "$name" != root ] && [ ${#name} -ge 3 ]; then
    args+=(-e "s/(^|[^A-Za-z0-9_-])$(printf '%s' "$name" | sed 's/[.[\*^$/]/\\&/g')([^A-Za-z0-9_-]|$)/\1<user>\2/g")
  fi
  sed -E "${args[@]}"
}
