# Sourced by every test that writes a Prometheus textfile (prom_textfile.sh, prom_server.sh, triage_e2e.sh,
# health_check.sh). The caller defines fail MESSAGE (exit 1 with it).

# check_metrics FILE: the textfile passes the real `promtool check metrics` (Prometheus' own parser and linter), or
# the test fails with what it said. Where promtool is not installed it says so and checks nothing (./scripts/test
# --with-slurm installs it; tests/prom_rules.sh and prom_server.sh skip without it).
check_metrics() {
  local out
  if ! command -v "${VMR_PROMTOOL:-promtool}" >/dev/null; then
    echo "note: promtool is not installed: $1 not checked by promtool check metrics"
    return 0
  fi
  out=$("${VMR_PROMTOOL:-promtool}" check metrics <"$1" 2>&1) || fail "promtool check metrics $1:"$'\n'"$out"
}
