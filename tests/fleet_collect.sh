#!/usr/bin/env bash
# scripts/fleet collect and fleet_report over node folders of fabricated run records, each folder's summary.json made
# from them by check_expected as a triage makes it (no Slurm, no GPU, no triage run): what the report decides on
# inputs a fleet really produces or a hostile one could. The report reads each node's summary.json alone.
#   1. agreement, with a SKIPped GPU case and a record re-saved by Python's json.dump (\u escapes, indentation);
#   2. a tie for the majority; one case every node fails; a node's worst pair in its cell;
#   3. nodes of the job's list without a folder, a folder still INCOMPLETE, a node list that cannot be read;
#   4. a truncated record, a stray record of another node in a node's folder;
#   5. two folders of one node name and one folder name under different parents; a folder given twice;
#   6. names with `|`, a newline or invalid UTF-8, a fact with a backtick, invalid UTF-8 inside records (fleet.md,
#      JUnit, console; bug-report.md through the same reader);
#   7. reports that cannot be written; --help;
#   8. each node's own summary.json: a planned run without a record, a table problem, one that cannot be read; no
#      node at all; a folder without a summary.json (the input's problem, exit 99).
#   usage: fleet_collect.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
export BUILD_DIR=$build

# record FOLDER NODE BINARY CASE VERDICT [PAIR] [DETAIL] [VARIABLES]: one run record as a triage leaves it (NODE "-":
# none named; VARIABLES: more "NAME":"VALUE" pairs of the environment's variables, raw JSON).
record() {
  local dir=$1 node=$2 binary=$3 case=$4 verdict=$5 pair=${6-} detail=${7:-detail of $5} vars=${8-}
  local devices='[0,1]' source='default 0..N-1' file="$binary.$case.json" backend=host name=""
  [ -z "$pair" ] || { devices="[${pair/-/,}]" source=--devices file="$binary.$case.$pair.json"; }
  [ "$binary" = repro_host_shm ] || backend=cuda
  [ "$node" = - ] || name="\"node\":\"$node\",\"host\":\"$node\","
  mkdir -p "$dir"
  printf '%s\n' "{\"schema\":\"vmem-repro-run/1\",\"binary\":\"$binary\",\"backend\":\"$backend\",\"verdict\":\"$verdict\",\
\"environment\":{$name\"kernel\":\"Linux 6.1\",\"variables\":{\"HSA_XNACK\":\"(unset)\"${vars:+,$vars}}},\
\"options\":{\"ranks\":2,\"devices\":$devices,\"device_source\":\"$source\"},\"cases\":[{\"case\":\"$case\",\
\"verdict\":\"$verdict\",\"detail\":\"$detail\",\"metrics\":{},\"ranks\":[{\"info\":{},\"stderr_tail\":[\"$detail\"]}]}]}" \
    >"$dir/$file"
}
# summarise FOLDER [CHECK_EXPECTED ARGS]: the node's summary.json, made from its records by the triage's comparison
# (check_expected against expected/verdicts.md), exit 0 or 1 as a triage's comparison.
summarise() {
  local dir=$1 rc
  shift
  "$build/bin/check_expected" --table "$repo/expected/verdicts.md" --results "$dir" --summary-json "$dir/summary.json" \
    "$@" >"$work/check.out" 2>&1
  rc=$?
  [ $rc -le 1 ] || fail "check_expected over $dir: exit $rc: $(cat "$work/check.out")"
}
healthy() { record "$1" "$2" repro_host_shm read PASS && record "$1" "$2" repro_host_shm atomics PASS; }
collect() {  # collect NAME ARGS...: scripts/fleet collect --out WORK/NAME ARGS; rc and WORK/NAME.out
  local name=$1 arg
  shift
  # Each node folder's summary, as its triage leaves it (one that finished: no INCOMPLETE; one made already stays).
  for arg in "$@"; do
    [ ! -d "$arg" ] || [ -e "$arg/summary.json" ] || [ -e "$arg/INCOMPLETE" ] || summarise "$arg"
  done
  "$repo/scripts/fleet" collect --out "$work/$name" "$@" >"$work/$name.out" 2>&1
  rc=$?
  cat "$work/$name.out"
}
has() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2':"$'\n'"$(cat "$1")"; }
lacks() { ! grep -qF -- "$2" "$1" || fail "$1 has '$2':"$'\n'"$(cat "$1")"; }
utf8() { iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 || fail "$1 is not valid UTF-8"; }

