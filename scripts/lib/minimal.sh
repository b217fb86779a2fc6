# The minimal reproducers of repro/minimal/, read from their headers (the one source of what each stands for):
#   // suite case: <binary>.<case>     the case the file itself reproduces
#   // variant <NAME>: <binary>.<case> the case its build with -D<NAME> reproduces
#   // build: <one command>            run in the file's folder
#   // run:   ./<stem> [ARGS...]       a `[` after the program means it takes the GPUs, owner first
# CMake reads the same lines (repro/minimal/CMakeLists.txt). Sourced, not run; needs VMR_ROOT.

vmr_minimal_files() {
  local f
  for f in "$VMR_ROOT"/repro/minimal/*.cpp "$VMR_ROOT"/repro/minimal/*.hip "$VMR_ROOT"/repro/minimal/*.cu; do
    [ -f "$f" ] && echo "$f"
  done
}

# Lines that are neither blank nor comments: what the 150-line budget counts.
vmr_minimal_code_lines() { grep -cv -e '^[[:space:]]*$' -e '^[[:space:]]*//' "$1"; }

# The minimal file of BINARY.CASE and the define that makes it that case ("-" for the file as it is), tab-separated;
# nothing (and status 1) when no file names the case. BINARY.CASE is compared as text, never made into a program:
# bug-report passes it from a record, and in a sed script a name such as "x|cmd|e" ran cmd (GNU sed's e flag).
vmr_minimal_of() {
  local want=$1 f variant
  while read -r f; do
    if grep -qxF "// suite case: $want" "$f"; then
      printf '%s\t-\n' "$f"
      return 0
    fi
    variant=$(want=$want awk 'index($0, "// variant ") == 1 {
        rest = substr($0, 12); at = index(rest, ": ")
        if (at && substr(rest, at + 2) == ENVIRON["want"] && substr(rest, 1, at - 1) ~ /^[A-Z_]*$/) { print substr(rest, 1, at - 1); exit }
      }' "$f")
    if [ -n "$variant" ]; then
      printf '%s\t%s\n' "$f" "$variant"
      return 0
    fi
  done < <(vmr_minimal_files)
  return 1
}

# FILE's build line, with -DDEFINE after the compiler for a variant.
vmr_minimal_build_line() {
  local build
  build=$(sed -n 's|^// build: *||p' "$1" | head -n 1)
  if [ "$2" != - ]; then build="${build%% *} -D$2 ${build#* }"; fi
  printf '%s\n' "$build"
}

# FILE's run line for DEVICES ("0,1", or "-" for none): the program, then the GPUs where its header takes them.
vmr_minimal_run_line() {
  local run program
  run=$(sed -n 's|^// run: *||p' "$1" | head -n 1)
  program=${run%% *}
  if [ "$2" != - ] && [[ "$run" == *"["* ]]; then
    printf '%s %s\n' "$program" "${2//,/ }"
  else
    printf '%s\n' "$program"
  fi
}

# The CMake target's program under $BUILD_DIR/bin/minimal for FILE and DEFINE.
vmr_minimal_program() {
  local stem
  stem=$(basename "$1")
  stem=${stem%.*}
  if [ "$2" = - ]; then echo "$BUILD_DIR/bin/minimal/min_$stem"; else echo "$BUILD_DIR/bin/minimal/min_${stem}_${2,,}"; fi
}

# A minimal file's exit code as the suite's verdict contract names it (124: `timeout` ended it, a minimal file having
# no deadline of its own). OUTPUT, where given, tells the loader's 127 without libcuda.so.1 (no NVIDIA driver) as SKIP.
vmr_minimal_verdict() {
  case $1 in
    0) echo PASS ;; 1) echo FAIL ;; 2) echo USAGE ;; 3) echo CRASH ;; 4 | 124) echo HANG ;; 77) echo SKIP ;; 99) echo HARNESS ;;
    127) if grep -q 'libcuda.so.1: cannot open shared object file' <<<"${2-}"; then echo SKIP; else echo "exit-127"; fi ;;
    *) echo "exit-$1" ;;
  esac
}
