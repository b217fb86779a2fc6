#!/usr/bin/env python3
"""A synthetic fleet for fleet.html at scale: NODES node folders of CASES cases each, as a triage leaves them (one run
record of schema vmem-repro-run/1 holding every case of the node's launch on GPUs 0-1, and the summary.json of
schema vmem-repro-summary/2 check_expected writes of it), and the expected table of those cases (all PASS). Most
nodes pass everything; a few FAIL, CRASH, HANG or SKIP a case and carry a fact the others lack, so the page has
nodes that differ, facts beside them and every colour. Deterministic: the same arguments give the same files.

  fleet_synth.py --nodes N --cases M --out DIR     writes DIR/table.md and DIR/nodes/<node>/ for each node

Used by tests/html_chromium.sh (the 500 x 30 page, every cell there) and scripts/bench-fleet-html (its timing)."""
import argparse
import json
import os


def verdict_of(node, case, cases):
    """The verdict node `node` gives case `case`: PASS but on one node in 61 (one case each: FAIL, CRASH or HANG) and
    a SKIP of the first case on one node in 125."""
    if node % 61 == 5 and case == node % cases:
        return ["FAIL", "CRASH", "HANG"][node % 3]
    if node % 125 == 3 and case == 0:
        return "SKIP"
    return "PASS"


def row(name, case, verdict):
    """One summary.json row as check_expected writes it for a run on GPUs 0-1 (the table expects PASS)."""
    standing, result, why = {"PASS": ("ok", "OK", ""), "SKIP": ("not_run", "not run (skipped: synthetic)",
                                                               "skipped: synthetic")}.get(
        verdict, ("changed_verdict", "CHANGED: " + verdict + ", expected PASS", ""))
    return {"name": "repro_synth." + case, "binary": "repro_synth", "case": case, "gpus": [0, 1],
            "observed": verdict, "standing": standing, "why_not_run": why, "allowed": ["PASS"], "reasons": [],
            "expected": "PASS", "result": result,
            "detail": verdict.lower() + " on " + name, "evidence": "synthetic", "issues": [], "metrics": []}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--cases", type=int, required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.nodes < 1 or a.cases < 1:
        ap.error("--nodes and --cases must be at least 1")
    cases = ["case%02d" % c for c in range(a.cases)]
    os.makedirs(os.path.join(a.out, "nodes"), exist_ok=True)
    with open(os.path.join(a.out, "table.md"), "w") as t:
        t.write("# synthetic expected verdicts\n\n| binary | case | condition | verdict | labels | evidence |\n"
                "| --- | --- | --- | --- | --- | --- |\n")
        for c in cases:
            t.write("| repro_synth | %s | * | PASS | - | synthetic |\n" % c)
    for n in range(a.nodes):
        name = "node%04d" % n
        verdicts = [verdict_of(n, c, a.cases) for c in range(a.cases)]
        odd = any(v not in ("PASS", "SKIP") for v in verdicts)
        variables = {"HSA_XNACK": "(unset)", "HSA_SYNTH_ODD": "1"} if odd else {"HSA_XNACK": "(unset)"}
        driver = "6.8.%d" % (n % 3)  # a fact that differs with no verdict change
        order = ["HARNESS", "HANG", "CRASH", "FAIL", "PASS", "SKIP"]
        worst = min(verdicts, key=order.index) if any(v != "SKIP" for v in verdicts) else "SKIP"
        record = {"schema": "vmem-repro-run/1", "binary": "repro_synth", "backend": "host", "verdict": worst,
                  "environment": {"node": name, "host": name, "kernel": "Linux 6.1", "amdgpu_driver": driver,
                                  "variables": variables},
                  "options": {"ranks": 2, "devices": [0, 1], "device_source": "--devices"},
                  "cases": [{"case": c, "verdict": v, "detail": v.lower() + " on " + name, "metrics": {},
                             "ranks": []} for c, v in zip(cases, verdicts)]}
        folder = os.path.join(a.out, "nodes", name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "repro_synth.0-1.json"), "w") as f:
            json.dump(record, f)
        rows = [row(name, c, v) for c, v in zip(cases, verdicts)]
        summary = {"schema": "vmem-repro-summary/2", "ok": sum(v == "PASS" for v in verdicts),
                   "changed": sum(v not in ("PASS", "SKIP") for v in verdicts),
                   "not_run": sum(v == "SKIP" for v in verdicts), "table_problems": 0,
                   "problem_lines": [], "node": {"node": name, "host": name, "kernel": "Linux 6.1"}, "rows": rows}
        with open(os.path.join(folder, "summary.json"), "w") as f:
            json.dump(summary, f)


if __name__ == "__main__":
    main()
