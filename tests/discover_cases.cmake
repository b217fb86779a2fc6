# cmake/DiscoverCases.cmake end to end: a stand-in binary lists cases as --list --json does (a plain one, a WILL_FAIL
# one, a known-crash one, a node-dependent one with a name that holds a regex character, and one the table only
# skips), the script writes their CTest file, and a real ctest run of that file must pass, fail and skip exactly
# the runs the behaviour table below says: a WILL_FAIL case passes only on a VERDICT line of its own naming one of
# its expected verdicts (a PASS, a HARNESS, a usage exit fail it), the node-dependent case passes on any allowed
# VERDICT line but not on HARNESS, exit 77 skips everywhere, and the case's name in the VERDICT line must be its own.
#   -DDISCOVER=<cmake/DiscoverCases.cmake> -DWORK=<scratch folder>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/results)
set(fake ${WORK}/fake_repro)
# Answers --list --json FILE with the list; --case NAME prints "VERDICT: $FAKE_VERDICT <label> ok", the label
# being fake.NAME unless FAKE_LABEL says otherwise (no line at all for FAKE_VERDICT=NONE, as a usage error
# prints none), and exits with $FAKE_CODE.
file(WRITE ${fake} [=[#!/bin/sh
if [ "$1" = --list ]; then
  cat >"$3" <<'JSON'
{"schema":"vmem-repro-cases/1","binary":"fake","backend":"host","cases":[
 {"name":"plain","description":"d","has_rows":true,"known_crash":false,"selftest":false,"opt_in":false,
  "labels":["pow2"],"ctest_will_fail":false,"ctest_verdicts":[]},
 {"name":"hole","description":"d","has_rows":true,"known_crash":false,"selftest":false,"opt_in":false,
  "labels":[],"ctest_will_fail":true,"ctest_verdicts":["FAIL"]},
 {"name":"node","description":"d","has_rows":true,"known_crash":true,"selftest":false,"opt_in":true,
  "labels":["iris#418","known-crash"],"ctest_will_fail":true,"ctest_verdicts":["CRASH","FAIL"]},
 {"name":"nodexatomics","description":"d","has_rows":true,"known_crash":false,"selftest":false,"opt_in":false,
  "labels":[],"ctest_will_fail":false,"ctest_verdicts":["FAIL","PASS"]},
 {"name":"skiponly","description":"d","has_rows":true,"known_crash":false,"selftest":false,"opt_in":false,
  "labels":[],"ctest_will_fail":true,"ctest_verdicts":[]}]}
JSON
  exit 0
fi
echo "env: something"
[ "$FAKE_VERDICT" = NONE ] || echo "VERDICT: $FAKE_VERDICT ${FAKE_LABEL:-fake.$2} ok"
exit "$FAKE_CODE"
]=])
file(CHMOD ${fake} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)

execute_process(COMMAND ${CMAKE_COMMAND} -DBINARY=${fake} -DLIST_JSON=${WORK}/fake.cases.json
                        -DTESTS_FILE=${WORK}/fake_tests.cmake -DRESULTS=${WORK}/results -P ${DISCOVER}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "DiscoverCases.cmake failed (${rc}): ${err}")
endif()
file(WRITE ${WORK}/CTestTestfile.cmake "include(${WORK}/fake_tests.cmake)\n")

# One ctest run of fake.<case> whose binary prints `verdict` (NONE: no VERDICT line) for `label` (- : its own) and
# exits `code`; CTest must report `want` (Passed, Failed or Skipped), and a failure must show the VERDICT line.
function(expect case verdict label code want)
  set(ENV{FAKE_VERDICT} "${verdict}")
  set(ENV{FAKE_CODE} "${code}")
  if(label STREQUAL "-")
    unset(ENV{FAKE_LABEL})
  else()
    set(ENV{FAKE_LABEL} "${label}")
  endif()
  execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --output-on-failure -R "^fake\\.${case}$" WORKING_DIRECTORY ${WORK}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(out MATCHES "Test +#[0-9]+: fake\\.${case} [.]+ *(\\*\\*\\*)?(Passed|Failed|Skipped)")
    set(got ${CMAKE_MATCH_2})
  else()
    message(FATAL_ERROR "fake.${case} printing '${verdict}' and exiting ${code}: ctest ran no such test:\n${out}")
  endif()
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "fake.${case} printing '${verdict}' for '${label}' and exiting ${code}: ctest says ${got}, "
                        "want ${want}:\n${out}")
  endif()
  if(want STREQUAL "Failed" AND NOT verdict STREQUAL "NONE" AND NOT out MATCHES "\nVERDICT: ${verdict} ")
    message(FATAL_ERROR "fake.${case}: a failure must show its VERDICT line:\n${out}")
  endif()
  if(case STREQUAL "node" AND verdict STREQUAL "PASS" AND label STREQUAL "-" AND
     NOT out MATCHES "Failed +Required regular expression found\\. Regex=\\[VERDICT: PASS fake\\\\\\.node \\]")
    message(FATAL_ERROR "fake.node: the reason CTest gives for a PASS must quote the PASS line:\n${out}")
  endif()
  message(STATUS "fake.${case}: '${verdict}' for '${label}', exit ${code}: ${got}")
