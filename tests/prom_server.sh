#!/usr/bin/env bash
# End to end as a cluster's monitoring sees a node: a real triage (scripts/triage --prom, the host baseline standing
# for 2 GPUs) writes its textfile into the folder of a real node_exporter's textfile collector, a real Prometheus
# (Debian's prometheus package; its own storage, 127.0.0.1 only) scrapes that exporter and loads the shipped rules
# (scripts/prometheus/vmem-repro.rules.yml), and its HTTP API is asked (tests/prom_api.py):
#   1. a triage with atomics forced to FAIL (exit 1): every vmem_repro_* series Prometheus serves is a sample of the
#      textfile with its value and none is missing; the exit code gauge is the triage's real exit, the finish time
#      within the run; the 5 rules are loaded and evaluate without error; VmemReproCaseChanged fires once per pair
#      the triage ran atomics on, with node, case, devices, verdict and expected, and no other VmemRepro alert fires;
#   2. the next triage runs nothing (no GPU: exit 77): Prometheus serves the new textfile, VmemReproNothingRan fires
#      for the node and the CHANGED alerts are gone.
# Every textfile passes `promtool check metrics`. Exit 77 (skipped) where prometheus, promtool or node_exporter is
# not installed (./scripts/test --with-slurm installs them).
#   usage: prom_server.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
exporter=${VMR_NODE_EXPORTER:-/usr/bin/prometheus-node-exporter}
prometheus=${VMR_PROMETHEUS:-prometheus}
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$exporter" ] || { echo "SKIP: $exporter is not installed (apt-get install prometheus-node-exporter)"; exit 77; }
for tool in "$prometheus" "${VMR_PROMTOOL:-promtool}" python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (apt-get install prometheus python3)"; exit 77; }
done
rm -rf "$work" && mkdir -p "$work/textfiles" "$work/tsdb" || fail "cannot make $work"
prom_lifetime_s=300  # its CTest TIMEOUT
source "$repo/tests/prom_lib.sh"
source "$repo/tests/prom_check.sh"
rules=$repo/scripts/prometheus/vmem-repro.rules.yml textfile=$work/textfiles/vmem-repro.prom
api() { python3 "$repo/tests/prom_api.py" "$1" "http://127.0.0.1:$prom_server_port" "${@:2}" || exit 1; }
# As on CI on a GPU node too: each runtime's visibility variable hides its GPUs, so only the fake ones run.
export CUDA_VISIBLE_DEVICES= HIP_VISIBLE_DEVICES= ROCR_VISIBLE_DEVICES=

# triage NAME WANT_RC ENV...: a real triage into results NAME, its textfile to the exporter's folder.
triage() {
  local name=$1 want=$2 rc
  shift 2
  started=$(date +%s)
  env "$@" BUILD_DIR="$build" RESULTS_DIR="$work/$name" "$repo/scripts/triage" --prom "$textfile" >"$work/$name.out" 2>&1
  rc=$?
  ended=$(date +%s)
  [ "$rc" = "$want" ] || fail "triage $name: exit $rc, want $want: $(tail -3 "$work/$name.out")"
  check_metrics "$textfile"
  grep -qx "vmem_repro_triage_exit_code $want" "$textfile" || fail "triage $name: the textfile's exit code is not $want"
  local finished
  finished=$(sed -n 's/^vmem_repro_triage_finished_timestamp_seconds //p' "$textfile")
  [ -n "$finished" ] && [ "$finished" -ge "$started" ] && [ "$finished" -le "$ended" ] ||
    fail "triage $name: finished at '$finished', not within its run ($started..$ended)"
}

triage changed 1 VMR_FAKE_GPUS=2 VMR_FORCE_FAIL=repro_host_shm.atomics

prom_start "$work/exporter.log" metrics 10 "$exporter" --web.listen-address=127.0.0.1:@PORT@ \
  --collector.disable-defaults --collector.textfile --collector.textfile.directory="$work/textfiles"
exporter_port=$prom_port
# The scrape and rule configuration of docs/cluster-prometheus.md, at 1 s intervals instead of the usual 15 s and 1 m.
cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $rules
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$exporter_port']
YML
"${VMR_PROMTOOL:-promtool}" check config "$work/prometheus.yml" >"$work/check-config.out" 2>&1 ||
  fail "promtool check config: $(cat "$work/check-config.out")"
prom_start "$work/prometheus.log" -/ready 60 "$prometheus" --config.file="$work/prometheus.yml" \
  --storage.tsdb.path="$work/tsdb" --web.listen-address=127.0.0.1:@PORT@
prom_server_port=$prom_port
echo "node_exporter on 127.0.0.1:$exporter_port, Prometheus on 127.0.0.1:$prom_server_port"

# 1. CHANGED: the gauges as the textfile has them, the rules loaded, one alert per pair the forced FAIL ran on.
api gauges "$textfile" 60
alerts=$(sed -n 's/^ *- alert: *\([A-Za-z0-9_]*\) *$/\1/p' "$rules")
api rules 30 $alerts
changed=()
for log in "$work"/changed/repro_host_shm.[0-9]-[0-9].log; do
  pair=$(basename "$log" .log)
  pair=${pair#repro_host_shm.}
  grep -Eq '^(RESULT|VERDICT): FAIL repro_host_shm\.atomics ' "$log" &&
    changed+=("{\"alertname\":\"VmemReproCaseChanged\",\"severity\":\"critical\",\"node\":\"127.0.0.1\",\"instance\":\"127.0.0.1:$exporter_port\",\"case\":\"repro_host_shm.atomics\",\"devices\":\"$pair\",\"exporter\":\"${pair%-*}\",\"importer\":\"${pair#*-}\",\"verdict\":\"FAIL\",\"expected\":\"PASS\"}")
done
[ "${#changed[@]}" = 4 ] || fail "the forced FAIL ran on ${#changed[@]} pairs, want the 4 of 2 GPUs"
api alerts 30 "[$(IFS=,; echo "${changed[*]}")]"

# 2. Nothing ran: the next triage's textfile replaces the first; the CHANGED alerts end, NothingRan fires.
triage zero 77 VMR_FAKE_GPUS=0
api gauges "$textfile" 60
api alerts 30 '[{"alertname":"VmemReproNothingRan","severity":"warning","node":"127.0.0.1","outcome":"nothing_ran"}]'
grep -q 'level=error' "$work/exporter.log" && fail "node_exporter complained: $(grep 'level=error' "$work/exporter.log")"
echo "prom_server: $("$prometheus" --version 2>&1 | head -1 | cut -d' ' -f1-3) served a real triage's gauges and fired its alerts"
