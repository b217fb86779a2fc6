# scripts/triage's ways to end: its last line, an interrupt, a failed step of its own. Sourced by the triage, whose
# globals (out, launches, started, took) they read.

# Seconds since a `date +%s%N` in the printf format given.
seconds_since() { awk -v a="$1" -v b="$(date +%s%N)" -v f="$2" 'BEGIN { printf f, (b - a) / 1e9 }'; }

# The last line says in words what the exit code says: a health check or a user reads one line. Nothing after it
# is a step of ours that could fail again (its ERR trap off).
finish() {
  trap - ERR
  printf '\ntriage: %s; %d launches in %s s; results: %s\n' "$2" "$launches" "${took:-$(seconds_since "$started" %.1f)}" "${out:-none}" || true
  exit "$1"
}

# The build and the launches run in a process group of their own (in_group: not the group of whoever started
# triage), which an interrupt stops whole: SIGTERM, on which each launcher stops its ranks and writes its record
# (HARNESS, interrupted), then SIGKILL for what is left after 1.5 s (a rank dies with its launcher:
# PR_SET_PDEATHSIG). in_group returns the status of what it ran.
launch_group=
in_group() {
  local rc=0
  # A group not in the terminal's foreground stops for good where it reads the terminal (SIGTTIN: its standard input
  # is /dev/null) or, on a terminal set to `stty tostop`, writes there (SIGTTOU ignored: the progress lines, the
  # build's log).
  set -m; { trap "" TTOU; "$@"; } </dev/null & launch_group=$!; set +m
  wait "$launch_group" || rc=$?
  launch_group=
  return "$rc"
}
group_alive() { ps -e -o pgid=,stat= | awk -v g="$launch_group" '$1 == g && $2 !~ /^Z/ { alive = 1 } END { exit !alive }'; }
# The listings' `timeout`s started from the launch group (scripts/lib/case_list.sh): each leads a process group of
# its own, which a signal to the launch group does not reach. Found while their parents live. (Only timeout's: a
# launcher's ranks, in groups of their own too, are the launcher's to stop, which records why.)
escaped_groups() {
  ps -e -o pid=,ppid=,pgid=,comm= | awk -v g="$launch_group" '
    { parent[$1] = $2; group[$1] = $3; name[$1] = $4; if ($3 == g) inside[$1] = 1 }
    END { for (p in parent) if (inside[parent[p]] && group[p] == p && name[p] == "timeout") print p }'
}

# Interrupted from the first step on (the build and the listing included), the exit is 99 with its line: never the
# shell's 130 or 143, which no exit table lists. Once report.md is written the triage is finished: a late signal
# changes nothing (no INCOMPLETE again, the exit stays the verdict's), and the triage ends as it would have.
interrupted() {
  local p
  trap '' INT TERM HUP
  [ -z "$out" ] || [ ! -e "$out/report.md" ] || return 0
  if [ -n "$launch_group" ]; then
    # (timeout passes the signal on to its command's group, and kills it 5 s later if it is still there)
    for p in $(escaped_groups); do kill -TERM -- "-$p" 2>/dev/null || true; done
    kill -TERM -- "-$launch_group" 2>/dev/null || true
    for _ in {1..15}; do group_alive || break; sleep 0.1; done
    ! group_alive || kill -KILL -- "-$launch_group" 2>/dev/null || true
  fi
  wait || true
  if [ -z "$out" ]; then
    finish 99 "ERROR (exit 99): interrupted by $1 before the results folder was made; everything it started was stopped"
  fi
  rm -f "$out"/.took.*
  echo "interrupted by $1" >>"$out/INCOMPLETE" || true  # (a full disk: the marker's first line still says so)
  finish 99 "ERROR (exit 99): interrupted by $1; every launch it started was stopped, the folder stays INCOMPLETE"
}

