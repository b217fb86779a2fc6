#!/usr/bin/env bash
# scripts/triage with its results folder on a nearly full disk (a tmpfs with 200 KiB more than one triage of this
# build takes, measured first; 1 to 15 KiB of it left free; needs root's mount, else it skips with 77): every fill
# ends in 99 with a last line that names the write that failed, and the folder keeps INCOMPLETE; never the CHANGED 1
# of a shell's write error, never a verdict on the node, never a triage without its last line. A fill with room to
# spare finishes as a triage does (0), so the disk is the only difference. (A full build's triage writes more than a
# host-only one: a fixed 200 KiB disk was full before the run "with room to spare" ended.)
#   usage: triage_full_disk.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
umount "$work/disk" 2>/dev/null
rm -rf "$work" && mkdir -p "$work/disk" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
export CUDA_VISIBLE_DEVICES= HIP_VISIBLE_DEVICES= ROCR_VISIBLE_DEVICES=
triage() { BUILD_DIR=$build VMR_FAKE_GPUS=1 RESULTS_DIR=$work/disk/results "$repo/scripts/triage"; }
used_kib() { df -k --output=used "$work/disk" | tail -n 1 | tr -d ' '; }
if ! mount -t tmpfs -o size=64m,mode=0755 vmr-full-disk "$work/disk" 2>"$work/mount.err"; then
  echo "SKIP: cannot mount a tmpfs here (needs root): $(cat "$work/mount.err")"
  exit 77
fi
trap 'umount "$work/disk"' EXIT
triage >"$work/measure.out" 2>&1 || { tail -n 5 "$work/measure.out"; fail "the triage on a 64 MiB disk: exit $?, want 0"; }
need=$(used_kib)
[ "$need" -gt 20 ] || fail "one triage took $need KiB: too little for fills that leave 1 to 15 KiB free to stop it"
umount "$work/disk" && mount -t tmpfs -o size=$((need + 200))k,mode=0755 vmr-full-disk "$work/disk" || fail "remount"
size=$(df -k --output=size "$work/disk" | tail -n 1 | tr -d ' ')
echo "one triage takes $need KiB here; the disk: $size KiB"

for free in spare 15 10 5 1; do
  rm -rf "${work:?}/disk/"*
  fill=$([ $free = spare ] && echo 40 || echo $((size - free)))
  head -c $((fill * 1024)) /dev/zero >"$work/disk/filler"
  triage >"$work/fill$fill.out" 2>&1
  rc=$?
  last=$(tail -n 1 "$work/fill$fill.out")
  if [ $free = spare ]; then
    [ $rc = 0 ] && [[ "$last" == "triage: ALL AS EXPECTED (exit 0): "* ]] ||
      { tail -n 5 "$work/fill$fill.out"; fail "room to spare ($fill KiB of $size taken): exit $rc, want 0"; }
    continue
  fi
  [ $rc = 99 ] || { tail -n 5 "$work/fill$fill.out"; fail "$fill KiB of $size taken: exit $rc, want 99"; }
  [[ "$last" =~ ^triage:\ ERROR\ \(exit\ 99\):\ .*(writing\ $work/disk/results/[a-zA-Z.]+|cannot\ write) ]] ||
    fail "$fill KiB of $size taken: the last line does not name the write that failed: $last"
  [ -e "$work/disk/results/INCOMPLETE" ] && [ ! -e "$work/disk/results/report.md" ] ||
    fail "$fill KiB of $size taken: the folder reads as a finished triage: $(ls "$work/disk/results" | tr '\n' ' ')"
  echo "$fill KiB of $size taken: $last"
done
