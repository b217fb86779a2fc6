# scripts/triage's launches: what rounds.txt (tools/plan.h: "k round binary devices cases sharing") says, run.
# Sourced by the triage, whose globals (out, launches, extra, BUILD_DIR) they read; its --jobs cap is an argument.

# The name of a launch's files: <binary>[.<devices>] ("-" for none; "0,1" becomes "0-1", the records' pair key).
file_of() { if [ "$2" = - ]; then echo "$1"; else echo "$1.${2//,/-}"; fi; }
# Where a launch ran, for the user: " GPU 0 -> GPU 1" for a pair, " GPU 0,GPU 1,GPU 2" for a mesh, "" for none.
where_of() {
  local w=""
  [ "$1" = - ] || w=" GPU ${1//,/,GPU }"
  [[ "$1" == *,*,* ]] || w=${w/,GPU / -> GPU }
  echo "$w"
}

# One launch: a binary, its devices ("-" for none, "0,1" for a pair, "0,1,2,3" for a mesh) and its cases; writes
# <binary>[.<devices>].{json,log} and prints one progress line, a launch that left no record above all.
launch() {
  local k=$1 name=$2 devices=$3 cases=$4 file args=() c t0
  file=$(file_of "$name" "$devices")
  [ "$devices" = - ] || args+=(--devices "$devices")
  for c in ${cases//+/ }; do args+=(--case "$c"); done
  t0=$(date +%s%N)
  "$BUILD_DIR/bin/$name" "${args[@]}" --json "$out/$file.json" "${extra[@]}" >"$out/$file.log" 2>&1 </dev/null || true
  local results took
  results=$("$BUILD_DIR/bin/check_expected" --record "$out/$file.json" 2>/dev/null | paste -sd, - | sed 's/,/, /g' || true)
  took=$(seconds_since "$t0" %.2f)
  printf '[%d/%d] %s%s  %s s  %s\n' "$k" "$launches" "$name" "$(where_of "$devices")" "$took" "${results:-NONE (see $file.log)}" >&2
  echo "$took" >"$out/.took.$k"
}

# run_rounds CAP LINE...: one binary's lines, each round's launches at once (at most CAP; 0: no cap), the rounds in
# turn.
run_rounds() {
  local cap=$1 round=-1 running=0 line k r name devices cases
  shift
  for line in "$@"; do
    read -r k r name devices cases _ <<<"$line"
    if [ "$r" != "$round" ]; then wait; running=0; round=$r; fi
    if [ "$cap" -gt 0 ] && [ "$running" -ge "$cap" ]; then wait; running=0; fi
    launch "$k" "$name" "$devices" "$cases" &
    running=$((running + 1))
  done
  wait
}

# run_plan CAP LINE...: rounds.txt lines, by binary (tools/plan.h, Sharing and binaries_at_once), at most CAP launches
# at once (--jobs, --serial's 1; 0: every round whole). With every round whole the binaries marked "together" run
# side by side, each in its own processes; then the others, one binary at a time (every binary so under a cap, which
# promises at most CAP runs at once), an "alone" one one launch at a time.
run_plan() {
  local cap=$1 line name sharing group=()
  local -a order=()
  local -A lines_of=() side_by_side=() alone=()
  shift
  for line in "$@"; do
    read -r _ _ name _ _ sharing <<<"$line"
    [ -n "${lines_of[$name]+x}" ] || order+=("$name")
    lines_of[$name]+="$line"$'\n'
    if [ "$cap" = 0 ] && [ "$sharing" = together ]; then side_by_side[$name]=1; fi
    if [ "$sharing" = alone ]; then alone[$name]=1; fi
  done
  for name in "${order[@]+"${order[@]}"}"; do
    [ -n "${side_by_side[$name]-}" ] || continue
    mapfile -t group <<<"${lines_of[$name]%$'\n'}"
    run_rounds "$cap" "${group[@]}" &
  done
  wait
  for name in "${order[@]+"${order[@]}"}"; do
    [ -z "${side_by_side[$name]-}" ] || continue
    mapfile -t group <<<"${lines_of[$name]%$'\n'}"
    # An alone binary's own launches one at a time too: KFD counts another launch's ranks as other processes on
    # every GPU (each HSA process opens every GPU), which would make its leak case undecided.
    if [ "${alone[$name]-}" ]; then run_rounds 1 "${group[@]}"; else run_rounds "$cap" "${group[@]}"; fi
  done
}
