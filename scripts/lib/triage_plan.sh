# scripts/triage's plan: each built binary's cases (its own --list --json) and the planner's launches for them
# (tools/triage_plan, tools/plan.h). Sourced by the triage, whose globals (out, include_crash, mode, pairs_arg, mesh,
# gpus, BUILD_DIR, planner) they read; they fill `notes` (one per backend), `checked` (--binary per binary compared)
# and `ring` (--ring where asked), and rounds.txt.

# The cases a plain triage runs: the binary's own --list --json (listed the one way, scripts/lib/case_list.sh), read
# by check_expected, which leaves out the known-crash and self-test ones the binary marks (all of them with
# --include-crash). Kept in lists/; a listing that fails leaves lists/<binary>.failed, its one line, which the
# comparison names as the suite's problem (exit 99) without listing the binary again. The chosen cases go to
# lists/.<binary>.cases, read by plan_binaries and removed.
list_one() {
  local list=$out/lists/$1.json opt_in=() cases
  vmr_list_cases "$BUILD_DIR/bin/$1" "$list" 2>"$out/lists/$1.failed" || return 0
  rm -f "$out/lists/$1.failed"
  if [ "$include_crash" = 1 ]; then opt_in=(--with-opt-in); fi
  cases=$("$BUILD_DIR/bin/check_expected" --cases "$list" "${opt_in[@]+"${opt_in[@]}"}") || true
  printf '%s' "$cases" >"$out/lists/.$1.cases" || { rm -f "$out/lists/.$1.cases"; return 1; }
}
# Every binary named at once: each listing is two process starts, which one binary after another were the longest
# step before the triage's first launch. Each job writes files of its own name only; a job that could not (a full
# disk) makes list_all fail once every job has ended. Run in_group: an interrupt stops the listings at once.
list_all() {
  local name pid pids=() failed=0
  for name in "$@"; do
    list_one "$name" &
    pids+=("$!")
  done
  for pid in "${pids[@]+"${pids[@]}"}"; do wait "$pid" || failed=1; done
  return "$failed"
}
# What list_all could not write, for the triage's last line: the first listed binary's chosen cases (a job that
# could not write them leaves none), else the folder.
list_unwritten() {
  local name
  for name in "$@"; do
    [ ! -f "$out/lists/$name.json" ] || [ -f "$out/lists/.$name.cases" ] || { echo "writing $out/lists/.$name.cases"; return; }
  done
  echo "writing in $out/lists"
}

# Appends a binary's launches to rounds.txt and its notes to `notes`; the planner's failure (a full disk: it names
# the file) is a failed step of the triage's own.
plan_step() {
  local said
  said=$("$planner" "$@" --rounds "$out/rounds.txt" 2>&1) || own_step_failed "${BASH_LINENO[0]}" "$said"
  [ -z "$said" ] || mapfile -t -O "${#notes[@]}" notes <<<"$said"
}
# Every binary of the manifest into rounds.txt, or a note saying why it does not run.
plan_binaries() {
  local name backend built cases on asked line lines=() listed=()
  if head -n 1 "$BUILD_DIR/bin/manifest.txt" | grep -q 'single-file build'; then
    notes+=("build: single-file build (no cmake on this node): each reproducer built from scripts/amalgamate's file with its compiler")
  fi
  checked=()
  : >"$out/rounds.txt"  # the plan: "k round binary devices cases sharing" a launch, appended to by the planner
  ring=()
  [ "$mode" = ring ] && ring=(--ring)
  asked=("${ring[@]+"${ring[@]}"}")
  [ "$mode" = list ] && asked=(--pairs "$pairs_arg")
  [ "$mesh" = 0 ] || asked+=(--mesh)
  mapfile -t lines < <(vmr_manifest)
  for line in "${lines[@]+"${lines[@]}"}"; do
    IFS=$'\t' read -r name _ built _ <<<"$line"
    [ "$built" != ok ] || [ ! -x "$BUILD_DIR/bin/$name" ] || listed+=("$name")
  done
  mkdir -p "$out/lists"
  in_group list_all "${listed[@]+"${listed[@]}"}" ||
    own_step_failed "$LINENO" "$(list_unwritten "${listed[@]+"${listed[@]}"}")"
  for line in "${lines[@]+"${lines[@]}"}"; do
    IFS=$'\t' read -r name backend built _ <<<"$line"
    if [ "$built" != ok ]; then
      notes+=("$backend: $name is not built here (its toolchain is missing: the configure lines say why)")
      continue
    fi
    if [ ! -x "$BUILD_DIR/bin/$name" ]; then  # (issue 34, item 5: not the toolchain's fault)
      notes+=("$backend: $name is missing from the build though its toolchain works (the build failed or stopped: see the BUILD problem)")
      continue
    fi
    checked+=(--binary "$BUILD_DIR/bin/$name")
    cases=()  # (a failed listing left none: the comparison names it, LIST:, from lists/<binary>.failed)
    [ ! -f "$out/lists/.$name.cases" ] || mapfile -t cases <"$out/lists/.$name.cases"
    rm -f "$out/lists/.$name.cases"
    if [ ${#cases[@]} -eq 0 ]; then
      notes+=("$backend: $name --list gave no case (does it start? try $BUILD_DIR/bin/$name --list)")
      continue
    fi
    on=()  # a host binary runs without devices, but for VMR_FAKE_GPUS
    [ "$backend" = host ] && [ -z "${VMR_FAKE_GPUS-}" ] || on=(--gpus "${gpus[$backend]}")
    plan_step --binary "$name" --backend "$backend" "${on[@]+"${on[@]}"}" --cases "$(IFS=+; echo "${cases[*]}")" \
      --list "$out/lists/$name.json" \
      "${asked[@]+"${asked[@]}"}"
  done
}
