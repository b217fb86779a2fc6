#!/usr/bin/env bash
# fleet.html and report.html as a cluster admin's browser shows them: real headless Chromium (Debian's chromium)
# opens each page, writes a screenshot and dumps the DOM it built, which tests/html_dom.py compares with what the pages
# were made from.
#   1. A fleet of three real triages (the host baseline standing for 2 GPUs): n1 and n3 as expected; the third forced
#      to FAIL atomics (VMR_FORCE_FAIL) with an injected fact, its node name and the fact's value hostile (<script>,
#      <img src=//...>, quotes, &); and n4, on the job's node list, that did not answer. Every node x case cell is
#      there with the verdict of that node's records, the cell's text (fleet.json's) on hover, CHANGED outlined as its
#      summary.json says; the differing node first, then the silent one; the separating facts beside the map; the
#      hostile texts read back as text.
#   2. That triage's report.html: every pair run's matrix cell with its record's verdict, every row of summary.json
#      (CHANGED first).
#   3. Both files as written: no element or attribute that loads or runs anything (no http:, //, src=, <script),
#      the hostile texts taken out; a Content-Security-Policy forbidding every load.
#   4. A 500-node x 30-case fleet (tests/fleet_synth.py) renders with every cell there (correctness only: its time is
#      scripts/bench-fleet-html's, never a test's).
# Screenshots: WORK_DIR/fleet.png and WORK_DIR/report.png (their paths printed). Exit 77 (skipped) where chromium or
# python3 is not installed (./scripts/test --with-browser installs chromium).   usage: html_chromium.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
chromium=${VMR_CHROMIUM:-chromium}
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in "$chromium" python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (./scripts/test --with-browser installs chromium)"; exit 77; }
done
rm -rf "$work" && mkdir -p "$work" || fail "cannot make $work"
dom() { python3 "$repo/tests/html_dom.py" "$@" || exit 1; }
# As on CI on a GPU node too: each runtime's visibility variable hides its GPUs, so only the fake ones run.
export CUDA_VISIBLE_DEVICES= HIP_VISIBLE_DEVICES= ROCR_VISIBLE_DEVICES=

# browse NAME ARGS... FILE: headless Chromium on FILE, with a profile of its own; its stderr in WORK/NAME.err.
browse() {
  local name=$1
  shift
  local sandbox=()
  [ "$(id -u)" != 0 ] || sandbox=(--no-sandbox)  # (Chromium refuses to run as root with its sandbox)
  timeout 120 "$chromium" --headless "${sandbox[@]}" --disable-gpu --no-first-run --user-data-dir="$work/profile-$name" \
    "${@:1:$#-1}" "file://${!#}" 2>"$work/$name.err"
}

# 1. Three real triages, the third made different: its node name (SLURMD_NODENAME, the record's node) and an injected
#    HSA_* fact hostile. (Named "zz..." so that "differs first" moves it ahead of the name order.)
hostile_node='zz<script>alert("node")</script><img src=//evil.invalid/x.png>&amp;'"'"
hostile_fact='<b>"odd"</b> & <script src=http://evil.invalid/x.js></script>'
triage() {  # triage FOLDER WANT_RC ENV...
  local folder=$1 want=$2 rc
  shift 2
  env "$@" VMR_FAKE_GPUS=2 BUILD_DIR="$build" RESULTS_DIR="$work/nodes/$folder" "$repo/scripts/triage" \
    >"$work/$folder.out" 2>&1
  rc=$?
  [ "$rc" = "$want" ] || fail "triage $folder: exit $rc, want $want: $(tail -3 "$work/$folder.out")"
  [ -s "$work/nodes/$folder/report.html" ] || fail "triage $folder wrote no report.html"
}
triage n1 0 SLURMD_NODENAME=n1
triage odd 1 SLURMD_NODENAME="$hostile_node" HSA_FLEET_TEST_FACT="$hostile_fact" VMR_FORCE_FAIL=repro_host_shm.atomics
triage n3 0 SLURMD_NODENAME=n3
mkdir -p "$work/fleet" && printf 'n1\nn3\nn4\n' >"$work/fleet/nodes.txt"
"$build/bin/fleet_report" --out "$work/fleet" --nodes "$work/fleet/nodes.txt" \
  "$work/nodes"/* >"$work/fleet.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "fleet_report over a differing node: exit $rc, want 1: $(cat "$work/fleet.out")"
[ -s "$work/fleet/fleet.html" ] || fail "fleet_report wrote no fleet.html"

# 4's fleet, made while nothing else runs: 500 nodes x 30 cases.
python3 "$repo/tests/fleet_synth.py" --nodes 500 --cases 30 --out "$work/synth" || fail "tests/fleet_synth.py failed"
"$build/bin/fleet_report" --out "$work/synth" "$work/synth/nodes"/* >"$work/synth.out" 2>&1
[ $? = 1 ] && [ -s "$work/synth/fleet.html" ] || fail "fleet_report over the synthetic fleet: $(tail -3 "$work/synth.out")"

# Every page in Chromium at once (each browser is mostly waiting on its own start).
browse fleet-shot --screenshot="$work/fleet.png" --window-size=1600,900 "$work/fleet/fleet.html" & p1=$!
browse report-shot --screenshot="$work/report.png" --window-size=1200,1100 "$work/nodes/odd/report.html" & p2=$!
browse fleet-dom --dump-dom "$work/fleet/fleet.html" >"$work/fleet.dom.html" & p3=$!
browse report-dom --dump-dom "$work/nodes/odd/report.html" >"$work/report.dom.html" & p4=$!
browse synth-dom --dump-dom "$work/synth/fleet.html" >"$work/synth.dom.html" & p5=$!
for p in $p1 $p2 $p3 $p4 $p5; do wait $p || fail "chromium failed (exit $?): $(tail -3 "$work"/*.err)"; done
for png in "$work/fleet.png" "$work/report.png"; do
  [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$png is not a PNG"
  echo "screenshot: $png"
done

dom fleet "$work/fleet.dom.html" "$work/fleet/fleet.json" "$hostile_node" "$hostile_fact"
grep -q '"name":"n4","folder":"[^"]*","answered":false' "$work/fleet/fleet.json" || fail "n4 is not a node that did not answer"
dom report "$work/report.dom.html" "$work/nodes/odd"
# 3. The files as written.
dom raw "$work/fleet/fleet.html" "$hostile_node" "$hostile_fact"
dom raw "$work/nodes/odd/report.html" "$hostile_node" "$hostile_fact"
dom raw "$work/synth/fleet.html"
# 4. The 500 x 30 page, every cell there.
dom count "$work/synth.dom.html" 500 30
echo "html chromium: all checks passed"
