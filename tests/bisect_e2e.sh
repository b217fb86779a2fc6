#!/usr/bin/env bash
# scripts/bisect through a real `git bisect run`, on the CPU: a small git history stands for a runtime's, each commit
# saying what "the runtime" answers (VMR_FORCE_FAIL makes repro_host_shm.read FAIL from the planted first bad
# commit, the fifth, on) and whether it builds (the 2nd, 3rd, 6th and 7th do not: skipped, 125). git bisect must
# name the planted commit, through the skips; a
# case the binary lacks must stop the bisect (128), not be taken for good or bad.
#   usage: bisect_e2e.sh REPO BUILD_DIR WORK_DIR
set -uo pipefail
repo=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work/history" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work/history" || exit 1
git init -q . && git config user.email bisect@example.invalid && git config user.name bisect || fail "git init"
for i in 1 2 3 4 5 6 7 8; do
  if [ $i -ge 5 ]; then echo "export VMR_FORCE_FAIL=repro_host_shm.read" >runtime.env; else echo ": good" >runtime.env; fi
  case $i in 2 | 3 | 6 | 7) echo "exit 1" >build.sh ;; *) echo "exit 0" >build.sh ;; esac
  echo "$i" >step && git add runtime.env build.sh step && git commit -qm "runtime step $i" || fail "commit $i"
done
first_bad=$(git rev-parse HEAD~3)
step="set -a; . ./runtime.env; set +a; exec '$repo/scripts/bisect' --build 'bash build.sh' repro_host_shm.read"
git bisect start HEAD HEAD~7 >/dev/null || fail "git bisect start"
BUILD_DIR=$build RESULTS_ROOT=$work/steps git bisect run bash -c "$step" >"$work/bisect.out" 2>&1
rc=$?
git bisect reset >/dev/null 2>&1
grep -q "^$first_bad is the first bad commit" "$work/bisect.out" ||
  { tail -n 20 "$work/bisect.out"; fail "git bisect run (exit $rc) did not name the planted first bad commit $first_bad"; }
steps=$(ls "$work/steps" | wc -l)
grep -q '^bisect: bad ' "$work/bisect.out" && grep -q '^bisect: good ' "$work/bisect.out" &&
  grep -q '^bisect: skip (the build failed: bash build.sh)' "$work/bisect.out" ||
  fail "the steps' last lines do not say good, bad and skip (a broken build)"
echo "git bisect run: first bad commit $first_bad found in $steps judged step(s)"

# A case the binary does not have stops the bisect at the first step: exit 128, which git bisect run refuses to read
# as good or bad.
git bisect start HEAD HEAD~7 >/dev/null || fail "git bisect start (2)"
BUILD_DIR=$build RESULTS_ROOT=$work/steps2 git bisect run "$repo/scripts/bisect" repro_host_shm.no-such-case \
  >"$work/bisect2.out" 2>&1
rc=$?
git bisect reset >/dev/null 2>&1
[ $rc != 0 ] && grep -q "repro_host_shm has no case no-such-case" "$work/bisect2.out" &&
  ! grep -q "is the first bad commit" "$work/bisect2.out" ||
  { tail -n 8 "$work/bisect2.out"; fail "an unknown case did not stop the bisect (exit $rc)"; }
echo "an unknown case stops git bisect run (exit $rc)"