endfunction()

# The behaviour table: case, VERDICT word printed, label printed, exit code, what ctest must say.
expect(plain PASS - 0 Passed)
expect(plain FAIL - 1 Failed)
expect(plain SKIP - 77 Skipped)
# WILL_FAIL (the unconditional row allows FAIL only): only its own FAIL line passes.
expect(hole FAIL - 1 Passed)
expect(hole PASS - 0 Failed)
expect(hole CRASH - 3 Failed)
expect(hole HARNESS - 99 Failed)
expect(hole NONE - 2 Failed)
expect(hole SKIP - 77 Skipped)
# known-crash (CRASH/FAIL/PASS): WILL_FAIL, so the PASS that flags a fix fails; a broken harness fails too.
expect(node CRASH - 3 Passed)
expect(node FAIL - 1 Passed)
expect(node PASS - 0 Failed)
expect(node SKIP - 77 Skipped)
expect(node HARNESS - 99 Failed)
expect(node HARNESS fake.- 99 Failed)  # the launcher's own HARNESS line names no case
expect(node NONE - 2 Failed)           # a usage error prints no VERDICT line
expect(node HANG - 4 Failed)           # a verdict the row does not allow
expect(node CRASH fake.nodexatomics 3 Failed)  # another case's line
expect(node CRASH fake_node 3 Failed)  # the '.' between binary and case is matched literally
# Node-dependent, nothing known to crash (FAIL/PASS): any allowed line passes, whatever the exit code.
expect(nodexatomics PASS - 0 Passed)
expect(nodexatomics FAIL - 1 Passed)
expect(nodexatomics HANG - 4 Failed)
expect(nodexatomics HARNESS - 99 Failed)
expect(nodexatomics PASS fake_nodexatomics 0 Failed)
# WILL_FAIL with no verdict to pass on (the row says SKIP only): it skips or fails.
expect(skiponly SKIP - 77 Skipped)
expect(skiponly PASS - 0 Failed)
expect(skiponly FAIL - 1 Failed)

# The properties as CTest reads them (`ctest --show-only=json-v1`), the way tests/known_crash_properties.cmake
# checks the real build's.
include(${CMAKE_CURRENT_LIST_DIR}/ctest_properties.cmake)
ctest_properties(${WORK} "^fake\\." _names)
ctest_property(_wf fake.node WILL_FAIL)
ctest_property(_fail fake.node FAIL_REGULAR_EXPRESSION)
ctest_property(_skip fake.node SKIP_RETURN_CODE)
ctest_property(_labels fake.node LABELS)
ctest_property(_pass fake.node PASS_REGULAR_EXPRESSION)
ctest_property(_plain_wf fake.plain WILL_FAIL)  # CTest leaves an unset WILL_FAIL out
if(NOT _wf STREQUAL "ON" OR NOT _fail STREQUAL "(^|\n)VERDICT: (CRASH|FAIL) fake\\.node " OR NOT _skip EQUAL 77 OR
   NOT _pass STREQUAL "VERDICT: PASS fake\\.node ;^" OR NOT _labels STREQUAL "host;iris#418;known-crash" OR
   _plain_wf)
  message(FATAL_ERROR "ctest --show-only=json-v1: fake.node WILL_FAIL '${_wf}', FAIL_REGULAR_EXPRESSION '${_fail}', "
                      "PASS_REGULAR_EXPRESSION '${_pass}', SKIP_RETURN_CODE '${_skip}', LABELS '${_labels}'; "
                      "fake.plain WILL_FAIL '${_plain_wf}'")
