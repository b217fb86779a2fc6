#!/usr/bin/env bash
# Whose facts a real run's record carries, and so what a fleet report compares between nodes:
#   - environment.variables: the runtime variables always named (in their fixed order, "(unset)" when absent), then
#     every variable whose name starts with a runtime's prefix, sorted; nothing else of the environment (MY_HSA_X
#     holds a prefix, but not at its start);
#   - the same variables, by name, as scripts/collect-env prints for the same environment (one list of them:
#     common/harness/runtime_variables.h), NVIDIA_ ones among them;
#   - environment.node: Slurm's name for the node where SLURMD_NODENAME is set, environment.host: the host's;
#   - each rank's record in its own slot, with its own info (the read direction names the rank that reads);
#   - fleet_report's facts of the node: the variables by name and rank 0's info (the exporter's), not rank 1's.
#   tests/record_facts.sh BUILD_DIR REPO WORK_DIR
set -uo pipefail
build=$1 repo=$2 work=$3
rm -rf "$work" && mkdir -p "$work/node-7" "$work/fleet"
fail() { echo "FAIL: $*" >&2; exit 1; }
py=/usr/bin/python3  # Debian's, as every test here
environment=(PATH=/usr/bin:/bin SLURMD_NODENAME=node-7 HSA_XNACK=1 VMR_PROBE=x HIP_X=hx NVIDIA_VISIBLE_DEVICES=all
             MY_HSA_X=no HIPX=no NOT_RELEVANT=z)
env -i "${environment[@]}" "$build/bin/repro_host_shm" --case read --json "$work/node-7/repro_host_shm.json" \
  >"$work/run.out" 2>&1 || fail "repro_host_shm --case read: exit $?: $(tail -n 3 "$work/run.out")"
env -i "${environment[@]}" "$repo/scripts/collect-env" --no-redact >"$work/collect-env.out" 2>&1 ||
  fail "collect-env: exit $?: $(tail -n 3 "$work/collect-env.out")"
"$py" - "$work/node-7/repro_host_shm.json" "$(uname -n)" "$work/collect-env.out" <<'PY' ||
  fail "the run record carries the wrong facts"
import json, re, sys
record = json.load(open(sys.argv[1]))
env = record["environment"]
named = ["HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "AMD_LOG_LEVEL"]
want = [(n, "(unset)") for n in named] + [("HSA_XNACK", "1"), ("HSA_FORCE_FINE_GRAIN_PCIE", "(unset)"),
                                          ("HIP_X", "hx"), ("NVIDIA_VISIBLE_DEVICES", "all"), ("VMR_PROBE", "x")]
got = list(env["variables"].items())
problems = []
if got != want:
    problems.append(f"variables {got}, want {want}")
section = open(sys.argv[3]).read().split("### Environment variables\n", 1)[-1].split("\n### ", 1)[0]
printed = {m.group(1): m.group(2) for m in re.finditer(r"^([A-Za-z_0-9]+)(?:=(.*)|: unset)$", section, re.M)}
printed = {k: "(unset)" if v is None else v for k, v in printed.items()}
if printed != dict(got):
    problems.append(f"collect-env prints the variables {sorted(printed.items())}, the record {sorted(got)}")
if env.get("node") != "node-7" or env.get("host") != sys.argv[2]:
    problems.append(f"node {env.get('node')!r} (want node-7, SLURMD_NODENAME), host {env.get('host')!r}")
ranks = record["cases"][0]["ranks"]
if [r["rank"] for r in ranks] != [0, 1]:
    problems.append(f"rank slots {[r['rank'] for r in ranks]}")
for i, r in enumerate(ranks):
    reads = f"rank {1 - i} -> rank {i}: rank {i} reads rank {1 - i}'s memory"
    if r["info"].get("read_direction") != reads:
        problems.append(f"rank {i}'s info {r['info']}, want read_direction {reads!r}")
print("\n".join(problems) or "record_facts: the record carries the named variables (those collect-env prints), the "
      "node, each rank's own info")
sys.exit(1 if problems else 0)
PY
# (the node's summary.json as its triage makes it: the fleet reads the node's facts there)
"$build/bin/check_expected" --table "$repo/expected/verdicts.md" --results "$work/node-7" \
  --summary-json "$work/node-7/summary.json" >"$work/check.out" 2>&1
[ $? -le 1 ] || fail "check_expected over node-7: $(cat "$work/check.out")"
"$build/bin/fleet_report" --out "$work/fleet" "$work/node-7" \
  >"$work/fleet.out" 2>&1 ||
  fail "fleet_report: exit $?: $(cat "$work/fleet.out")"
"$py" - "$work/fleet/fleet.json" <<'PY' || fail "fleet_report's facts of the node are not the record's"
import json, sys
node = json.load(open(sys.argv[1]))["nodes"][0]
facts = node["facts"]
want = {"HSA_XNACK": "1", "VMR_PROBE": "x", "HIP_VISIBLE_DEVICES": "(unset)",
        "read_direction": "rank 1 -> rank 0: rank 0 reads rank 1's memory", "page_size": facts.get("page_size")}
problems = [f"{k} = {facts.get(k)!r}, want {v!r}" for k, v in want.items() if facts.get(k) != v or v is None]
problems += [f"{k} is a fact" for k in ("variables", "MY_HSA_X", "NOT_RELEVANT", "node", "host") if k in facts]
if node["name"] != "node-7":
    problems.append(f"the node is named {node['name']!r}, want node-7")
print("\n".join(problems) or "record_facts: the fleet compares the variables by name and rank 0's info")
sys.exit(1 if problems else 0)
PY
