#!/usr/bin/env bash
# The includes of common/ against the layer order common/CMakeLists.txt writes down: no file includes a folder after
# its own (nor amd/ cuda/ or cuda/ amd/), no include loop between files (x.h and x.cpp taken as one), and nothing in
# common/ includes the entry harness/harness.h. Prints each include that points up.
#   tests/include_layers.sh REPO_ROOT
set -uo pipefail
root=$1
order_line=$(sed -n 's/^# Layer order, lowest first ([^)]*): //p' "$root/common/CMakeLists.txt")
if [ -z "$order_line" ]; then
  echo "FAIL: common/CMakeLists.txt has no '# Layer order, lowest first (...): a < b < c, d' line"
  exit 1
fi
declare -A level=()
n=0
IFS='<' read -r -a levels <<<"$order_line"
for peers in "${levels[@]}"; do
  for folder in ${peers//,/ }; do level[$folder]=$n; done
  n=$((n + 1))
done
status=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
cd "$root/common" || exit 99
for file in */*.h */*.cpp */*.hip */*.cu; do
  [ -f "$file" ] || continue
  from=${file%%/*}
  if [ -z "${level[$from]-}" ]; then
    echo "FAIL: common/$from/ is not in the layer order ($order_line)"
    status=1
    continue
  fi
  while IFS= read -r inc; do
    to=${inc%%/*}
    [ -n "${level[$to]-}" ] || continue  # not a layer of common/ (a test's or the build's own header)
    if [ "$inc" = harness/harness.h ] && [ "$file" != harness/harness.cpp ]; then
      echo "FAIL: common/$file includes the entry harness/harness.h (the layers below it include harness/binary_table.h)"
      status=1
    elif [ "$to" != "$from" ] && [ "${level[$to]}" -ge "${level[$from]}" ]; then
      echo "FAIL: common/$file includes $inc: $to/ is not below $from/ ($order_line)"
      status=1
    fi
    echo "${inc%.h} ${file%.*}" >>"$edges"
  done < <(sed -n 's/^#include "\([a-z_0-9]*\/[a-z_0-9]*\.h\)".*/\1/p' "$file")
done
if ! loop=$(tsort "$edges" 2>&1 >/dev/null); then
  echo "FAIL: an include loop between files of common/ (tsort names its members):"
  printf '%s\n' "$loop"
  status=1
fi
[ "$status" = 0 ] && echo "include_layers: every include of common/ points down ($order_line)"
exit "$status"
