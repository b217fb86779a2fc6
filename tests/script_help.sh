#!/usr/bin/env bash
# Every script's --help prints its header comment, all of it and nothing else (no script code past it), exits 0 and
# does nothing else: no build, no results folder, no file named "--help".
#   tests/script_help.sh SCRIPTS_DIR
set -uo pipefail
dir=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
checked=0
for script in "$dir"/*; do
  [ -f "$script" ] && [ -x "$script" ] || continue
  name=$(basename "$script")
  # The header as read here: from line 2, each comment line without "# ", up to the first line that is not one.
  sed -n '2,$p' "$script" | sed -n '/^#/!q; s/^# \{0,1\}//; p' >"$work/want"
  mkdir -p "$work/cwd-$name"
  (cd "$work/cwd-$name" && RESULTS_ROOT="$work/results" RESULTS_DIR="$work/results/x" BUILD_DIR="$work/no-build" \
    timeout 20 "$script" --help) >"$work/got" 2>"$work/err"
  rc=$?
  checked=$((checked + 1))
  if [ "$rc" != 0 ]; then
    echo "FAIL: $name --help exited $rc: $(head -n 3 "$work/err")"; fail=1; continue
  fi
  if [ ! -s "$work/want" ]; then echo "FAIL: $name has no header comment to print"; fail=1; continue; fi
  if ! cmp -s "$work/want" "$work/got"; then
    echo "FAIL: $name --help is not its header comment:"; diff "$work/want" "$work/got" | head -n 8; fail=1
  fi
  if [ -n "$(ls -A "$work/cwd-$name")" ] || [ -e "$work/results" ] || [ -e "$work/no-build" ]; then
    echo "FAIL: $name --help left files: $(ls -A "$work/cwd-$name" "$work/results" "$work/no-build" 2>/dev/null | head -n 5)"
    fail=1
    rm -rf "$work/results" "$work/no-build"
  fi
done
[ "$checked" -ge 10 ] || { echo "FAIL: only $checked scripts found in $dir"; fail=1; }
[ "$fail" = 0 ] && echo "script_help: $checked scripts, each --help its whole header and nothing else"
exit "$fail"
