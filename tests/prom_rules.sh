#!/usr/bin/env bash
# The shipped alert rules (scripts/prometheus/vmem-repro.rules.yml) as the real promtool (Debian's prometheus
# package) reads them: `promtool check rules` accepts the file, `promtool test rules` passes tests/prom_rules.test.yml
# (per rule, series that must fire it and series that must not), every alert of the rules file has a test that
# expects it to fire (a rule added without one fails here), and every vmem_repro_* metric a rule reads is a family
# that tools/ (prom.cpp) writes.
# Exit 77 (skipped) where promtool is not installed (./scripts/test --with-slurm installs it).
#   usage: prom_rules.sh REPO
set -uo pipefail
repo=$1
promtool=${VMR_PROMTOOL:-promtool}
rules=$repo/scripts/prometheus/vmem-repro.rules.yml tests=$repo/tests/prom_rules.test.yml
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v "$promtool" >/dev/null || { echo "SKIP: promtool is not installed (apt-get install prometheus)"; exit 77; }

out=$("$promtool" check rules "$rules" 2>&1) || fail "promtool check rules $rules:"$'\n'"$out"
echo "$out"
# (promtool reads the test file's rule_files relative to the test file's folder.)
out=$(cd "$(dirname "$tests")" && "$promtool" test rules "$(basename "$tests")" 2>&1) ||
  fail "promtool test rules $tests:"$'\n'"$out"
echo "$out"

# Each alert must be expected to fire somewhere: an alert_rule_test of its name whose exp_alerts has an entry.
alerts=$(sed -n 's/^ *- alert: *\([A-Za-z0-9_]*\) *$/\1/p' "$rules")
[ -n "$alerts" ] || fail "no '- alert:' line in $rules"
for alert in $alerts; do
  awk -v a="$alert" '
    $1 == "alertname:" { current = $2 }
    $1 == "-" && $2 == "exp_labels:" && current == a { found = 1 }
    END { exit !found }' "$tests" || fail "$alert has no test in $tests that expects it to fire"
done
# Each vmem_repro_* metric a rule reads is one tools/ writes (a family renamed on either side fails here, not silently
# in a cluster where the alert can then never fire).
for metric in $(grep -o 'vmem_repro_[a-z_]*' "$rules" | sort -u); do
  grep -rqF "\"$metric\"" "$repo/tools" || fail "$rules reads $metric, which no file of tools/ writes"
done
echo "prom_rules: $("$promtool" --version 2>&1 | head -1 | cut -d' ' -f1-3) passed the tests of $(echo $alerts | wc -w) alerts"
