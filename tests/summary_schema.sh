#!/usr/bin/env bash
# summary.json (vmem-repro-summary/2) against its published schema, by a real validator (python3-jsonschema):
#   1. a comparison whose rows take every standing (ok, not_run, changed_verdict, changed_reason, no_row,
#      missing_record, unreadable_record) writes a summary the schema accepts, with each row typed as the schema says
#      (GPU indices, the verdict or null, the allowed verdicts and reasons, issues, metrics with units, node facts);
#   2. the validator refuses what is not one (the /1 shape, an unknown standing, one GPU, a verdict on a missing
#      record), so a pass above means something;
#   3. every reader refuses a summary of another version (an older one, an unknown one) in one line naming it, exit
#      99: --counts, --report-md, --health-line, --from-summary (JUnit, Prometheus, bug-report's files), bug-report
#      and the fleet report.
# Usage: summary_schema.sh SOURCE_DIR BUILD_DIR
set -u
src=$1
build=$2
py=/usr/bin/python3  # Debian's, where python3-jsonschema is
check=$build/bin/check_expected
schema=$src/schemas/vmem-repro-summary-2.schema.json
work=$build/tests/summary-schema
rm -rf "$work" && mkdir -p "$work/results"
fail() { echo "summary_schema: $*" >&2; exit 1; }
validate() { "$py" "$src/tests/validate_summary.py" "$schema" "$@"; }

cat >"$work/table.md" <<'MD'
| binary | case | condition | verdict | labels | evidence |
| --- | --- | --- | --- | --- | --- |
| repro_x | read | * | PASS | - | seed read |
| repro_x | fault | * | CRASH ~Memory access fault | iris#418 | seed fault |
| repro_x | skipped | * | PASS | - | seed skipped |
| repro_x | lost | * | PASS | - | seed lost |
MD
# record FILE CASE VERDICT DETAIL DEVICES: a run record as a reproducer writes it (DEVICES: [] for none chosen).
record() {
  printf '%s\n' "{\"schema\":\"vmem-repro-run/1\",\"binary\":\"${6:-repro_x}\",\"backend\":\"hip\",\"verdict\":\"$3\",\
\"environment\":{\"node\":\"n7\",\"kernel\":\"Linux 6.1\",\"variables\":{\"HSA_XNACK\":\"1\"}},\
\"options\":{\"ranks\":2,\"devices\":$5,\"device_source\":\"--devices\"},\"cases\":[{\"case\":\"$2\",\"verdict\":\"$3\",\
\"detail\":\"$4\",\"metrics\":{\"read_GBps\":{\"value\":333.5,\"unit\":\"GB/s\"}},\"ranks\":[{\"info\":{\"device\":\"0\"}}]}]}" \
    >"$work/results/$1"
}
record repro_x.read.0-1.json read PASS "read exactly" "[0,1]"
record repro_x.read.1-0.json read FAIL "12 words differ" "[1,0]"
record repro_x.read.0-1-2.json read PASS "read exactly" "[0,1,2]"
record repro_x.fault.0-1.json fault CRASH "signal 11" "[0,1]"
record repro_x.skipped.json skipped SKIP "no peer access" "[]"
record repro_y.new.json new PASS "new case" "[]" repro_y
echo '{"schema":"vmem-repro-run/1","cases":[' >"$work/results/repro_x.broken.json"
printf 'repro_x.read\nrepro_x.fault\nrepro_x.skipped\nrepro_x.lost 2-3\n' >"$work/plan.txt"
"$check" --table "$work/table.md" --results "$work/results" --plan "$work/plan.txt" \
  --summary-json "$work/summary.json" >"$work/compare.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "the comparison: exit $rc, want 1: $(cat "$work/compare.out")"