# A step of the triage's own that fails (a write to a full disk above all: bash names the file on stderr) is the
# suite's error, never a verdict: set -e alone ended it with the failed command's status, 1, the CHANGED code, and
# no last line. In a subshell (a launch, a $(...)) it ends that subshell, whose caller sees the failure.
own_step_failed() {
  [ "$BASHPID" = "$$" ] || exit 99
  [ -z "$out" ] || echo "a step of the triage itself failed (line $1)" >>"$out/INCOMPLETE" 2>/dev/null || true
  # One line: the file the failed command wrote (its last redirection, $out written out), else its first line.
  local what="${2%%$'\n'*}"
  if [[ "$2" =~ \>+\ *\"?([^\" ]+)\"?$ ]]; then what="writing ${BASH_REMATCH[1]//'$out'/$out}"; fi
  finish 99 "ERROR (exit 99): a step of the triage itself failed (line $1, ${what:0:160}; a full disk? see above)${out:+, the folder stays INCOMPLETE}"
}

# The comparison (summary.json, summary.txt, --junit, --prom), report.md and the last line, from the triage's
# globals (out, launches, notes, checked, modelled, concurrency, junit, prom, started).
judge_and_finish() {
  # --gpu-run-required: 77 where no GPU case ran to a verdict (the tool decides from the rows it compared).
  compare=(--table "$VMR_ROOT/expected/verdicts.md" --results "$out" --plan "$out/plan.txt" --manifest "$BUILD_DIR/bin/manifest.txt"
           --lists "$out/lists" --gpu-run-required "${checked[@]}")
  rc=0
  "$BUILD_DIR/bin/check_expected" "${compare[@]}" --matrix --summary-json "$out/summary.json" | tee "$out/summary.txt" ||
    { piped=("${PIPESTATUS[@]}"); rc=${piped[0]}; [ "${piped[1]}" = 0 ] || own_step_failed "$LINENO" "tee >$out/summary.txt"; }
  # --junit and --prom, outside the folder, from summary.json (the comparison runs once): one that cannot be written
  # (a wrong path, a full disk; the tool names it on stderr) is said on the last line beside the node's verdict, and
  # never takes the place of a CHANGED (1), on which a health check drains the node.
  unwritten=
  if [ -n "$junit$prom" ] && { [ "$rc" = 0 ] || [ "$rc" = 1 ] || [ "$rc" = 77 ]; }; then
    written=0
    "$BUILD_DIR/bin/check_expected" --from-summary "$out/summary.json" ${junit:+--junit "$junit"} \
      ${prom:+--prom "$prom" --prom-took "$(seconds_since "$started" %.3f)" --prom-exit "$rc"} >/dev/null || written=$?
    [ "$written" = 0 ] || unwritten="${junit:+ --junit $junit}${prom:+ --prom $prom}"
  fi
  took=$(seconds_since "$started" %.1f)
  # report.md: the verdicts of summary.json under this run's facts, written by the tool (one writer, atomic), after
  # report.html (the same verdicts as a page). Where either cannot be written the triage exits as the tool does (99)
  # and the folder stays INCOMPLETE: it has no report.
  report=(--report-md "$out/report.md" --summary "$out/summary.json" --launches "$launches" --took "$took"
          --modelled "$modelled" --concurrency "$concurrency")
  for note in "${notes[@]}"; do report+=(--note "$note"); done
  if [ "$rc" = 2 ]; then
    # The table could not be read (check_expected said why): there is nothing to report against, so no report, and
    # the exit stays the table's 2, not the missing summary's 99.
    vmr_say "scripts/triage: expected/verdicts.md could not be used (above); no report, $out stays INCOMPLETE"
  elif [ "$rc" != 99 ] && trap '' INT TERM HUP &&
    "$BUILD_DIR/bin/check_expected" --from-summary "$out/summary.json" --html "$out/report.html" &&
    "$BUILD_DIR/bin/check_expected" "${report[@]}"; then
    # (From the report on, INT, TERM and HUP are ignored by the triage and by every process it starts: a signal to the
    # whole process group, as timeout, Slurm and a terminal send, would otherwise kill the report's writer or a
    # last rm half-way and turn a finished triage into a failed step of its own, INCOMPLETE again.)
    # Test seam (tests/triage_faults.sh): a pause here holds the triage between its report and its end, where a
    # signal must change nothing.
    [ -z "${VMR_TEST_PAUSE_AFTER_REPORT_S-}" ] || sleep "$VMR_TEST_PAUSE_AFTER_REPORT_S"
    rm -f "$out/INCOMPLETE"
  else
    rc=99  # (the tool said why above)
  fi
  # (From summary.json, as every reader of the comparison: never from the console's text.)
  counts=$("$BUILD_DIR/bin/check_expected" --counts "$out/summary.json" 2>/dev/null || true)
  # The binaries that could not list their cases (the comparison's 99, its LIST: lines above), named on the last line.
  unlisted=
  [ "$rc" != 99 ] ||
    unlisted=$("$BUILD_DIR/bin/check_expected" --unlisted "$out/summary.json" 2>/dev/null | paste -sd, - | sed 's/,/, /g' || true)
  case "$rc" in
    0) outcome="ALL AS EXPECTED (exit 0): ${counts:-?}" ;;
    1) outcome="CHANGED (exit 1): ${counts:-?}; the CHANGED rows above differ from expected/verdicts.md" ;;
    77) outcome="NOTHING RAN (exit 77): no GPU case ran to a verdict here (${counts:-?}; each not-run row says why)" ;;
    *) if [ -n "$unlisted" ]; then
         outcome="ERROR (exit $rc): $unlisted could not list its cases (the LIST line above): a suite problem, no verdict on the node; no report"
       else
         outcome="ERROR (exit $rc): the triage could not finish its report (above)"
       fi ;;
  esac
  if [ -n "$unwritten" ]; then
    # The node's CHANGED stays; otherwise an output asked for and missing is not "all as expected" nor "nothing ran".
    if [ "$rc" = 1 ]; then
      outcome+="; and${unwritten} could not be written (above)"
    elif [ "$rc" != 99 ]; then
      outcome="ERROR (exit 99):${unwritten} could not be written (above); the verdicts: $outcome"
      rc=99
    fi
  fi
  finish "$rc" "$outcome"
}
