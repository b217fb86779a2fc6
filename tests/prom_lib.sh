# Sourced by the tests that run Prometheus' servers (prom_textfile.sh: node_exporter; prom_server.sh: node_exporter and
# Prometheus): servers started on a free port of 127.0.0.1 and stopped on every way out, an HTTP GET with a time
# limit. The caller defines fail MESSAGE (exit 1 with it). It sets the traps of EXIT, HUP, INT and TERM.

# Every server started here, stopped (and waited for) when the test exits, whichever way.
prom_pids=()
prom_stop_all() {
  local p
  for p in "${prom_pids[@]+"${prom_pids[@]}"}"; do kill "$p" 2>/dev/null; done
  for p in "${prom_pids[@]+"${prom_pids[@]}"}"; do wait "$p" 2>/dev/null; done
  prom_pids=()
}
trap prom_stop_all EXIT
# (bash runs no EXIT trap on a signal it dies of: these make a signal an exit.)
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
# Each server also ends on its own after prom_lifetime_s seconds (the caller sets its CTest TIMEOUT here): a SIGKILL
# of the test, which runs no trap, leaves no server behind for long.
prom_lifetime_s=${prom_lifetime_s:-300}

# http_get URL: the body at http://127.0.0.1:PORT/PATH on stdout, non-zero where curl says it failed; at most 5 s.
# curl where installed (never through a proxy), else bash's /dev/tcp (then only a refused connection is an error).
http_get() {
  if command -v curl >/dev/null; then
    curl -fsS --noproxy '*' --max-time 5 "$1"
  else
    local rest=${1#http://}
    exec 3<>"/dev/tcp/${rest%%:*}/$(cut -d/ -f1 <<<"${rest#*:}")" || return 1
    printf 'GET /%s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "${rest#*/}" >&3
    timeout 5 cat <&3 | sed '1,/^\r\{0,1\}$/d'
    exec 3<&-
  fi
}

# prom_start LOG READY_PATH WAIT_S COMMAND...: runs COMMAND with each "@PORT@" in it replaced by a free port of
# 127.0.0.1 (random ones tried until one is not taken: the command exits at once on a taken port), until
# http://127.0.0.1:PORT/READY_PATH answers, for at most WAIT_S seconds per try. Sets prom_port; the process is
# stopped on exit. Output to LOG.
prom_start() {
  local log=$1 ready=$2 wait_s=$3 port pid i
  shift 3
  for port in $(shuf -i 20000-60000 -n 20); do
    timeout "$prom_lifetime_s" "${@//@PORT@/$port}" >"$log" 2>&1 &
    pid=$!
    prom_pids+=("$pid")
    for ((i = 0; i < wait_s * 10; i++)); do
      if http_get "http://127.0.0.1:$port/$ready" >/dev/null 2>&1; then
        prom_port=$port
        return 0
      fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    unset 'prom_pids[-1]'
  done
  fail "$1 did not start: $(tail -5 "$log")"
}