# 1. Valid, and typed as the schema says.
validate "$work/summary.json" || fail "check_expected's summary.json does not follow $schema"
"$py" - "$work/summary.json" <<'PY' || fail "the summary's rows are not typed as written"
import json, sys
s = json.load(open(sys.argv[1]))
rows = {(r["name"], tuple(r["gpus"])): r for r in s["rows"]}
want = {("repro_x.read", (0, 1)): ("ok", "PASS"), ("repro_x.read", (1, 0)): ("changed_verdict", "FAIL"),
        ("repro_x.read", (0, 1, 2)): ("ok", "PASS"), ("repro_x.fault", (0, 1)): ("changed_reason", "CRASH"),
        ("repro_x.skipped", ()): ("not_run", "SKIP"), ("repro_y.new", ()): ("no_row", "PASS"),
        ("repro_x.lost", (2, 3)): ("missing_record", None), ("repro_x.broken.json", ()): ("unreadable_record", None)}
problems = [f"{k}: {rows.get(k, {}).get('standing')}/{rows.get(k, {}).get('observed')}, want {v}"
            for k, v in want.items() if (rows.get(k, {}).get("standing"), rows.get(k, {}).get("observed")) != v]
fault = rows[("repro_x.fault", (0, 1))]
if (fault["allowed"], fault["reasons"], fault["issues"]) != (["CRASH"], ["Memory access fault"], ["iris#418"]):
    problems.append(f"the fault row's allowed/reasons/issues: {fault}")
if rows[("repro_x.read", (0, 1))]["metrics"] != [{"name": "read_GBps", "value": 333.5, "unit": "GB/s"}]:
    problems.append(f"the read row's metrics: {rows[('repro_x.read', (0, 1))]['metrics']}")
if rows[("repro_x.skipped", ())]["why_not_run"] != "skipped: no peer access":
    problems.append(f"the skipped row's why_not_run: {rows[('repro_x.skipped', ())]['why_not_run']!r}")
if s["node"].get("node") != "n7" or s["node"].get("HSA_XNACK") != "1":
    problems.append(f"the node's facts: {s['node']}")
if (s["ok"], s["changed"], s["not_run"]) != (2, 5, 1):
    problems.append(f"the counts: {s['ok']} {s['changed']} {s['not_run']}")
print("\n".join(problems)) if problems else None
sys.exit(1 if problems else 0)
PY
[ "$("$check" --counts "$work/summary.json")" = "2 OK, 5 CHANGED, 1 not run, 0 table problems" ] ||
  fail "--counts: $("$check" --counts "$work/summary.json" 2>&1)"

# 2. The validator refuses what is not a summary of this schema (each edit alone).
edit() {  # edit NAME PYTHON-EXPRESSION-ON-s: a copy of the summary changed so, which must be refused
  "$py" -c "import json,sys; s=json.load(open(sys.argv[1])); $2; json.dump(s, open(sys.argv[2], 'w'))" \
    "$work/summary.json" "$work/$1.json" || fail "cannot make $1"
  out=$(validate "$work/$1.json") && fail "the schema accepts $1"
  [[ "$out" == "$work/$1.json: "* ]] || fail "$1: the validator's line does not name the file: $out"
}
edit old-schema 's["schema"]="vmem-repro-summary/1"'
edit old-row 's["rows"][0]={"case":"x.y","pair":"0-1","status":"OK"}'
edit unknown-standing 's["rows"][0]["standing"]="CHANGED"'
edit one-gpu 's["rows"][0]["gpus"]=[3]'
edit text-gpu 's["rows"][0]["gpus"]=["0-1"]'
edit missing-with-verdict '[r.update(observed="PASS") for r in s["rows"] if r["standing"]=="missing_record"]'
edit ok-without-verdict 's["rows"][0].update(observed=None, standing="ok")'
edit metric-text 's["rows"][0]["metrics"]=[{"name":"m","value":"333.5 GB/s","unit":""}]'
edit negative-count 's["changed"]=-1'

