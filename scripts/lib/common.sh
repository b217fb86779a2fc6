# Shared by the scripts: repository root, build directory, dependency installation and the build itself.
# Sourced, not run. Honours BUILD_DIR (default: build).

VMR_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$VMR_ROOT/$BUILD_DIR" ;; esac

vmr_say() { printf '%s\n' "$*" >&2; }

# A script's usage is its header comment (line 2 up to the first line that is not a comment), printed without "# ".
vmr_usage() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$1"; }
# Sourced with the script's own arguments: every script answers a first -h/--help with its usage before it does
# anything (a script that took its first argument as a file name once wrote a benchmark into "--help").
case "${1-}" in -h|--help) vmr_usage "$0"; exit 0 ;; esac

# Installs the Debian packages given when missing: with apt-get as root on Debian/Ubuntu, otherwise prints the
# exact command and fails.
vmr_need_packages_no_recommends() { VMR_APT_EXTRA=--no-install-recommends vmr_need_packages "$@"; }

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
    # Bounded: a node without network (many GPU nodes) answers with a failure, not a wait.
    # (DPkg::Lock::Timeout: another apt on the machine, e.g. unattended-upgrades, is waited for, not a failure.)
    timeout 120 apt-get -o DPkg::Lock::Timeout=60 update -qq &&
      DEBIAN_FRONTEND=noninteractive timeout 600 apt-get -o DPkg::Lock::Timeout=60 install -y -qq ${VMR_APT_EXTRA-} "${missing[@]}" >/dev/null
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

