#!/usr/bin/env bash
# scripts/test's command line: a bad --rocm suite is one line and exit 2; --rocm as a user other than root (nobody,
# through runuser, where this runs as root) is refused at once, exit 2, with nothing built: a root is made with
# mmdebstrap and entered with chroot, and a run that skipped the roots must never pass as one that built there.
#   usage: test_script_arguments.sh REPO WORK_DIR
set -uo pipefail
repo=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && chmod 0755 "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

BUILD_DIR=$work/build-bogus "$repo/scripts/test" --rocm bogus >"$work/bogus.out" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$work/bogus.out")" = 1 ] && grep -q "^scripts/test: --rocm takes sid, experimental or all (got 'bogus')$" "$work/bogus.out" ||
  fail "--rocm bogus: exit $rc: $(cat "$work/bogus.out")"

# (a copy of scripts/ under a fresh folder of /tmp that nobody can enter: the checkout, and this test's WORK_DIR with
# it, may lie under /root)
mine=$(mktemp -d /tmp/vmr-script-args.XXXXXX) || fail "mktemp failed"
trap 'rm -rf "$mine"' EXIT
chmod 0755 "$mine" && cp -r "$repo/scripts" "$mine/scripts" && chmod -R a+rX "$mine/scripts" ||
  fail "cannot copy scripts/ into $mine"
as_user=()
if [ "$(id -u)" = 0 ]; then
  command -v runuser >/dev/null || { echo "SKIP: runuser is not installed (util-linux)"; exit 77; }
  as_user=(runuser -u nobody --)
fi
# (bounded: a scripts/test that does not refuse goes on to build, which the bound stops with its process group)
timeout -k 2 15 "${as_user[@]}" env BUILD_DIR="$mine/build-user" "$mine/scripts/test" --rocm sid >"$work/user.out" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$work/user.out")" = 1 ] && grep -q '^scripts/test: --rocm .*needs root' "$work/user.out" ||
  fail "--rocm sid as $("${as_user[@]}" id -un): exit $rc: $(cat "$work/user.out")"
[ ! -e "$mine/build-user" ] || fail "--rocm refused, but something was built in $mine/build-user"
echo "scripts/test: --rocm bogus and --rocm as a user are refused, one line, exit 2, nothing built"
