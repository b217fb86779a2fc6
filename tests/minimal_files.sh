#!/usr/bin/env bash
# The minimal reproducers (repro/minimal/) stay what a maintainer reads in one screen and can build as told:
#   - at most 150 lines that are neither blank nor comments, counted and printed per file;
#   - a header naming its suite case (`// suite case: <binary>.<case>`, a binary of repro/manifest.txt whose --list
#     has the case where it was built), its one build command (`// build:`), run command (`// run:`) and exit codes;
#   - the header's build command works, run as written in a scratch folder, wherever its compiler is installed;
#   - every failure the suite knows has one: each case of expected/verdicts.md with a row allowing FAIL, CRASH or HANG
#     (the harness's own self-test cases aside) is named by some file's `// suite case:` or `// variant` line;
#   - the pieces every file writes out alike (pass_fd, the SCM_RIGHTS half) are the same text in each, so a fix made
#     in one is made in all;
#   - tests/minimal_agree.sh, which the minimal.* tests run, says DISAGREE when a minimal and its case differ.
#   tests/minimal_files.sh REPO_ROOT BIN_DIR
set -uo pipefail
root=$1 bin=$2 budget=150 status=0
say_fail() { echo "FAIL: $*"; status=1; }
VMR_ROOT=$root
source "$root/scripts/lib/minimal.sh"
code_lines() { vmr_minimal_code_lines "$1"; }
# The text of function NAME in FILE: from its definition line to the first line that is only "}".
function_text() { sed -n "/^static [a-z ]*$2(/,/^}/p" "$1"; }
within_budget() { [ "$(code_lines "$1")" -le "$budget" ]; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mapfile -t files < <(vmr_minimal_files)
[ ${#files[@]} -gt 0 ] || say_fail "no minimal reproducer in $root/repro/minimal"
for f in "${files[@]}"; do
  name=$(basename "$f")
  code=$(code_lines "$f")
  within_budget "$f" || say_fail "$name has $code lines of code, over the budget of $budget"
  for key in "suite case" build run exit; do
    grep -q "^// $key: " "$f" || say_fail "$name: its header has no '// $key: ' line"
  done
  cases=$(sed -n -e 's|^// suite case: \([^ ]*\).*|\1|p' -e 's|^// variant [A-Z_]*: \([^ ]*\).*|\1|p' "$f")
  for bc in $cases; do
    binary=${bc%%.*} case=${bc#*.}
    grep -Eq "^binary $binary " "$root/repro/manifest.txt" || say_fail "$name names $bc: no binary $binary in repro/manifest.txt"
    if [ -x "$bin/$binary" ] && ! "$bin/$binary" --list | awk '{print $1}' | grep -qx -- "$case"; then
      say_fail "$name names $bc: $binary lists no case $case"
    fi
  done
  build=$(vmr_minimal_build_line "$f" -)
  compiler=${build%% *}
  if command -v "$compiler" >/dev/null 2>&1; then
    mkdir -p "$scratch/$name" && cp "$f" "$scratch/$name/"
    if (cd "$scratch/$name" && eval "$build") >"$scratch/$name.log" 2>&1; then
      built="its build line works ($compiler)"
    else
      say_fail "$name: its build line failed: $build"
      grep -E 'error' "$scratch/$name.log" | head -n 5
      built="its build line FAILED"
    fi
  else
    built="build line not tried: no $compiler here"
  fi
  echo "minimal: $name: $code lines of code (budget $budget), suite case $(echo $cases | tr ' ' ','), $built"
done
# One pass_fd: every file that has one has the first file's text; prints the first that differs, status 1.
first_other_pass_fd() {
  local f text reference=
  for f in "$@"; do
    text=$(function_text "$f" pass_fd)
    [ -n "$text" ] || continue
    if [ -z "$reference" ]; then
      reference=$text
    elif [ "$text" != "$reference" ]; then
      basename "$f"
      return 1
    fi
  done
}
if other=$(first_other_pass_fd "${files[@]}"); then
  echo "minimal: pass_fd is the same text in every file that has it"
else
  say_fail "$other's pass_fd differs from the other files': one fix, every file (diff them)"
fi
# ... and the check can fail: a copy of a file whose pass_fd sends another byte.
sed '/^static int pass_fd(/,/^}/s/char byte = .f./char byte = '"'"'g'"'"'/' "$root/repro/minimal/host_shm_atomics.cpp" >"$scratch/drift.cpp"
if other=$(first_other_pass_fd "$root/repro/minimal/host_shm_atomics.cpp" "$scratch/drift.cpp"); then
  say_fail "a pass_fd that sends another byte passed as the same text"
else
  echo "minimal: a pass_fd that drifted ($other) is found, as it must be"
fi
# The known failures: cases with a row allowing FAIL, CRASH or HANG, not labelled selftest; prints those no minimal
# file names.
cases_without_minimal() {
  local bc
  awk -F'|' '/^\| repro_/ {
      b = $2; c = $3; v = $5; l = $6
      gsub(/ /, "", b); gsub(/ /, "", c); sub(/~.*/, "", v); gsub(/ /, "", v)
      if (l ~ /selftest/) next
      if (v ~ /FAIL|CRASH|HANG/ && !seen[b "." c]++) print b "." c
    }' "$1" |
    while read -r bc; do vmr_minimal_of "$bc" >/dev/null || echo "$bc"; done
}
missing=$(cases_without_minimal "$root/expected/verdicts.md")
if [ -n "$missing" ]; then
  say_fail "known failures with no minimal reproducer: $(echo $missing)"
else
  echo "minimal: every case expected/verdicts.md allows to FAIL, CRASH or HANG (self-tests aside) has a minimal file"
fi
# ... and the check can fail: a table with one more failing case.
{ cat "$root/expected/verdicts.md"; echo "| repro_hip_vmem_pinned | made-up | * | FAIL ~x | - | - |"; } >"$scratch/table.md"
if [ "$(cases_without_minimal "$scratch/table.md")" = repro_hip_vmem_pinned.made-up ]; then
  echo "minimal: a failing case without a minimal file is named, as it must be"
else
  say_fail "a failing case without a minimal file (repro_hip_vmem_pinned.made-up) was not named"
fi
# The budget check must be able to fail: 151 lines of code, with blank and comment lines that do not count.
{ for i in $(seq 151); do printf 'int v%d;\n\n// a comment\n' "$i"; done; } >"$scratch/over.cpp"
if within_budget "$scratch/over.cpp"; then
  say_fail "a file of 151 lines of code passed the budget of $budget"
else
  echo "minimal: a file of $(code_lines "$scratch/over.cpp") lines of code is over the budget, as it must be"
fi
# The agreement check must be able to fail: a program that always FAILs against a case that PASSes here.
if [ -x "$bin/repro_host_shm" ]; then
  out=$(bash "$root/tests/minimal_agree.sh" /bin/false "$bin/repro_host_shm" atomics 2>&1)
  rc=$?
  if [ "$rc" = 1 ] && grep -q DISAGREE <<<"$out"; then
    echo "minimal: minimal_agree.sh says DISAGREE for /bin/false against repro_host_shm.atomics"
  else
    say_fail "minimal_agree.sh did not report /bin/false (FAIL) against repro_host_shm.atomics (PASS): rc $rc: $out"
  fi
fi
exit $status