# 1. Agreement: a GPU case that SKIPs everywhere changes nothing; a record re-saved by json.dump(indent=2) reads
#    as written (the node's name in \u escapes, a pair above U+FFFF, "\/").
for n in n1 n2; do
  healthy "$work/agree/$n" "$n"
  record "$work/agree/$n" "$n" repro_cuda_vmm read SKIP "" "rank 0: no NVIDIA driver"
done
healthy "$work/agree/n3" "n\u00e9"
cat >"$work/agree/n3/repro_host_shm.read.json" <<'EOF'
{
  "schema": "vmem-repro-run/1",
  "binary": "repro_host_shm",
  "backend": "host",
  "verdict": "PASS",
  "environment": {
    "node": "n\u00e9",
    "kernel": "Linux 6.1",
    "variables": {"HSA_XNACK": "(unset)"}
  },
  "options": {"ranks": 2, "devices": [0, 1], "device_source": "default 0..N-1"},
  "cases": [
    {"case": "read", "verdict": "PASS", "detail": "read \ud83d\ude00 \/ \ufffd", "metrics": {}, "ranks": []}
  ]
}
EOF
# (a variable one run of n1 had and another did not share: no fact of n1's, so it sets nothing apart)
record "$work/agree/n1" n1 repro_host_shm read PASS "" "" '"HSA_RUN":"1"'
record "$work/agree/n1" n1 repro_host_shm atomics PASS "" "" '"HSA_RUN":"2"'
collect agree "$work/agree"/*
[ $rc = 0 ] || fail "3 agreeing nodes: exit $rc"
lacks "$work/agree/fleet.md" "HSA_RUN"
has "$work/agree.out" "fleet: 3 node(s), 0 did not answer, 0 difference(s), 0 problem(s)"
has "$work/agree/fleet.md" $'| n\xc3\xa9 | - | PASS 1/1 | PASS 1/1 |'
has "$work/agree/fleet.md" "| n1 | SKIP 1/1 | PASS 1/1 | PASS 1/1 |"

# 2. A tie: one node PASSes, one FAILs; the report says it is a tie and which verdict it took (PASS), and names
#    the node that FAILs with what sets it apart, not the one that PASSes.
healthy "$work/tie/n1" n1
record "$work/tie/n2" n2 repro_host_shm read PASS "" "" '"HSA_ODD":"1"'
record "$work/tie/n2" n2 repro_host_shm atomics FAIL "" "" '"HSA_ODD":"1"'
collect tie "$work/tie"/*
[ $rc = 1 ] || fail "a tie with a FAIL: exit $rc, want 1"
has "$work/tie.out" "  repro_host_shm.atomics: FAIL on n2 (a tie, PASS taken as the majority); set apart by HSA_ODD = 1"
has "$work/tie/fleet.md" "### repro_host_shm.atomics: FAIL on n2 (a tie, PASS taken as the majority)"
has "$work/tie/fleet.md" '- `HSA_ODD = 1` on all of them; differs on 1 of 1 other node(s)'
lacks "$work/tie/fleet.md" "PASS on n1"
has "$work/tie/fleet.json" '"case":"repro_host_shm.atomics","majority":"PASS","tie":true'
has "$work/tie/fleet.json" '"case":"repro_host_shm.read","majority":"PASS","tie":false'
# Every node FAILs a case expected to PASS: the majority's verdict is still a difference from expected/.
for n in n1 n2; do record "$work/allfail/$n" $n repro_host_shm atomics FAIL; done
collect allfail "$work/allfail"/*
[ $rc = 1 ] || fail "every node FAILs atomics: exit $rc, want 1"
has "$work/allfail/fleet.md" "### repro_host_shm.atomics: FAIL on n1, n2 (majority FAIL)"
# A node's cell gives its worst verdict and the pairs that had it, though a better one came first.
for n in n1 n2; do record "$work/cells/$n" $n repro_host_shm atomics PASS 0-1; done
record "$work/cells/n1" n1 repro_host_shm atomics CRASH 1-0 "rank 1 killed by SIGSEGV"
record "$work/cells/n2" n2 repro_host_shm atomics PASS 1-0
collect cells "$work/cells"/*
has "$work/cells/fleet.md" "| n1 | CRASH 1/2: 1->0 (1 CHANGED) |"
has "$work/cells/fleet.md" "| n2 | PASS 2/2 |"

# 3. The job's node list (OUT/nodes.txt, as `fleet run` writes it) names n3, which left no folder; n4's triage
#    was interrupted (INCOMPLETE). Both did not answer; a list that cannot be read is a bad command line. n2's records
#    name its host (host-b: a triage run outside Slurm): its folder n2 answered for it, it is no silent node.
healthy "$work/listed/n1" n1
healthy "$work/listed/n2" host-b
healthy "$work/listed/n4" n4
touch "$work/listed/n4/INCOMPLETE"
mkdir -p "$work/listed-out"
printf 'n1\nn2\nn3\n' >"$work/listed-out/nodes.txt"
collect listed-out "$work/listed"/*
[ $rc = 1 ] || fail "a listed node without a folder: exit $rc, want 1"
has "$work/listed-out.out" "  node n3 did not answer: no results folder (the node did not answer)"
has "$work/listed-out.out" "  node n4 did not answer: its triage did not finish (INCOMPLETE)"
has "$work/listed-out/fleet.md" "| n3 | did not answer | did not answer |"
has "$work/listed-out/fleet.md" "| n4 | did not answer | did not answer |"
has "$work/listed-out.out" "fleet: 4 node(s), 2 did not answer, 0 difference(s), 0 problem(s)"
lacks "$work/listed-out.out" "node n2 did not answer"
"$build/bin/fleet_report" --out "$work/listed-out" --nodes "$work/no-such-list" \
  "$work/listed/n1" >"$work/nolist.out" 2>&1
rc=$?
[ $rc = 99 ] || fail "an unreadable --nodes file: exit $rc, want 99"
has "$work/nolist.out" "fleet_report: cannot read the node list $work/no-such-list"

# 4. One record of n1 cut short (a disk that filled, a copy interrupted): a problem of n1, exit 1. A stray record
#    of n2 in n1's folder: n1 stays n1 (it does not become n2), the stray record is a problem and counts nowhere (its
#    triage's comparison set it aside as an unreadable record).
healthy "$work/cut/n1" n1
healthy "$work/cut/n2" n2
head -c 150 "$work/cut/n2/repro_host_shm.atomics.json" >"$work/cut/n1/repro_host_shm.atomics.json"
collect cut "$work/cut"/*
[ $rc = 1 ] || fail "a truncated record: exit $rc, want 1"
has "$work/cut.out" "fleet: 2 node(s), 0 did not answer, 0 difference(s), 1 problem(s)"
has "$work/cut.out" "  node n1: unreadable run record repro_host_shm.atomics.json: JSON: malformed at offset 150"
has "$work/cut/fleet.md" "- n1: unreadable run record repro_host_shm.atomics.json: JSON: malformed at offset 150"
healthy "$work/stray/n1" n1
healthy "$work/stray/n3" n3
record "$work/stray/n1x" n2 repro_host_shm read FAIL
mv "$work/stray/n1x/repro_host_shm.read.json" "$work/stray/n1/repro_host_shm.stray.json" && rm -r "$work/stray/n1x"
collect stray "$work/stray"/*
[ $rc = 1 ] || fail "a stray record: exit $rc, want 1"
has "$work/stray/fleet.md" "| n1 | PASS 1/1 | PASS 1/1 |"
lacks "$work/stray/fleet.md" "| n2 |"
has "$work/stray.out" "  node n1: run record repro_host_shm.stray.json is a record of node n2, not of n1"

# 5. n1 gathered from two racks (the same SLURMD_NODENAME, the same folder name): two rows, never one merged cell;
#    the shortest tails of their paths tell them apart. The same folder given twice is refused.
record "$work/racks/r1/n1" n1 repro_host_shm atomics FAIL
record "$work/racks/r2/n1" n1 repro_host_shm atomics PASS
record "$work/racks/r2/n2" n2 repro_host_shm atomics PASS
collect racks "$work/racks/r1/n1" "$work/racks/r2/n1" "$work/racks/r2/n2"
[ $rc = 1 ] || fail "two n1: exit $rc, want 1"
has "$work/racks/fleet.md" "| r1/n1 | FAIL 1/1: - (1 CHANGED) |"
has "$work/racks/fleet.md" "| r2/n1 | PASS 1/1 |"
has "$work/racks/fleet.md" "### repro_host_shm.atomics: FAIL on r1/n1 (majority PASS)"
collect twice "$work/racks/r2/n2" "$work/racks/r2/n2/"
[ $rc = 2 ] || fail "a folder given twice: exit $rc, want 2"
has "$work/twice.out" "fleet_report: the folder $work/racks/r2/n2/ is given twice"

# 6. Hostile names and text: a folder "x|y" (records naming no node), a node whose name has a newline, a folder
#    whose name is not UTF-8; a fact with a backtick; raw bytes that are not UTF-8 in a record's detail and facts.
#    The table keeps its columns, every output is one line per entry and valid UTF-8.
healthy "$work/odd/x|y" -
healthy "$work/odd/plain" plain
healthy "$work/odd/"$'bad\xff' -
record "$work/odd/nl" 'nl\nname' repro_host_shm read PASS "" "" $'"HSA_TICK":"a`b","HSA_RAW":"v\xfe"'
record "$work/odd/nl" 'nl\nname' repro_host_shm atomics FAIL "" $'lost \xff\xfe here' $'"HSA_TICK":"a`b","HSA_RAW":"v\xfe"'
collect odd --junit "$work/odd.xml" "$work/odd"/*
[ $rc = 1 ] || fail "hostile names: exit $rc, want 1"
has "$work/odd/fleet.md" '| x\|y | PASS 1/1 | PASS 1/1 |'
has "$work/odd/fleet.md" '| nl\\x0aname | FAIL 1/1: - (1 CHANGED) | PASS 1/1 |'
has "$work/odd/fleet.md" $'| bad\xef\xbf\xbd | PASS 1/1 | PASS 1/1 |'
has "$work/odd/fleet.md" '### repro_host_shm.atomics: FAIL on nl\\x0aname (majority PASS)'
has "$work/odd/fleet.md" '- ``HSA_TICK = a`b`` on all of them'
has "$work/odd/fleet.md" $'- `HSA_RAW = v\xef\xbf\xbd` on all of them'
bad_rows=$(grep '^|' "$work/odd/fleet.md" | sed 's/\\|//g' | awk -F'|' 'NF != 5' | wc -l)
[ "$bad_rows" = 0 ] || fail "fleet.md's table lost its columns: $(grep '^|' "$work/odd/fleet.md")"
has "$work/odd.out" '  repro_host_shm.atomics: FAIL on nl\x0aname (majority PASS)'
grep -q '^name' "$work/odd.out" && fail "a node's newline forged a console line"
has "$work/odd/fleet.json" '"name":"nl\nname"'
has "$work/odd/fleet.json" '"name":"x|y"'
for f in "$work/odd/fleet.md" "$work/odd/fleet.json" "$work/odd.xml" "$work/odd.out"; do utf8 "$f"; done
if command -v python3 >/dev/null; then
  python3 - "$work/odd.xml" <<'PY' || fail "the JUnit file of hostile names does not parse"
import sys, xml.etree.ElementTree as ET
suites = {s.get("name"): s for s in ET.parse(sys.argv[1]).getroot().findall("testsuite")}
assert "nl\\x0aname" in suites and "x|y" in suites and "bad\ufffd" in suites, sorted(suites)
assert int(suites["nl\\x0aname"].get("failures")) == 1
PY
fi
# bug-report.md reads the same records through the same reader (and what failed from the same summary.json): the
# raw bytes arrive as U+FFFD there too.
"$repo/scripts/bug-report" --no-redact "$work/odd/nl" >"$work/bug-report.out" 2>&1 || fail "bug-report: $(cat "$work/bug-report.out")"
has "$work/odd/nl/bug-report.md" $'lost \xef\xbf\xbd\xef\xbf\xbd here'
utf8 "$work/odd/nl/bug-report.md"

# What XML 1.0 refuses, in a node's folder name (U+FFFF) and a FAIL's detail (U+FFFE, a C0 control, a surrogate as
# an escape and as raw UTF-8 bytes): the JUnit file still parses for the real xmllint (Debian's libxml2-utils,
# ./scripts/test installs it), and the text around each stands.
command -v xmllint >/dev/null || fail "xmllint is not installed (apt-get install libxml2-utils)"
healthy "$work/xmlchars/"$'n\xef\xbf\xbf' -
record "$work/xmlchars/"$'n\xef\xbf\xbf' - repro_host_shm atomics FAIL "" $'a\xef\xbf\xbeb\\u0001c\\ud800d\xed\xa0\x80e'
collect xmlchars --junit "$work/xmlchars.xml" "$work/xmlchars"/*
[ $rc = 1 ] || fail "names and details XML refuses: exit $rc, want 1"
xmllint --noout "$work/xmlchars.xml" 2>"$work/xmllint.err" || fail "xmllint refuses the JUnit file: $(head -3 "$work/xmllint.err")"
has "$work/xmlchars.xml" $'<testsuite name="n\xef\xbf\xbd"'
has "$work/xmlchars.xml" $'a\xef\xbf\xbdb\\x01c\xef\xbf\xbdd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbde'

# 7. A report that cannot be written is an error naming it (exit 99), never "fleet report: ..." as if written: a
#    --out that is a file, a full disk (/dev/full), a folder this user cannot write.
: >"$work/a-file"
"$build/bin/fleet_report" --out "$work/a-file" "$work/agree/n1" >"$work/unwritable.out" 2>&1
rc=$?
[ $rc = 99 ] || fail "--out a file: exit $rc, want 99"
has "$work/unwritable.out" "fleet_report: cannot write $work/a-file/fleet.json: "
grep -qE "^fleet_report: cannot write .*/a-file/fleet\.json: .*: Not a directory$" "$work/unwritable.out" ||
  fail "the line for fleet.json does not end with errno's text: $(cat "$work/unwritable.out")"
