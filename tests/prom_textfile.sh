#!/usr/bin/env bash
# check_expected --prom's textfile as the real node_exporter (Debian's prometheus-node-exporter, textfile collector)
# reads it, from real records of the host baseline: --devices 0,1 with atomics forced to FAIL, and the diagonal 0,0.
#   1. as expected (the 0-0 record alone): outcome as_expected, exit 0, every series PASS 0 / changed 0;
#   2. CHANGED: the forced FAIL's series are verdict="FAIL" 1 and changed 1, the others PASS 0 / changed 0, the
#      diagonal names exporter="0" importer="0", the bandwidth and atomics families are there, exit 1, no scrape
#      error and nothing in the exporter's log;
#   3. a file with a bad label beside it: node_textfile_scrape_error 1 (the exporter really parses what it reads);
#   4. a case name with CR and NUL: neither reaches the file nor /metrics raw, the label reads "\x0d\x00".
# Every textfile check_expected writes here passes the real `promtool check metrics` (where promtool is installed).
# Exit 77 (skipped) where node_exporter is not installed (./scripts/test --with-slurm installs it).
#   usage: prom_textfile.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
exporter=${VMR_NODE_EXPORTER:-/usr/bin/prometheus-node-exporter}
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$exporter" ] || { echo "SKIP: $exporter is not installed (apt-get install prometheus-node-exporter)"; exit 77; }
rm -rf "$work" && mkdir -p "$work/results" "$work/textfiles" || fail "cannot make $work"
bin=$build/bin/repro_host_shm check=$build/bin/check_expected

# Real records: the pair with atomics forced to FAIL, the diagonal as it runs.
VMR_FORCE_FAIL=repro_host_shm.atomics "$bin" --devices 0,1 --json "$work/results/repro_host_shm.0-1.json" \
  >"$work/run-0-1.log" 2>&1
[ $? = 1 ] || fail "the forced FAIL run did not exit 1: $(tail -3 "$work/run-0-1.log")"
mkdir -p "$work/diagonal"
"$bin" --devices 0,0 --json "$work/diagonal/repro_host_shm.0-0.json" >"$work/run-0-0.log" 2>&1 ||
  fail "the diagonal run did not pass: $(tail -3 "$work/run-0-0.log")"
cp "$work/diagonal/repro_host_shm.0-0.json" "$work/results/"

# prom RESULTS RC: check_expected's comparison of RESULTS writes textfiles/triage.prom; it must exit RC.
prom() {
  "$check" --table "$repo/expected/verdicts.md" --results "$1" --prom "$work/textfiles/triage.prom" --prom-took 1.5 \
    >"$work/check.out" 2>&1
  local rc=$?
  [ "$rc" = "$2" ] || fail "check_expected exited $rc, not $2: $(tail -5 "$work/check.out")"
  check_metrics "$work/textfiles/triage.prom"
}

# The exporter on a free port of 127.0.0.1, reading only textfiles/; stopped on every way out (prom_lib.sh).
prom_lifetime_s=120  # its CTest TIMEOUT
source "$repo/tests/prom_lib.sh"
source "$repo/tests/prom_check.sh"
start_exporter() {
  prom_start "$work/exporter.log" metrics 5 "$exporter" --web.listen-address=127.0.0.1:@PORT@ \
    --collector.disable-defaults --collector.textfile --collector.textfile.directory="$work/textfiles"
  url_port=$prom_port
}
scrape() { http_get "http://127.0.0.1:$url_port/metrics" >"$work/metrics.txt" || fail "cannot fetch /metrics"; }
# has LINE: /metrics has this exact line. value NAME LABEL...: the value of the one NAME series that has every
# LABEL ('k="v"'), wherever it is among the labels (the exporter sorts them by name).
has() { grep -qxF -- "$1" "$work/metrics.txt" || fail "/metrics lacks '$1':"$'\n'"$(grep vmem_repro "$work/metrics.txt")"; }
value() {
  local name=$1 lines label
  shift
  lines=$(grep -E "^$name\{" "$work/metrics.txt")
  for label in "$@"; do lines=$(printf '%s\n' "$lines" | grep -F -e "{$label," -e ",$label," -e ",$label}" -e "{$label}"); done
  [ "$(printf '%s\n' "$lines" | grep -c .)" = 1 ] || { echo "not one $name series with $*:"$'\n'"$lines" >&2; return 1; }
  printf '%s\n' "${lines##* }"
}
# is VALUE NAME LABEL...: that series' value is VALUE.
is() {
  local want=$1 got
  shift
  got=$(value "$@") || fail "no single series $*"
  [ "$got" = "$want" ] || fail "$* is $got, not $want"
}
start_exporter

# 1. As expected: the diagonal alone.
prom "$work/diagonal" 0
scrape
has "node_textfile_scrape_error 0"
has 'vmem_repro_triage_outcome{outcome="as_expected"} 1'
has 'vmem_repro_triage_exit_code 0'
is 0 vmem_repro_case_verdict 'case="repro_host_shm.read"' 'devices="0-0"' 'verdict="PASS"'
is 0 vmem_repro_case_changed 'case="repro_host_shm.atomics"' 'devices="0-0"'