endif()

# The record path as the list gives it.
file(READ ${WORK}/fake_tests.cmake generated)
foreach(want "--json [==[${WORK}/results/fake.plain.json]==]")
  string(FIND "${generated}" "${want}" at)
  if(at LESS 0)
    message(FATAL_ERROR "the generated CTest file lacks '${want}':\n${generated}")
  endif()
endforeach()

# A binary that cannot list does not stop the build: it stands as one failing test that names the reason.
file(WRITE ${WORK}/broken_repro "#!/bin/sh\necho 'error while loading shared libraries: libamdhip64.so.7' >&2\nexit 127\n")
file(CHMOD ${WORK}/broken_repro PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
file(MAKE_DIRECTORY ${WORK}/broken)
execute_process(COMMAND ${CMAKE_COMMAND} -DBINARY=${WORK}/broken_repro -DLIST_JSON=${WORK}/broken/list.json
                        -DTESTS_FILE=${WORK}/broken/tests.cmake -DRESULTS=${WORK}/results -P ${DISCOVER}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err MATCHES "no CTest cases registered")
  message(FATAL_ERROR "a binary that cannot list: DiscoverCases.cmake exited ${rc} (want 0 and a warning): ${err}")
endif()
file(WRITE ${WORK}/broken/CTestTestfile.cmake "include(${WORK}/broken/tests.cmake)\n")
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --output-on-failure WORKING_DIRECTORY ${WORK}/broken
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0 OR NOT out MATCHES "broken_repro.DISCOVERY_FAILED" OR NOT out MATCHES "libamdhip64.so.7")
  message(FATAL_ERROR "a binary that cannot list must stand as a failing test naming why (ctest exit ${rc}):\n${out}")
endif()
message(STATUS "a binary that cannot list: one failing DISCOVERY_FAILED test naming the reason")

# Listed the one way (scripts/lib/case_list.sh): a binary that hangs while listing is killed at the lister's limit
# (VMR_LIST_TIMEOUT_S, the tests' hook) and one killed by a signal after writing its list is not taken as listed;
# each stands as one failing test whose one line is the lister's, naming the binary.
file(WRITE ${WORK}/hanging_repro "#!/bin/sh\nexec sleep 30\n")
file(WRITE ${WORK}/crashing_repro "#!/bin/sh\ncp '${WORK}/fake.cases.json' \"$3\"\nkill -SEGV $$\n")
foreach(_case "hanging_repro;did not finish in 1 s: killed" "crashing_repro;was killed by signal 11")
  list(GET _case 0 _bin)
  list(GET _case 1 _why)
  file(CHMOD ${WORK}/${_bin} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  file(MAKE_DIRECTORY ${WORK}/${_bin}.d)
  string(TIMESTAMP _start "%s")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env VMR_LIST_TIMEOUT_S=1
                          ${CMAKE_COMMAND} -DBINARY=${WORK}/${_bin} -DLIST_JSON=${WORK}/${_bin}.d/list.json
                          -DTESTS_FILE=${WORK}/${_bin}.d/tests.cmake -DRESULTS=${WORK}/results -P ${DISCOVER}
                  RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 20)
  string(TIMESTAMP _end "%s")
  math(EXPR _took "${_end} - ${_start}")
  if(NOT rc EQUAL 0 OR _took GREATER 12)
    message(FATAL_ERROR "${_bin}: DiscoverCases.cmake exited '${rc}' after ${_took} s (want 0, within the limit): ${err}")
  endif()
  file(WRITE ${WORK}/${_bin}.d/CTestTestfile.cmake "include(${WORK}/${_bin}.d/tests.cmake)\n")
  execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --output-on-failure WORKING_DIRECTORY ${WORK}/${_bin}.d
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0 OR NOT out MATCHES "${_bin}.DISCOVERY_FAILED" OR NOT out MATCHES "/${_bin} --list --json ${_why}"
     OR EXISTS ${WORK}/${_bin}.d/list.json)
    message(FATAL_ERROR "${_bin}: want one failing DISCOVERY_FAILED test saying '${_why}', no list left:\n${out}")
  endif()
endforeach()
message(STATUS "a binary that hangs or crashes while listing: DISCOVERY_FAILED with the lister's one line")
