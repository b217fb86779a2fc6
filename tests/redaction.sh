#!/usr/bin/env bash
# What scripts/collect-env and scripts/bug-report let into a public issue (issue 35): the kept kernel parameters
# redacted too, user names of any length (whole words only) from id -un, SUDO_USER, LOGNAME and USER, the user's
# name when not root (runuser -u nobody), and an environment value with a newline kept on its one line.
# The kernel command line is a fabricated one, named by VMR_CMDLINE_FILE (scripts/lib/common.sh's test seam).
#   tests/redaction.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
host=$(uname -n)
redacted_host=$host
[ ${#host} -ge 2 ] && redacted_host='{host}'  # (vmr_redact leaves a one-letter host name alone)

# 1. The kernel parameters kept for P2P are redacted like every other line: a home folder, the host's name. A bare
# "*" is one parameter, never a glob over the working folder (which holds files here).
printf 'ro root=/dev/sda1 nvidia.NVreg_TemporaryFilePath=/home/alice/tmp pci=realloc,%s * quiet\n' "$host" >cmdline
# 2. SUDO_USER's name, one letter long, as a whole word: "quick" and "a.query" keep their q. And a value holding a
# newline is one entry: CUDA_VISIBLE_DEVICES, unset, must not appear set.
env -u USER -u LOGNAME -u CUDA_VISIBLE_DEVICES VMR_CMDLINE_FILE="$work/cmdline" SUDO_USER=q \
  HSA_PROBE="q quick q q qq a.query /srv/q/x q-1" HSA_FOO=$'x\nCUDA_VISIBLE_DEVICES=0,1' \
  "$repo/scripts/collect-env" >env.md 2>env.err || fail "collect-env exited $?: $(head -n 3 env.err)"
want="kernel command line: nvidia.NVreg_TemporaryFilePath=/home/{user}/tmp pci=realloc,$redacted_host (4 other parameter(s) left out; --no-redact shows them)"
got=$(grep '^kernel command line: ' env.md)
[ "$got" = "$want" ] || fail "the kept kernel parameters are not redacted:
  got  $got
  want $want"
ok "the kernel parameters kept are redacted (/home/{user}, {host}); '*' counted as one parameter"
got=$(grep '^HSA_PROBE=' env.md)
[ "$got" = 'HSA_PROBE={user} quick {user} {user} qq a.query /srv/{user}/x {user}-1' ] ||
  fail "SUDO_USER 'q' is not redacted as a whole word: $got"
ok "SUDO_USER's one-letter name redacted wherever it is a word, and only there"
grep -qx 'CUDA_VISIBLE_DEVICES=0,1' env.md && fail "a newline in HSA_FOO forged CUDA_VISIBLE_DEVICES=0,1"
grep -qxF 'HSA_FOO=x\x0aCUDA_VISIBLE_DEVICES=0,1' env.md || fail "HSA_FOO is not on one line: $(grep -A1 HSA_FOO env.md)"
grep -qx 'CUDA_VISIBLE_DEVICES: unset' env.md || fail "CUDA_VISIBLE_DEVICES is not listed as unset"
ok "an environment value with a newline is one line (\\x0a), and forges no variable"

# 3. The login name (LOGNAME, USER), two letters long; --no-redact keeps it and the whole command line.
for var in LOGNAME USER; do
  env -u USER -u LOGNAME -u SUDO_USER "$var=zq" VMR_CMDLINE_FILE="$work/cmdline" HSA_PROBE="zq zqx by zq." \
    "$repo/scripts/collect-env" >env-$var.md 2>&1 || fail "collect-env with $var exited $?"
  got=$(grep '^HSA_PROBE=' env-$var.md)
  [ "$got" = 'HSA_PROBE={user} zqx by {user}.' ] || fail "$var 'zq' is not redacted as a whole word: $got"
done
env -u USER -u LOGNAME -u SUDO_USER LOGNAME=zq VMR_CMDLINE_FILE="$work/cmdline" HSA_PROBE="zq" \
  "$repo/scripts/collect-env" --no-redact >env-full.md 2>&1 || fail "collect-env --no-redact exited $?"
grep -qxF "kernel command line: $(cat cmdline)" env-full.md && grep -qx 'HSA_PROBE=zq' env-full.md ||
  fail "--no-redact does not keep the command line and the name: $(grep -e '^kernel' -e HSA_PROBE env-full.md)"
ok "LOGNAME's and USER's two-letter name redacted as whole words; --no-redact keeps everything"

# vmr_redact itself: names holding characters special to a regular expression match only themselves, and a name
# holding a newline (no login has one: a forged variable) is passed over whole, not taken as two names ("x", "y").
got=$(printf 'j.doe jxdoe a+b aab x y\n' | env -u USER -u LOGNAME SUDO_USER=j.doe USER=a+b LOGNAME=$'x\ny' \
  bash -c 'source "$1/scripts/lib/common.sh" && vmr_redact' _ "$repo" 2>&1)
[ "$got" = '{user} jxdoe {user} aab x y' ] || fail "vmr_redact with names 'j.doe', 'a+b' and one with a newline: $got"
ok "user names with . and + redacted literally; a name with a newline passed over"

# 4. Not root: the user's own name (id -un), with no login variable to give it away. As root, as nobody (from a
# copy of the scripts nobody can read: this checkout may be in root's home).
probe_user() {  # NAME SCRIPT [AS...]: runs SCRIPT (collect-env) through AS (runuser) as NAME; NAME must be redacted
  local name=$1 script=$2; shift 2
  # env after runuser, which sets USER and LOGNAME itself: only id -un may name the user.
  "$@" env -u USER -u LOGNAME -u SUDO_USER HSA_PROBE="by $name; /srv/$name/x" "$script" >env-user.md 2>&1 ||
    fail "collect-env as $name exited $?: $(tail -n 3 env-user.md)"
  got=$(grep '^HSA_PROBE=' env-user.md)
  [ "$got" = 'HSA_PROBE=by {user}; /srv/{user}/x' ] || fail "the user's own name '$name' is not redacted: $got"
  grep -qw -- "$name" env-user.md && fail "'$name' is still in the report: $(grep -w -- "$name" env-user.md | head -n 3)"
  ok "as $name (not root): the user's own name redacted"
}
if [ "$(id -u)" = 0 ]; then
  copy=$(mktemp -d)
  trap 'rm -rf "$copy"' EXIT
  # (collect-env reads the runtime variables' one list from common/harness/runtime_variables.h)
  mkdir -p "$copy/scripts/lib" "$copy/common/harness" && cp "$repo/scripts/collect-env" "$copy/scripts/" &&
    cp "$repo/scripts/lib/common.sh" "$copy/scripts/lib/" &&
    cp "$repo/common/harness/runtime_variables.h" "$copy/common/harness/" && chmod -R a+rX "$copy" ||
    fail "cannot copy the scripts"
  probe_user nobody "$copy/scripts/collect-env" runuser -u nobody --
else
  probe_user "$(id -un)" "$repo/scripts/collect-env"
fi

# 5. scripts/bug-report embeds collect-env's text: the same redaction reaches the report.
results=$work/results
# (its summary.json as a triage that ran nothing writes it: bug-report reads what failed there)
mkdir -p "$results" && "$build/bin/check_expected" --table "$repo/expected/verdicts.md" --results "$results" \
  --summary-json "$results/summary.json" >/dev/null || fail "check_expected over an empty folder: exit $?"
env -u USER -u LOGNAME SUDO_USER=q VMR_CMDLINE_FILE="$work/cmdline" HSA_PROBE="q quick" BUILD_DIR="$build" \
  "$repo/scripts/bug-report" "$results" >report.out 2>&1 || fail "bug-report exited $?: $(tail -n 3 report.out)"
grep -qxF "$want" "$results/bug-report.md" && grep -qxF 'HSA_PROBE={user} quick' "$results/bug-report.md" ||
  fail "bug-report's environment is not redacted: $(grep -e '^kernel command' -e HSA_PROBE "$results/bug-report.md")"
ok "bug-report's environment block: kernel parameters and SUDO_USER redacted"
echo "redaction: every name and kept parameter redacted"