# 2. CHANGED: the forced FAIL beside the PASSes.
prom "$work/results" 1
scrape
has "node_textfile_scrape_error 0"
for family in case_verdict case_changed read_bandwidth_bytes_per_second atomics_per_second \
  triage_duration_seconds triage_exit_code triage_outcome triage_finished_timestamp_seconds triage_rows; do
  has "# TYPE vmem_repro_$family gauge"
done
pair01=('devices="0-1"' 'exporter="0"' 'importer="1"')
diagonal=('devices="0-0"' 'exporter="0"' 'importer="0"')
is 1 vmem_repro_case_verdict 'case="repro_host_shm.atomics"' 'binary="repro_host_shm"' "${pair01[@]}" \
  'verdict="FAIL"' 'expected="PASS"'
is 1 vmem_repro_case_changed 'case="repro_host_shm.atomics"' "${pair01[@]}"
is 0 vmem_repro_case_verdict 'case="repro_host_shm.read"' "${pair01[@]}" 'verdict="PASS"'
is 0 vmem_repro_case_changed 'case="repro_host_shm.read"' "${pair01[@]}"
for c in read atomics; do
  is 0 vmem_repro_case_verdict "case=\"repro_host_shm.$c\"" "${diagonal[@]}" 'verdict="PASS"' 'expected="PASS"'
  is 0 vmem_repro_case_changed "case=\"repro_host_shm.$c\"" "${diagonal[@]}"
done
bytes=$(value vmem_repro_read_bandwidth_bytes_per_second "${pair01[@]}" 'metric="peer_verify_GBps"') ||
  fail "no bandwidth series of the pair"
gbps=$(grep -o 'peer_verify_GBps=[0-9.e+-]*' "$work/run-0-1.log" | cut -d= -f2)
awk -v b="$bytes" -v g="$gbps" 'BEGIN { exit !(b > 0 && b / (g * 1e9) > 0.99 && b / (g * 1e9) < 1.01) }' ||
  fail "bandwidth $bytes bytes/s is not the run's $gbps GB/s"
value vmem_repro_atomics_per_second "${diagonal[@]}" 'metric="remote_atomics_per_s"' >/dev/null ||
  fail "no atomics series of the diagonal"
has 'vmem_repro_triage_outcome{outcome="changed"} 1'
has 'vmem_repro_triage_outcome{outcome="as_expected"} 0'
has 'vmem_repro_triage_exit_code 1'
has 'vmem_repro_triage_duration_seconds 1.5'
has 'vmem_repro_triage_rows{status="changed"} 1'
has 'vmem_repro_triage_rows{status="ok"} 3'
! grep -q 'level=error' "$work/exporter.log" || fail "node_exporter complained: $(cat "$work/exporter.log")"

# 3. A bad label beside it: the exporter refuses that file and says so, our file still read.
printf '%s\n' '# TYPE vmem_repro_broken gauge' 'vmem_repro_broken{case="x} 1' >"$work/textfiles/broken.prom"
scrape
has "node_textfile_scrape_error 1"
has 'vmem_repro_triage_exit_code 1'
rm -f "$work/textfiles/broken.prom"
scrape
has "node_textfile_scrape_error 0"
# 4. A case name holding CR and NUL (a record's JSON escapes): the format has no escape for them and a raw CR splits
#    the line for every line-based reader of /metrics, so the label holds the text "\x0d", as report.md shows it.
mkdir -p "$work/hostile"
printf '%s\n' '{"schema":"vmem-repro-run/1","binary":"repro_host_shm","backend":"host","verdict":"CRASH",
"environment":{"kernel":"Linux 6.1","variables":{}},"options":{"ranks":2,"devices":[0,1],"device_source":"default"},
"cases":[{"case":"new\r\u0000case","verdict":"CRASH","detail":"x","metrics":{},"ranks":[]}]}' \
  >"$work/hostile/repro_host_shm.json"
prom "$work/hostile" 1
LC_ALL=C tr -d '\r\000' <"$work/textfiles/triage.prom" | cmp -s - "$work/textfiles/triage.prom" ||
  fail "the textfile holds a raw CR or NUL: $(grep -a 'new' "$work/textfiles/triage.prom" | od -c | head -5)"
scrape
has "node_textfile_scrape_error 0"
LC_ALL=C tr -d '\r\000' <"$work/metrics.txt" | cmp -s - "$work/metrics.txt" ||
  fail "/metrics holds a raw CR or NUL: $(grep -a 'new' "$work/metrics.txt" | od -c | head -5)"
is 3 vmem_repro_case_verdict 'case="repro_host_shm.new\\x0d\\x00case"' 'verdict="CRASH"'
echo "prom_textfile: node_exporter $("$exporter" --version 2>&1 | head -1 | cut -d' ' -f3) read the triage's textfile"
