#!/usr/bin/env bash
# --json writes as every tool writes (harness/output_file.h, the one writer): a regular file atomically; anything
# else that is there, in place, through it, never replaced: a symlink stays a link and its target gets the record,
# a device node stays the node, a FIFO hands the record to its reader, stdout through a /proc/self/fd/1 link (what
# /dev/stdout is) receives it. Only nodes made here are used: a writer that replaced one replaces this copy, never
# /dev/stdout or /dev/null (CI runs as root).
#   usage: json_write_through.sh BIN WORK_DIR
set -uo pipefail
bin=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
is_record() { python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["schema"] == "vmem-repro-run/1"' "$1"; }

echo old >target.json
ln -s target.json link.json
"$bin" --case read --json link.json >out 2>&1 || fail "--json LINK: exit $?: $(tail -n 1 out)"
[ -L link.json ] && [ "$(readlink link.json)" = target.json ] || fail "the symlink was replaced: $(ls -l link.json)"
is_record target.json || fail "the link's target does not hold the record: $(head -c 200 target.json)"
ok "--json through a symlink: the link kept, its target holds the record"

ln -s new-target.json dangling.json
"$bin" --case read --json dangling.json >out 2>&1 || fail "--json DANGLING-LINK: exit $?: $(tail -n 1 out)"
[ -L dangling.json ] && is_record new-target.json || fail "a dangling link: $(ls -l)"
ok "--json through a dangling symlink: its target made, the link kept"

ln -s /proc/self/fd/1 stdout-link
# stdout a pipe, as where /dev/stdout is used (a file opened again through /proc/self/fd/1 is truncated and written
# from its start, over what stdout wrote before: so do the tools)
"$bin" --case read --json stdout-link 2>/dev/null | cat >out
[ "${PIPESTATUS[0]}" = 0 ] || fail "--json to stdout: exit ${PIPESTATUS[0]}: $(tail -n 1 out)"
[ -L stdout-link ] && grep -q '"schema":"vmem-repro-run/1"' out && [ "$(tail -n 1 out | cut -d' ' -f1-2)" = "VERDICT: PASS" ] ||
  fail "--json to stdout through a link: $(ls -l stdout-link), $(tail -c 300 out)"
ok "--json to stdout through /proc/self/fd/1 (as /dev/stdout): the record on stdout, the link kept"

mkfifo fifo
cat fifo >from-fifo &
reader=$!
"$bin" --case read --json fifo >out 2>&1 || fail "--json FIFO: exit $?: $(tail -n 1 out)"
wait $reader
[ -p fifo ] && is_record from-fifo || fail "--json FIFO: $(ls -l fifo), read $(head -c 200 from-fifo)"
ok "--json into a FIFO: its reader gets the record, the FIFO kept"

if [ "$(id -u)" = 0 ] && mknod null c 1 3 2>/dev/null; then
  "$bin" --case read --json null >out 2>&1 || fail "--json DEVICE: exit $?: $(tail -n 1 out)"
  [ -c null ] || fail "the device node was replaced: $(ls -l null)"
  ok "--json on a device node: written through, the node kept"
fi

mkdir adir && ln -s adir dir-link
"$bin" --case read --json dir-link >out 2>err; rc=$?
[ $rc = 2 ] && grep -q "is a symlink to a directory" err && [ -L dir-link ] || fail "--json DIR-LINK: exit $rc: $(cat err)"
ok "--json through a symlink to a directory: a usage error (2) before the run"