# Installs the Debian packages of the commands that are missing: a command already on PATH (a cmake from a Python
# environment, say) is used as it is, and nothing is installed for it.
vmr_need_commands() {
  local missing=() c
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 && continue
    case "$c" in
      c++) missing+=(g++) ;;
      *) missing+=("$c") ;;
    esac
  done
  [ ${#missing[@]} -eq 0 ] || vmr_need_packages "${missing[@]}"
}

# Configures $BUILD_DIR once: enough for bin/manifest.txt, the list of every binary and its sources.
vmr_configure() {
  vmr_need_commands cmake c++ make || return 1
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    # VMR_CMAKE_ARGS: extra cache settings (.ci/run: -DVMR_WERROR=ON), split on spaces.
    cmake --preset "$(vmr_preset)" -S "$VMR_ROOT" -B "$BUILD_DIR" ${VMR_CMAKE_ARGS-} >&2 || return 1
  fi
}

# Builds everything this machine can build into $BUILD_DIR: with cmake where it is (or can be installed), else the
# single-file reproducers with the compilers found on PATH. VMR_BUILT_WITH says which.
vmr_build() {
  if command -v cmake >/dev/null 2>&1 || vmr_need_commands cmake; then
    vmr_configure || return 1
    VMR_BUILT_WITH=cmake
    cmake --build "$BUILD_DIR" -j "$(nproc)" >&2
    return
  fi
  vmr_say "no cmake here (nor a way to install one): building the single-file reproducers with the compilers on PATH"
  vmr_build_single_files
}

# The single-file path: scripts/amalgamate's files, each built with its one compiler command where that compiler
# is on PATH, and check_expected and triage_plan with the C++ compiler; writes $BUILD_DIR/bin/manifest.txt in CMake's columns, with
# toolchain "ok" where the compile succeeded (this build made it), "missing" where no compiler or the compiler refused
# the file.
vmr_build_single_files() {
  local bin="$BUILD_DIR/bin" dist="$BUILD_DIR/dist" cxx name backend built defines sources cmd
  cxx=$(command -v c++ || command -v g++ || command -v clang++) || { vmr_say "no C++ compiler on PATH"; return 1; }
  mkdir -p "$bin" "$dist"
  source "$VMR_ROOT/scripts/lib/manifest.sh"
  source "$VMR_ROOT/scripts/lib/cuda_archs.sh"  # vmr_nvcc: the nvcc amalgamate's printed command is for
  {
    echo "# vmem-repro manifest (single-file build, no cmake): binary, backend, toolchain (ok: it works, so this build makes the binary, linked if bin/<binary> is there; missing: none here), defines, sources"
    while IFS=$'\t' read -r name backend toolchain defines sources; do
      toolchain=missing
      case "$backend" in  # (a missing compiler is an empty `need`, never an error: callers run under set -e)
        host) need=$cxx ;;
        cuda) need=$(vmr_nvcc || true) ;;
        *) need=$(command -v hipcc || true) ;;
      esac
      if [ -n "$need" ] && cmd=$(DIST_DIR="$dist" "$VMR_ROOT/scripts/amalgamate" "$name" 2>/dev/null); then
        cmd=${cmd/#nvcc /$need }
        cmd=${cmd/#g++ /$cxx }
        rm -f "$bin/$name"  # (a binary of an earlier build is not this build's)
        # Written after the compile, so "ok" here is what was linked: a compile that fails is this compiler's
        # answer for this file, and building again would give the same.
        if (cd "$bin" && eval "$cmd") >&2; then toolchain=ok; else vmr_say "single-file build of $name failed: $cmd"; fi
      fi
      printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$backend" "$toolchain" "$defines" "$sources"
    done < <(vmr_manifest_from_sources)
  } >"$bin/manifest.txt.new"
  # check_expected: the harness's sources, the tool and its library, and the expected table from its one generator.
  bash "$VMR_ROOT/scripts/lib/expected_table_cpp.sh" "$VMR_ROOT/expected/verdicts.md" "$dist/expected_table.cpp"
  local harness=() f
  for f in $(vmr_manifest_from_sources | awk -F'\t' '$1 == "repro_host_shm" { print $5 }'); do
    [[ "$f" == common/harness/* ]] && harness+=("$VMR_ROOT/$f")
  done
  # The tools' library: its files as repro/manifest.txt lists them (CMake builds it from the same lines).
  local tools=()
  for f in $(vmr_library_sources vmr_tools); do tools+=("$VMR_ROOT/$f"); done
  [ ${#tools[@]} -gt 0 ] || { vmr_say "repro/manifest.txt names no sources of vmr_tools"; return 1; }
  local lister=-DVMR_CASE_LISTER="\"$VMR_ROOT/scripts/lib/case_list.sh\""
  "$cxx" -std=c++17 -O2 -pthread -I"$VMR_ROOT/common" -I"$VMR_ROOT/tools" \
    "$lister" "$VMR_ROOT/tools/check_expected.cpp" "${tools[@]}" \
    "${harness[@]}" "$dist/expected_table.cpp" -o "$bin/check_expected" >&2 ||
    { vmr_say "building check_expected failed"; return 1; }
  # triage_plan: the triage's planner, its library and the tools' (the Pair, the case list, the flag parser).
  local planner=()
  for f in $(vmr_library_sources vmr_triage_plan); do planner+=("$VMR_ROOT/$f"); done
  "$cxx" -std=c++17 -O2 -pthread -I"$VMR_ROOT/common" -I"$VMR_ROOT/tools" "$lister" "$VMR_ROOT/tools/triage_plan.cpp" "${planner[@]}" \
    "${tools[@]}" "${harness[@]}" "$dist/expected_table.cpp" -o "$bin/triage_plan" >&2 ||
    { vmr_say "building triage_plan failed"; return 1; }
  mv "$bin/manifest.txt.new" "$bin/manifest.txt"
  VMR_BUILT_WITH=single-file
}

# What a ctest log says, in the forms of CMake 3.25 (Debian 12) and 4.x (which adds each failed test's labels after
# its status, and writes "100% tests passed out of N" when none failed).
# The names of the failed tests, one per line (ours have no spaces).
vmr_ctest_failed() {
  sed -n '/^The following tests FAILED:/,$p' "$1" | sed -nE 's/^[[:space:]]*[0-9]+ - ([^[:space:]]+) \([^)]*\)([[:space:]].*)?$/\1/p'
}
# The summary line ("99% tests passed, 1 tests failed out of 99"); fails when the log has none (ctest did not run).
vmr_ctest_summary() {
  grep -m1 -oE '[0-9]+% tests passed(, [0-9]+ tests failed)? out of [0-9]+' "$1"
}

# The manifest's lines (binary, backend, toolchain, defines, sources; tab-separated), comments left out. The
# toolchain is "ok" (it works: this build makes the binary) or "missing"; a binary was linked where its toolchain is
# "ok" and bin/<binary> is there (see vmr_missing_binaries).
vmr_manifest() {
  grep -v '^#' "$BUILD_DIR/bin/manifest.txt"
}
# The binaries this build makes (toolchain "ok") that are not there: a partial or failed build. One name a line.
# A toolchain neither "ok" nor "missing" (an older build's manifest said "yes") counts as missing too, so that the
# callers build again (which writes the manifest anew) rather than read the binary as one without a toolchain.
vmr_missing_binaries() {
  vmr_manifest | while IFS=$'\t' read -r name _ toolchain _; do
    [ "$toolchain" = missing ] || { [ "$toolchain" = ok ] && [ -x "$BUILD_DIR/bin/$name" ]; } || echo "$name"
  done
}
# Whether bin/manifest.txt is an older build's: a toolchain column neither "ok" nor "missing" (it said "yes"), which
# vmr_missing_binaries counts as missing. A caller that cannot build says so rather than name its binaries missing.
vmr_manifest_is_older() {
  vmr_manifest | awk -F'\t' 'NF > 2 && $3 != "ok" && $3 != "missing" { older = 1 } END { exit !older }'
}

# The kernel command line. VMR_CMDLINE_FILE is a test seam: tests/redaction.sh names a fabricated command line
# there (a real /proc/cmdline cannot be chosen); collect-env lists it among the VMR_ variables when it is set.
vmr_cmdline() {
  cat "${VMR_CMDLINE_FILE:-/proc/cmdline}" 2>/dev/null
}

# What a report meant for a public issue keeps of the kernel command line: the parameters that matter for P2P
# (IOMMU mode, PCIe, the GPU drivers'); the rest can hold credentials and site details and is only counted.
# Split on blanks by read, not by an unquoted $(...): a parameter holding * or ? is text, never a glob over the
# working folder. What it keeps is not yet redacted (a path in nvidia.NVreg_TemporaryFilePath, a host in pci=...):
# vmr_redact runs after it.
vmr_p2p_cmdline() {
  local kept=() dropped=0 p params=()
  read -r -d '' -a params < <(vmr_cmdline) || true  # (read meets the end of the text before a NUL: status 1)
  for p in "${params[@]}"; do
    if [[ "$p" =~ ^(iommu|amd_iommu|intel_iommu|pci|pcie_[a-z_]+|amdgpu\.[a-z_]+|amdkfd\.[a-z_]+|nvidia\.[A-Za-z_]+|nvidia-drm\.[a-z_]+)(=|$) ]]; then
      kept+=("$p")
    else
      dropped=$((dropped + 1))
    fi
  done
  vmr_printable "${kept[*]:-(no P2P-relevant parameters)} ($dropped other parameter(s) left out; --no-redact shows them)"
}

# TEXT on one line, whatever it holds: its control characters (a newline among them) as \xNN, as the harness's
# printable() (common/harness/text.cpp) writes a value, so a value cannot forge a line of its own. Byte by byte
# (LC_ALL=C), as printable() goes.
vmr_printable() {
  local LC_ALL=C s=$1 out= c i
  [[ "$s" == *[[:cntrl:]]* ]] || { printf '%s\n' "$s"; return; }
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    [[ "$c" == [[:cntrl:]] ]] && printf -v c '\\x%02x' "'$c"
    out+=$c
  done
  printf '%s\n' "$out"
}

# The names of the users behind this run, one a line: the effective user (id -un), the one who ran sudo
# (SUDO_USER), the login name (LOGNAME, USER, and logname: the owner of the session). Not root: "root" is also an
# ordinary word and names no one. Not a name holding a control character: no login has one, and a forged value
# with a newline would come out as two names (its pieces, "x" and "y", redacted wherever they are words).
vmr_user_names() {
  local name
  for name in "$(id -un 2>/dev/null)" "${SUDO_USER-}" "${LOGNAME-}" "${USER-}" "$(logname 2>/dev/null)"; do
    [ -n "$name" ] && [ "$name" != root ] && [[ "$name" != *[[:cntrl:]]* ]] && printf '%s\n' "$name"
  done | sort -u
}

# TEXT as a sed -E pattern that matches it literally (and may sit between s/ and /): each character special to an
# extended regular expression, and the slash, after a backslash.
vmr_ere_literal() {
  printf '%s' "$1" | sed 's/[][\.*^$/+?(){}|]/\\&/g'
}

# Filters text for a public issue: the host's names become {host}, home folders /home/{user}, and the names of
# vmr_user_names {user}. A user name is replaced as a whole word (\b where it begins or ends with a letter, digit or
# _), whatever its length: a name of one or two letters ("a", "ro") cannot be told from the same word in the text,
# and a word lost to {user} costs a public issue less than a name let through, while whole-word keeps such a name
# from eating its letters inside other words ("amdgpu", "error" stay). \b takes no character, so two names side by
# side are both replaced. The placeholders are in braces, which mean nothing to Markdown: <host> would be an HTML
# tag to GitHub, which hides it ("on <host>" read "on ").
vmr_redact() {
  local args=() name pre post
  for name in $(hostname -f 2>/dev/null) $(hostname -s 2>/dev/null) $(uname -n); do
    [ ${#name} -ge 2 ] && args+=(-e "s/(^|[^A-Za-z0-9_.-])$(vmr_ere_literal "$name")([^A-Za-z0-9_-]|$)/\1{host}\2/g")
  done
  args+=(-e 's#/(home|Users)/[^/[:space:]"'"'"']+#/\1/{user}#g')
  while IFS= read -r name; do
    pre= post=
    [[ "$name" == [A-Za-z0-9_]* ]] && pre='\b'
    [[ "$name" == *[A-Za-z0-9_] ]] && post='\b'
    args+=(-e "s/$pre$(vmr_ere_literal "$name")$post/{user}/g")
  done < <(vmr_user_names)
  sed -E "${args[@]}"
}

# Copies this working tree into DEST: the tracked files and the untracked ones git does not ignore (a copy
# without git: everything but build and results folders). One tar stream, read from a NUL-separated list, so no
# file name is split and no second archive is left unread.
vmr_copy_tree() {
  local dest=$1
  mkdir -p "$dest" || return 1
  if git -C "$VMR_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (set -o pipefail; cd "$VMR_ROOT" && git ls-files -co --exclude-standard -z | tar --null -cf - -T - | tar -xf - -C "$dest")
  else
    (set -o pipefail; tar -C "$VMR_ROOT" --exclude='./build*' --exclude='./results' -cf - . | tar -xf - -C "$dest")
  fi
}
