# The arguments a script passes on to every run of the reproducers (what follows its `--`): the one check that
# scripts/triage and scripts/bisect make before they run anything, so both refuse the same ones, and a typo is one
# clear line at the start rather than a usage error per run (which bisect would read as "skip this commit" on every
# commit). Sourced, not run; needs $BUILD_DIR (scripts/lib/common.sh) and a built repro_host_shm.
#   vmr_run_args_refused WHO_CHOOSES OPTIONS ARGS...
# Prints why ARGS cannot go to every run, and succeeds, where they cannot; fails (prints nothing) where they can.
# OPTIONS (one word, space-separated) are those the caller sets per run besides the ones every caller sets (the
# cases, the listing, the record: a second --case or --json would be each run's usage error, --list would leave no
# record); WHO_CHOOSES ends the refusal's line ("triage chooses ...").
vmr_run_args_refused() {
  local chosen="--case --all --list --json --help -h $2" who=$1 a why
  shift 2
  for a in "$@"; do
    if [[ " $chosen " == *" ${a%%=*} "* ]]; then
      echo "'$a' after -- is refused: $who"
      return 0
    fi
  done
  [ $# -gt 0 ] || return 1
  # The binaries' own parser (common/harness/options.cpp, the same in every reproducer) judges the rest: a value
  # out of range, an unknown option, one given twice. --list makes it stop there, having started nothing.
  why=$("$BUILD_DIR/bin/repro_host_shm" "$@" --list 2>&1 >/dev/null) && return 1
  echo "the arguments after -- are refused: ${why:-repro_host_shm refused them without a word}"
}