# 3. Every reader refuses a summary of another version (an older one's, an unknown later one's) in one line naming
#    it, with the suite's input exit (99), never a verdict on the node and never a file written from it: --counts,
#    --report-md, --health-line, --from-summary (JUnit, Prometheus, bug-report's files), scripts/bug-report and the
#    fleet report (whose console names it once among its counts).
refusal() {  # refusal NAME LINES COMMAND...: exit 99 and the version named; LINES: the lines said in all (- any)
  local name=$1 lines=$2 rc
  shift 2
  "$@" >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
  [ $rc = 99 ] || fail "$name: exit $rc, want 99: $(cat "$work/$name".*)"
  [ "$(cat "$work/$name.out" "$work/$name.err" | grep -cF "$want")" = 1 ] ||
    fail "$name does not name the version once: $(cat "$work/$name".*)"
  [ "$lines" = - ] || [ "$(cat "$work/$name.out" "$work/$name.err" | wc -l)" = "$lines" ] ||
    fail "$name: not $lines line(s): $(cat "$work/$name".*)"
}
for version in vmem-repro-summary/1 vmem-repro-summary/9; do
  v=${version##*/}
  "$py" -c "import json,sys; s=json.load(open(sys.argv[1])); s['schema']=sys.argv[3]; \
json.dump(s, open(sys.argv[2], 'w'))" "$work/summary.json" "$work/old$v.json" "$version"
  want="$work/old$v.json is $version, not vmem-repro-summary/2"
  refusal counts$v 1 "$check" --counts "$work/old$v.json"
  refusal report-md$v 1 "$check" --report-md "$work/r.md" --summary "$work/old$v.json" --launches 1 --took 1 \
    --modelled 1 --concurrency serial
  refusal health-line$v 1 "$check" --health-line --summary "$work/old$v.json" --exit 0
  refusal junit$v 1 "$check" --from-summary "$work/old$v.json" --junit "$work/x.xml"
  refusal prom$v 1 "$check" --from-summary "$work/old$v.json" --prom "$work/x.prom" --prom-took 2 --prom-exit 1
  refusal files$v 1 "$check" --from-summary "$work/old$v.json" --results "$work/results" --failures-md "$work/f.md" \
    --markdown "$work/v.md"
  for f in r.md x.xml x.prom f.md v.md; do [ ! -e "$work/$f" ] || fail "a file ($f) written from a summary of $version"; done
  # bug-report: a triage folder (its records readable) whose summary is of another version: no report.
  rm -rf "$work/bug$v" && mkdir -p "$work/bug$v" && cp "$work/results/repro_x.fault.0-1.json" "$work/bug$v/"
  cp "$work/old$v.json" "$work/bug$v/summary.json"
  want="$work/bug$v/summary.json is $version, not vmem-repro-summary/2"
  refusal bug-report$v 1 env BUILD_DIR="$build" "$src/scripts/bug-report" "$work/bug$v"
  [ ! -e "$work/bug$v/bug-report.md" ] || fail "bug-report wrote a report from a summary of $version"
  # The fleet: the node's summary is the input's problem (named once, exit 99), never a node verdict: its FAIL
  # record is in no cell, and no node differs, fails to answer or has a problem.
  rm -rf "$work/fleet$v" && mkdir -p "$work/fleet$v/n1" "$work/fleet$v/out"
  cp "$work/old$v.json" "$work/fleet$v/n1/summary.json"
  cp "$work/results/repro_x.read.1-0.json" "$work/fleet$v/n1/"
  want="$work/fleet$v/n1/summary.json is $version, not vmem-repro-summary/2"
  refusal fleet$v - "$build/bin/fleet_report" --out "$work/fleet$v/out" "$work/fleet$v/n1"
  grep -qx "fleet: 1 node(s), 0 did not answer, 0 difference(s), 0 problem(s), 1 file(s) refused" "$work/fleet$v.out" &&
    ! grep -q FAIL "$work/fleet$v/out/fleet.md" || fail "fleet: a node verdict from $version: $(cat "$work/fleet$v.out")"
done
echo "summary_schema: check_expected's summary follows $schema (every standing); the validator refuses 9 broken" \
  "ones; --counts, --report-md, --health-line, --from-summary, bug-report and fleet_report refuse an older and an" \
  "unknown version in one line with exit 99"
