#!/usr/bin/env bash
# The expected table as C++ (vmr::kExpectedTable, what every binary embeds): the one generator of it, called by
# CMake's build (common/harness/CMakeLists.txt), scripts/amalgamate and the single-file build (common.sh).
#   bash scripts/lib/expected_table_cpp.sh TABLE [OUT]    no OUT: to stdout; OUT is replaced whole or not at all
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: expected_table_cpp.sh TABLE [OUT]" >&2; exit 2; }
table=$1
[ -r "$table" ] || { echo "expected_table_cpp.sh: cannot read $table" >&2; exit 2; }
# The table goes in byte for byte as a raw string; only its closing sequence could end it early.
if grep -qF ')vmrtable"' "$table"; then
  echo "expected_table_cpp.sh: $table contains )vmrtable\" (the end of the raw string it is embedded in)" >&2
  exit 2
fi
emit() {
  printf '// Generated from expected/verdicts.md by scripts/lib/expected_table_cpp.sh. Do not edit.\n'
  printf 'namespace vmr {\nextern const char kExpectedTable[] = R"vmrtable('
  cat "$table"
  printf ')vmrtable";\n}  // namespace vmr\n'
}
if [ $# -eq 2 ]; then
  emit >"$2.new"
  mv "$2.new" "$2"
else
  emit
fi
