# A binary's cases, as its `--list --json FILE` writes them: the one way they are asked for, by CMake's discovery
# (cmake/DiscoverCases.cmake), triage, bisect, and check_expected (tools/case_list.cpp runs this function, for
# bug-report and the table check). Sourced, not run; needs nothing else from scripts/lib.
#   vmr_list_cases BINARY FILE   exit: the binary's, 124 when it did not finish in time; on any failure one line on
#                                stderr naming the binary as the problem, and no FILE (a list the binary wrote before
#                                it failed is never read as its cases)
# The policy, here alone:
# - HIP_ENABLE_DEFERRED_LOADING=1: with 0 in the caller's environment CLR registers its kernels, and so starts the
#   HIP runtime, while the binary loads, which can abort or hang on a GPU node; --list itself touches no runtime.
# - At most vmr_list_timeout_s seconds (VMR_LIST_TIMEOUT_S, a whole number of seconds, for the tests of a binary that
#   hangs): a binary that hangs while it loads (a runtime started at load time) must not hang its caller.
vmr_list_timeout_s=60
[[ "${VMR_LIST_TIMEOUT_S-}" =~ ^[1-9][0-9]{0,3}$ ]] && vmr_list_timeout_s=$VMR_LIST_TIMEOUT_S
vmr_list_cases() {
  local rc=0 said started=$SECONDS
  rm -f "$2"
  said=$(HIP_ENABLE_DEFERRED_LOADING=1 timeout -k 5 "$vmr_list_timeout_s" "$1" --list --json "$2" 2>&1 >/dev/null) ||
    rc=$?
  [ "$rc" != 0 ] || return 0
  rm -f "$2"
  said=$(printf '%s\n' "$said" | tr -d '\r' | grep -v '^[[:space:]]*$' | tail -n 1)
  # (137 is timeout's SIGKILL, 5 s after its TERM, or the binary's own death by SIGKILL well before the limit)
  if [ "$rc" = 124 ] || { [ "$rc" = 137 ] && [ $((SECONDS - started)) -ge "$vmr_list_timeout_s" ]; }; then
    echo "$1 --list --json did not finish in $vmr_list_timeout_s s: killed" >&2
    rc=124
  elif [ "$rc" -gt 128 ]; then
    echo "$1 --list --json was killed by signal $((rc - 128))${said:+ (its last line: ${said:0:300})}" >&2
  else
    echo "$1 --list --json exited $rc${said:+: ${said:0:300}}" >&2
  fi
  return "$rc"
}
