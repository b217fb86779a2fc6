#!/usr/bin/env bash
# scripts/triage with its results folder on a nearly full disk (a 200 KiB tmpfs, 185 to 199 KiB of it taken; needs
# root's mount, else it skips with 77): every fill ends in 99 with a last line that names the write that failed, and
# the folder keeps INCOMPLETE; never the CHANGED 1 of a shell's write error, never a verdict on the node, never a
# triage without its last line. A fill with room to spare finishes as a triage does (0), so the disk is the only
# difference.   usage: triage_full_disk.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
umount "$work/disk" 2>/dev/null
rm -rf "$work" && mkdir -p "$work/disk" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
export CUDA_VISIBLE_DEVICES= HIP_VISIBLE_DEVICES= ROCR_VISIBLE_DEVICES=
if ! mount -t tmpfs -o size=200k,mode=0755 vmr-full-disk "$work/disk" 2>"$work/mount.err"; then
  echo "SKIP: cannot mount a 200 KiB tmpfs here (needs root): $(cat "$work/mount.err")"
  exit 77
fi
trap 'umount "$work/disk"' EXIT

for fill in 40 185 190 195 199; do
  rm -rf "${work:?}/disk/"*
  head -c $((fill * 1024)) /dev/zero >"$work/disk/filler"
  BUILD_DIR=$build VMR_FAKE_GPUS=1 RESULTS_DIR=$work/disk/results "$repo/scripts/triage" >"$work/fill$fill.out" 2>&1
  rc=$?
  last=$(tail -n 1 "$work/fill$fill.out")
  if [ $fill = 40 ]; then
    [ $rc = 0 ] && [[ "$last" == "triage: ALL AS EXPECTED (exit 0): "* ]] ||
      { tail -n 5 "$work/fill$fill.out"; fail "room to spare ($fill KiB of 200 taken): exit $rc, want 0"; }
    continue
  fi
  [ $rc = 99 ] || { tail -n 5 "$work/fill$fill.out"; fail "$fill KiB of 200 taken: exit $rc, want 99"; }
  [[ "$last" =~ ^triage:\ ERROR\ \(exit\ 99\):\ .*(writing\ $work/disk/results/[a-zA-Z.]+|cannot\ write) ]] ||
    fail "$fill KiB of 200 taken: the last line does not name the write that failed: $last"
  [ -e "$work/disk/results/INCOMPLETE" ] && [ ! -e "$work/disk/results/report.md" ] ||
    fail "$fill KiB of 200 taken: the folder reads as a finished triage: $(ls "$work/disk/results" | tr '\n' ' ')"
  echo "$fill KiB of 200 taken: $last"
done
