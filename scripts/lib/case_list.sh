# A binary's cases, as its `--list --json FILE` writes them: the one way CMake's discovery
# (cmake/DiscoverCases.cmake), triage and bisect ask (check_expected, listing a binary itself, does the same in
# tools/case_list.cpp). Sourced, not run; needs nothing else from scripts/lib.
#   vmr_list_cases BINARY FILE   exit: the binary's; 124 when it did not finish in time (said on stderr)
# HIP_ENABLE_DEFERRED_LOADING=1: with 0 in the caller's environment CLR registers its kernels, and so starts the HIP
# runtime, while the binary loads, which can abort or hang on a GPU node; --list itself touches no runtime.
# Bounded: a binary that hangs while it loads (a runtime started at load time) must not hang its caller.
vmr_list_timeout_s=60
vmr_list_cases() {
  local rc=0
  HIP_ENABLE_DEFERRED_LOADING=1 timeout -k 5 "$vmr_list_timeout_s" "$1" --list --json "$2" >/dev/null || rc=$?
  [ "$rc" != 124 ] && [ "$rc" != 137 ] || { echo "$1 --list --json did not finish in $vmr_list_timeout_s s: killed" >&2; rc=124; }
  return "$rc"
}