lacks "$work/unwritable.out" "fleet report:"
collect full --junit /dev/full "$work/agree/n1"
[ $rc = 99 ] || fail "--junit /dev/full: exit $rc, want 99"
has "$work/full.out" "fleet_report: cannot write /dev/full: No space left on device"
if [ "$(id -u)" != 0 ]; then  # root writes anywhere
  mkdir -p "$work/read-only" && chmod 555 "$work/read-only"
  collect read-only "$work/agree/n1"
  chmod 755 "$work/read-only"
  [ $rc = 99 ] || fail "a read-only --out: exit $rc, want 99"
  has "$work/read-only.out" "fleet_report: cannot write $work/read-only/fleet.json: Permission denied"
fi
# --help is the script's header, all of it and nothing of its code.
"$repo/scripts/fleet" --help >"$work/help.out" 2>&1 || fail "fleet --help: exit $?"
has "$work/help.out" "Exit: 0 every node answered and agrees"
[ "$(tail -n 1 "$work/help.out")" = "(an injected fact; VMR_FORCE_FAIL=binary.case makes a case fail there)." ] ||
  fail "fleet --help does not end with its header: $(tail -n 3 "$work/help.out")"
# 8. Each node's own summary.json counts: n2's triage planned a run on 1->0 that left no record (its summary's
#    missing_record row): n2 differs, though its records match n1's. n3's triage found a table problem: a problem of
#    n3. A summary that cannot be read is a problem too. No node at all is an error, never "every node agrees".
for n in n1 n2 n3 n4; do healthy "$work/own/$n" $n; done
printf 'repro_host_shm.read\nrepro_host_shm.atomics 1-0\n' >"$work/own-plan.txt"
summarise "$work/own/n2" --plan "$work/own-plan.txt"
: >"$work/own-not-a-binary"
summarise "$work/own/n3" --binary "$work/own-not-a-binary"
summarise "$work/own/n4"
head -c 100 "$work/own/n4/summary.json" >"$work/own-cut.json" && mv "$work/own-cut.json" "$work/own/n4/summary.json"
collect own --junit "$work/own.xml" "$work/own"/*
[ $rc = 1 ] || fail "a node's planned run without a record: exit $rc, want 1"
has "$work/own.out" "fleet: 4 node(s), 0 did not answer, 1 difference(s), 2 problem(s)"
has "$work/own.out" "  repro_host_shm.atomics: PASS on n2 (majority PASS)"
has "$work/own/fleet.md" "| n2 | PASS 1/1 + 1 planned run(s) without a record (1 CHANGED) | PASS 1/1 |"
has "$work/own.out" "  node n3: its triage found 1 table problem(s), the first: TABLE: $work/own-not-a-binary is not an executable binary"
has "$work/own.out" "  node n4: its triage's summary: $work/own/n4/summary.json is not JSON"
has "$work/own.xml" 'name="atomics[1-&gt;0]"'
# A folder without a summary.json (no finished triage's: a triage that stops leaves INCOMPLETE) is the input's
# problem, named once (exit 99), never a node verdict: its records are not read, its FAIL in no cell.
healthy "$work/nosummary/n1" n1
record "$work/nosummary/n2" n2 repro_host_shm atomics FAIL
summarise "$work/nosummary/n1"
"$build/bin/fleet_report" --out "$work/nosummary" "$work/nosummary/n1" "$work/nosummary/n2" >"$work/nosummary.out" 2>&1
rc=$?
[ $rc = 99 ] || fail "a folder without summary.json: exit $rc, want 99"
[ "$(grep -c "summary.json" "$work/nosummary.out")" = 1 ] || fail "the folder is not named once: $(cat "$work/nosummary.out")"
has "$work/nosummary.out" "  input problem (not node n2's): $work/nosummary/n2 has no summary.json: not a finished triage's folder"
has "$work/nosummary.out" "fleet: 2 node(s), 0 did not answer, 0 difference(s), 0 problem(s), 1 file(s) refused"
lacks "$work/nosummary/fleet.md" "FAIL"
# fleet.html says it too (n2 has no cell there, and the page says why)
has "$work/nosummary/fleet.html" "0 problem(s), 1 file(s) refused."
has "$work/nosummary/fleet.html" "<h2>Files refused</h2>"
has "$work/nosummary/fleet.html" "<li>n2: $work/nosummary/n2 has no summary.json: not a finished triage&#39;s folder</li>"
# What this reader cannot look at is the input's problem, named as it is (exit 99), never "has no summary.json" nor
# a problem of the node: a file given as a node folder; a folder or a summary.json another user's permissions keep
# from the reader (run as nobody where the test runs as root, who reads everything).
printf 'not a folder\n' >"$work/nosummary/n3"
"$build/bin/fleet_report" --out "$work/nosummary" "$work/nosummary/n1" "$work/nosummary/n3" >"$work/notdir.out" 2>&1
rc=$?
[ $rc = 99 ] || fail "a file given as a node folder: exit $rc, want 99"
has "$work/notdir.out" "  input problem (not node n3's): $work/nosummary/n3 is not a folder: a node folder is the results folder its triage wrote"
has "$work/notdir.out" "fleet: 2 node(s), 0 did not answer, 0 difference(s), 0 problem(s), 1 file(s) refused"
as_other=()
[ "$(id -u)" != 0 ] || as_other=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
# (only where that user can reach this folder at all: a work folder under a private home is left out)
if { [ "$(id -u)" != 0 ] || { command -v setpriv >/dev/null && getent passwd nobody >/dev/null; }; } &&
  "${as_other[@]}" test -x "$work"; then
  healthy "$work/locked/n1" n1 && healthy "$work/locked/n2" n2 && healthy "$work/locked/n3" n3
  for n in n1 n2 n3; do summarise "$work/locked/$n"; done
  mkdir -p "$work/locked/out"
  chmod -R a+rX "$work/locked" && chmod 777 "$work/locked/out" && chmod 000 "$work/locked/n2" "$work/locked/n3/summary.json"
  (cd / && "${as_other[@]}" "$build/bin/fleet_report" --out "$work/locked/out" "$work/locked/n1" "$work/locked/n2" \
    "$work/locked/n3") >"$work/locked.out" 2>&1
  rc=$?
  chmod 755 "$work/locked/n2" && chmod 644 "$work/locked/n3/summary.json"
  [ $rc = 99 ] || fail "folders the reader may not read: exit $rc, want 99: $(cat "$work/locked.out")"
  has "$work/locked.out" "  input problem (not node n2's): cannot look at $work/locked/n2/INCOMPLETE: Permission denied"
  has "$work/locked.out" "  input problem (not node n3's): cannot read $work/locked/n3/summary.json: Permission denied"
  has "$work/locked.out" "fleet: 3 node(s), 0 did not answer, 0 difference(s), 0 problem(s), 2 file(s) refused"
fi
mkdir -p "$work/none"  # (a report could be written there: only the lack of nodes may fail it)
"$build/bin/fleet_report" --out "$work/none" >"$work/none.out" 2>&1
rc=$?
[ $rc = 99 ] || fail "no node folder at all: exit $rc, want 99"
[ "$(cat "$work/none.out")" = "fleet_report: no node to report on (no NODE_DIR given)" ] ||
  fail "no node folder at all: $(cat "$work/none.out")"
[ ! -e "$work/none/fleet.md" ] || fail "no node folder at all: a report was written"
: >"$work/none-list"
"$build/bin/fleet_report" --out "$work/none" --nodes "$work/none-list" >"$work/none.out" 2>&1
rc=$?
[ $rc = 99 ] && grep -qx "fleet_report: no node to report on (no NODE_DIR given, and the node list names none)" "$work/none.out" ||
  fail "an empty node list: exit $rc: $(cat "$work/none.out")"

# 9. The facts that set the odd nodes apart, chosen and ranked exactly: n1 and n2 FAIL atomics, n3-n6 PASS. A fact
#    counts only where both odd nodes hold the same value and some other node differs (a fact another node lacks
#    differs); most other nodes differing first, a tie in key order. HSA_SAME (everywhere alike), HSA_SPLIT (n1 and
#    n2 differ) and HSA_ONE (n2 only) set nothing apart; the two that differ anyway are facts without a verdict change.
odd_vars=('"AMD_D":"z","HSA_A":"x","HSA_B":"1","HSA_C":"on","HSA_SAME":"s","HSA_SPLIT":"1"'
  '"AMD_D":"z","HSA_A":"x","HSA_B":"1","HSA_C":"on","HSA_SAME":"s","HSA_SPLIT":"2","HSA_ONE":"o"')
other_vars=('"HSA_A":"y","HSA_B":"1","HSA_C":"off","HSA_SAME":"s"' '"HSA_A":"y","HSA_B":"1","HSA_C":"on","HSA_SAME":"s"'
  '"HSA_A":"y","HSA_B":"0","HSA_C":"on","HSA_SAME":"s"' '"HSA_A":"y","HSA_C":"on","HSA_SAME":"s"')
for i in 0 1; do
  record "$work/facts/n$((i + 1))" n$((i + 1)) repro_host_shm read PASS "" "" "${odd_vars[$i]}"
  record "$work/facts/n$((i + 1))" n$((i + 1)) repro_host_shm atomics FAIL "" "" "${odd_vars[$i]}"
done
for i in 0 1 2 3; do
  record "$work/facts/n$((i + 3))" n$((i + 3)) repro_host_shm read PASS "" "" "${other_vars[$i]}"
  record "$work/facts/n$((i + 3))" n$((i + 3)) repro_host_shm atomics PASS "" "" "${other_vars[$i]}"
done
collect facts "$work/facts"/*
[ $rc = 1 ] || fail "two nodes FAIL atomics: exit $rc, want 1"
has "$work/facts/fleet.json" '"case":"repro_host_shm.atomics","verdict":"FAIL","nodes":["n1","n2"],"separating_facts":[{"fact":"AMD_D","value":"z","other_nodes_differing":4,"other_nodes":4},{"fact":"HSA_A","value":"x","other_nodes_differing":4,"other_nodes":4},{"fact":"HSA_B","value":"1","other_nodes_differing":2,"other_nodes":4},{"fact":"HSA_C","value":"on","other_nodes_differing":1,"other_nodes":4}]}'
has "$work/facts/fleet.json" '"facts_without_verdict_change":{"HSA_ONE":{"n1":"(not reported)","n2":"o","n3":"(not reported)","n4":"(not reported)","n5":"(not reported)","n6":"(not reported)"},"HSA_SPLIT":{"n1":"1","n2":"2","n3":"(not reported)","n4":"(not reported)","n5":"(not reported)","n6":"(not reported)"}}'
want_md='- `AMD_D = z` on all of them; differs on 4 of 4 other node(s)
- `HSA_A = x` on all of them; differs on 4 of 4 other node(s)
- `HSA_B = 1` on all of them; differs on 2 of 4 other node(s)
- `HSA_C = on` on all of them; differs on 1 of 4 other node(s)'
[ "$(grep '^- `.*` on all of them; ' "$work/facts/fleet.md")" = "$want_md" ] ||
  fail "fleet.md's separating facts, in order, are not:"$'\n'"$want_md"$'\n'"$(cat "$work/facts/fleet.md")"
has "$work/facts.out" "  repro_host_shm.atomics: FAIL on n1,n2 (majority PASS); set apart by AMD_D = z (4 of 4 others differ)"

echo "fleet collect: all checks passed"
