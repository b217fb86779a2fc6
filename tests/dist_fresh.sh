#!/usr/bin/env bash
# dist/ (the full single files CI jobs fetch) is what scripts/amalgamate makes from the sources now (test
# dist_fresh), and the check that says so can fail (test dist_check): a copy of dist/ with one file changed and one
# removed is reported, naming both. Two tests, because scripts/mutate must leave the first out: any mutant of a file
# dist/ inlines makes dist/ stale, which says nothing of behaviour.
#   tests/dist_fresh.sh REPO_ROOT fresh|check
set -uo pipefail
root=$1
if [ "$2" = fresh ]; then
  exec "$root/scripts/amalgamate" --check
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$root/dist" "$scratch/dist"
files=("$scratch"/dist/*)
[ ${#files[@]} -ge 2 ] || { echo "FAIL: dist/ holds ${#files[@]} file(s)"; exit 1; }
changed=$(basename "${files[0]}") removed=$(basename "${files[1]}")
echo "// a line nobody generated" >>"${files[0]}"
rm "${files[1]}"
out=$(DIST_DIR="$scratch/dist" "$root/scripts/amalgamate" --check 2>&1)
rc=$?
if [ "$rc" != 1 ] || ! grep -q "$changed" <<<"$out" || ! grep -q "$removed" <<<"$out"; then
  echo "FAIL: --check on a dist/ with $changed changed and $removed removed: exit $rc: $out"
  exit 1
fi
echo "dist_fresh: a stale copy is reported: $out"