# A step whose run leaves no record is skipped, even in a RESULTS_DIR where an earlier step left one (never judged
# again): the second step's binary lists its cases but writes no record.
cd "$work" || exit 1
BUILD_DIR=$build RESULTS_DIR=$work/same "$repo/scripts/bisect" repro_host_shm.read >"$work/same1.out" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$work/same1.out"; fail "a passing step in RESULTS_DIR: exit $rc, want 0"; }
mkdir -p "$work/norecord/bin"
for f in "$build/bin"/*; do ln -s "$f" "$work/norecord/bin/"; done
rm "$work/norecord/bin/repro_host_shm"
cat >"$work/norecord/bin/repro_host_shm" <<NORECORD
#!/usr/bin/env bash
[ "\${1-}" != --list ] || exec "$build/bin/repro_host_shm" "\$@"
echo "VERDICT: HARNESS repro_host_shm.read a run that writes no record"
exit 99
NORECORD
chmod +x "$work/norecord/bin/repro_host_shm"
BUILD_DIR=$work/norecord RESULTS_DIR=$work/same "$repo/scripts/bisect" repro_host_shm.read >"$work/same2.out" 2>&1
rc=$?
[ $rc = 125 ] && grep -q '^skip repro_host_shm.read: no record of it in ' "$work/same2.out" ||
  { cat "$work/same2.out"; fail "a step that left no record beside an earlier step's: exit $rc, want 125"; }
echo "a step without a record is skipped, even where an earlier step left one"

# Listing goes the one way CMake's discovery lists (scripts/lib/case_list.sh). A stand-in repro_host_shm that, as a
# HIP binary whose runtime starts at load can, hangs on --list unless HIP_ENABLE_DEFERRED_LOADING=1, and with
# VMR_STANDIN_LIBRARY=broken does not start at all, as the loader answers for a library that does not load.
mkdir -p "$work/loader/bin"
for f in "$build/bin"/*; do ln -s "$f" "$work/loader/bin/"; done
rm "$work/loader/bin/repro_host_shm"
cat >"$work/loader/bin/repro_host_shm" <<LOADER
#!/usr/bin/env bash
[ "\${VMR_STANDIN_LIBRARY-}" != hangs ] || exec sleep 30
if [ "\${VMR_STANDIN_LIBRARY-}" = broken ]; then
  echo "repro_host_shm: error while loading shared libraries: libamdhip64.so.6: cannot open shared object file" >&2
  exit 127
fi
[ "\${1-}" != --list ] || [ "\${HIP_ENABLE_DEFERRED_LOADING-}" = 1 ] || exec sleep 300
exec "$build/bin/repro_host_shm" "\$@"
LOADER
chmod +x "$work/loader/bin/repro_host_shm"
# HIP_ENABLE_DEFERRED_LOADING=0 in the user's environment: the step lists as CMake does, and judges.
HIP_ENABLE_DEFERRED_LOADING=0 BUILD_DIR=$work/loader RESULTS_DIR=$work/eager timeout 60 "$repo/scripts/bisect" \
  repro_host_shm.read >"$work/eager.out" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$work/eager.out"; fail "HIP_ENABLE_DEFERRED_LOADING=0: exit $rc, want 0 (listed with deferred loading)"; }
# A commit whose library does not load: skipped (125), never the stop (128) of a broken suite.
VMR_STANDIN_LIBRARY=broken BUILD_DIR=$work/loader RESULTS_DIR=$work/broken "$repo/scripts/bisect" \
  repro_host_shm.read >"$work/broken.out" 2>&1
rc=$?
[ $rc = 125 ] && tail -n 1 "$work/broken.out" | grep -q '^bisect: skip (repro_host_shm did not start with this runtime: --list exited 127: .*error while loading shared libraries' ||
  { cat "$work/broken.out"; fail "a library that does not load: exit $rc, want 125 (skip) saying why"; }
# A binary that hangs while it loads does not hang the step: the listing's time limit (VMR_LIST_TIMEOUT_S, the
# tests' hook) kills it, and the step is skipped saying so in one line.
start=$(date +%s)
VMR_LIST_TIMEOUT_S=1 VMR_STANDIN_LIBRARY=hangs BUILD_DIR=$work/loader RESULTS_DIR=$work/hangs timeout 30 \
  "$repo/scripts/bisect" repro_host_shm.read >"$work/hangs.out" 2>&1
rc=$?
[ $rc = 125 ] && [ $(($(date +%s) - start)) -lt 15 ] &&
  tail -n 1 "$work/hangs.out" | grep -q '^bisect: skip (repro_host_shm did not start with this runtime: --list exited 124: .*repro_host_shm --list --json did not finish in 1 s: killed)$' ||
  { cat "$work/hangs.out"; fail "a listing that hangs: exit $rc after $(($(date +%s) - start)) s, want 125 (skip) saying why"; }
echo "listing: deferred loading, a time limit, and a library that does not load skips the commit"

# A runtime whose library loads but lacks a function the case calls (a CLR commit built against a newer ROCr than the
# installed one): the loader ends the rank at that first call (exit 127, "symbol lookup error"), which the harness
# calls FAIL (a rank that left mid-protocol); the step skips the commit (125), in either meaning of good, never bad.
# The stand-in: a preloaded memfd_create (only repro_host_shm's ranks call it, never its listing) calling a function
# no library defines, bound lazily.
cat >"$work/missing.cpp" <<'CPP'
extern "C" int vmr_function_no_library_has(void);
extern "C" int memfd_create(const char*, unsigned) { return vmr_function_no_library_has(); }
CPP
"${CXX:-c++}" -shared -fPIC -Wl,-z,lazy -o "$work/libmissing.so" "$work/missing.cpp" || fail "cannot build the stand-in library"
for good in pass expected; do
  LD_PRELOAD=$work/libmissing.so BUILD_DIR=$build RESULTS_DIR=$work/missing-$good "$repo/scripts/bisect" --good $good \
    repro_host_shm.read >"$work/missing.out" 2>&1
  rc=$?
  [ $rc = 125 ] && grep -q '^skip repro_host_shm.read: a rank could not start this runtime (exit 127, the loader.s): FAIL: .*symbol lookup error' "$work/missing.out" ||
    { cat "$work/missing.out"; fail "--good $good, a rank the loader ended: exit $rc, want 125 (skip) saying why"; }
done
echo "a rank the loader ended (a runtime function missing) skips the commit"

# --lib: an AMD run counts only where its ranks loaded the runtime from the folders named. A stand-in repro_host_shm
# runs the real one, then makes its record an AMD one (backend hip) whose ranks name the folder the loader would have
# taken the HIP library from: the first LD_LIBRARY_PATH folder holding libamdhip64.so.7, else /opt/rocm's. A --lib
# folder without the library (a CLR build that made none) leaves another runtime to run: skipped (125), never judged,
# even where that runtime is the --rocm one.
mkdir -p "$work/amd/bin" "$work/clr/lib" "$work/nolib" "$work/rocm/lib" "$work/rocm-bare/include"
: >"$work/rocm/lib/libamdhip64.so.7"
for f in "$build/bin"/*; do ln -s "$f" "$work/amd/bin/"; done
rm "$work/amd/bin/repro_host_shm"
: >"$work/clr/lib/libamdhip64.so.7"
cat >"$work/amd/bin/repro_host_shm" <<AMD
#!/usr/bin/env bash
json=
prev=; for a in "\$@"; do [ "\$prev" != --json ] || json=\$a; prev=\$a; done
[ "\${1-}" != --list ] || exec "$build/bin/repro_host_shm" "\$@"
"$build/bin/repro_host_shm" "\$@"; rc=\$?
python3 - "\$json" <<'PY' || exit 99
import json, os, sys
folder = "/opt/rocm/lib"
for d in filter(None, os.environ.get("LD_LIBRARY_PATH", "").split(":")):
    if os.path.exists(os.path.join(d, "libamdhip64.so.7")):
        folder = os.path.realpath(d)
        break
record = json.load(open(sys.argv[1]))
record["backend"] = "hip"
for c in record["cases"]:
    for r in c["ranks"]:
        r["info"]["hip_runtime_folder"] = folder
json.dump(record, open(sys.argv[1], "w"))
PY
exit \$rc
AMD
chmod +x "$work/amd/bin/repro_host_shm"
ln -s clr/lib "$work/clr-link"  # (a folder named through a link: the ranks name real paths)
BUILD_DIR=$work/amd RESULTS_DIR=$work/amd-ours "$repo/scripts/bisect" --good pass --lib "$work/clr-link" \
  repro_host_shm.read >"$work/amd-ours.out" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$work/amd-ours.out"; fail "--lib with the HIP library the ranks loaded: exit $rc, want 0 (good)"; }
BUILD_DIR=$work/amd RESULTS_DIR=$work/amd-other "$repo/scripts/bisect" --good pass --lib "$work/nolib" \
  repro_host_shm.read >"$work/amd-other.out" 2>&1
rc=$?
[ $rc = 125 ] && grep -qF "skip repro_host_shm.read: rank 0 loaded HIP from /opt/rocm/lib, none a runtime folder ($(realpath "$work/nolib")): another runtime ran" "$work/amd-other.out" ||
  { cat "$work/amd-other.out"; fail "--lib without the library, the system's HIP loaded: exit $rc, want 125 naming it"; }
BUILD_DIR=$work/amd RESULTS_DIR=$work/amd-rocm "$repo/scripts/bisect" --good pass --rocm "$work/rocm" \
  --lib "$work/nolib" repro_host_shm.read >"$work/amd-rocm.out" 2>&1
rc=$?
[ $rc = 125 ] && grep -qF "rank 0 loaded HIP from $(realpath "$work/rocm/lib"), none a runtime folder" "$work/amd-rocm.out" ||
  { cat "$work/amd-rocm.out"; fail "--rocm and a --lib without the library: exit $rc, want 125 (the --rocm HIP ran)"; }
BUILD_DIR=$work/amd RESULTS_DIR=$work/amd-rocm-only "$repo/scripts/bisect" --good pass --rocm "$work/rocm" \
  repro_host_shm.read >"$work/amd-rocm-only.out" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$work/amd-rocm-only.out"; fail "--rocm alone, its HIP loaded: exit $rc, want 0"; }
bad_option() {  # WANT OPTION VALUE: the step stops (128) before anything runs, saying WANT
  BUILD_DIR=$work/amd RESULTS_DIR=$work/amd-bad "$repo/scripts/bisect" "$2" "$3" repro_host_shm.read >"$work/amd-bad.out" 2>&1
  local rc=$?
  [ $rc = 128 ] && grep -qF -- "$1" "$work/amd-bad.out" || { cat "$work/amd-bad.out"; fail "$2 $3: exit $rc, want 128"; }
}
bad_option "has no lib or lib64 folder: not an installed ROCm" --rocm "$work/rocm-bare"
bad_option "the loader splits LD_LIBRARY_PATH at each ':' and ';'" --lib "$work/clr/lib:$work/nolib"
mkdir -p "$work/semi;colon/lib" "$work/rocm:colon/lib" && : >"$work/afile"
bad_option "the loader splits LD_LIBRARY_PATH at each ':' and ';'" --lib "$work/semi;colon/lib"
bad_option "the loader splits LD_LIBRARY_PATH at each ':' and ';'" --rocm "$work/rocm:colon"
# A --lib naming a file stops even with a --build (which makes folders, never turns a file into one).
BUILD_DIR=$work/amd RESULTS_DIR=$work/amd-file "$repo/scripts/bisect" --lib "$work/afile" --build true \
  repro_host_shm.read >"$work/amd-file.out" 2>&1
rc=$?
[ $rc = 128 ] && tail -n 1 "$work/amd-file.out" | grep -qF -- "--lib $work/afile is not a folder" ||
  { cat "$work/amd-file.out"; fail "--lib naming a file, with --build: exit $rc, want 128"; }
# A --lib folder the commit's build makes is taken; one it does not make skips that commit.
BUILD_DIR=$work/amd RESULTS_DIR=$work/amd-made "$repo/scripts/bisect" --good pass --lib "$work/made/lib" \
  --build "mkdir -p '$work/made/lib' && : >'$work/made/lib/libamdhip64.so.7'" repro_host_shm.read >"$work/amd-made.out" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$work/amd-made.out"; fail "--lib made by --build: exit $rc, want 0"; }
BUILD_DIR=$work/amd RESULTS_DIR=$work/amd-unmade "$repo/scripts/bisect" --good pass --lib "$work/never/lib" --build true \
  repro_host_shm.read >"$work/amd-unmade.out" 2>&1
rc=$?
[ $rc = 125 ] && tail -n 1 "$work/amd-unmade.out" | grep -qF "bisect: skip (--lib $work/never/lib is not a folder after the build" ||
  { cat "$work/amd-unmade.out"; fail "--lib the build did not make: exit $rc, want 125"; }
BUILD_DIR=$work/amd RESULTS_DIR=$work/amd-typo "$repo/scripts/bisect" --good pass --lib "$work/never/lib" \
  repro_host_shm.read >"$work/amd-typo.out" 2>&1
rc=$?
[ $rc = 128 ] && grep -qF -- "--lib $work/never/lib is not a folder (and no --build would make it)" "$work/amd-typo.out" ||
  { cat "$work/amd-typo.out"; fail "--lib missing, no --build: exit $rc, want 128"; }
# A suite binary with an RPATH (searched before LD_LIBRARY_PATH) whose folder holds HIP stops a bisect with --lib: the
# runtime under test could never load; an RPATH folder without HIP or ROCr (a toolchain's) is harmless, and without
# --lib nothing is checked. The stand-ins: ELFs linked with an RPATH that exec the real binary.
rpath_standin() {  # FOLDER RPATH: a build folder whose repro_host_shm carries RPATH
  mkdir -p "$1/bin"
  for f in "$build/bin"/*; do ln -s "$f" "$1/bin/"; done
  rm "$1/bin/repro_host_shm"
  printf '#include <unistd.h>\nint main(int, char** argv) { execv(REAL, argv); return 127; }\n' >"$work/rpath.cpp"
  "${CXX:-c++}" -DREAL="\"$build/bin/repro_host_shm\"" -Wl,--disable-new-dtags,-rpath,"$2" \
    -o "$1/bin/repro_host_shm" "$work/rpath.cpp" || fail "cannot build the RPATH stand-in"
}
rpath_standin "$work/rpath" "$work/rocm/lib"
BUILD_DIR=$work/rpath RESULTS_DIR=$work/rpath-lib "$repo/scripts/bisect" --lib "$work/clr/lib" repro_host_shm.read \
  >"$work/rpath-lib.out" 2>&1
rc=$?
[ $rc = 128 ] && grep -qF "repro_host_shm carries an RPATH ($work/rocm/lib) whose $work/rocm/lib holds HIP or ROCr" "$work/rpath-lib.out" ||
  { cat "$work/rpath-lib.out"; fail "a suite binary whose RPATH holds HIP, with --lib: exit $rc, want 128 naming it"; }
BUILD_DIR=$work/rpath RESULTS_DIR=$work/rpath-none "$repo/scripts/bisect" repro_host_shm.read >"$work/rpath-none.out" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$work/rpath-none.out"; fail "a suite binary with an RPATH, no --lib: exit $rc, want 0"; }
rpath_standin "$work/rpath-tool" /opt/vmr-toolchain/lib
BUILD_DIR=$work/rpath-tool RESULTS_DIR=$work/rpath-tool-lib "$repo/scripts/bisect" --lib "$work/clr/lib" \
  repro_host_shm.read >"$work/rpath-tool.out" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$work/rpath-tool.out"; fail "an RPATH folder without HIP or ROCr, with --lib: exit $rc, want 0"; }
# --help left in a step's command line while a bisect is in progress stops it (its 0 would read as good); outside
# one it is the usage, exit 0 (script_help).
(cd "$work/history" && git bisect start HEAD HEAD~7 >/dev/null && "$repo/scripts/bisect" --help >"$work/help.out" 2>&1
 rc=$?; git bisect reset >/dev/null 2>&1; exit $rc)
rc=$?
[ $rc = 128 ] && grep -qF -- "--help stops a git bisect in progress" "$work/help.out" ||
  { cat "$work/help.out"; fail "--help during a bisect: exit $rc, want 128"; }
echo "--lib: an AMD run of another runtime is skipped; a folder --build makes is taken, one never made skips or stops;"
echo "  a suite binary with an RPATH stops a bisect with --lib"
