# cmake/DiscoverCases.cmake end to end: a stand-in binary lists four cases as --list --json does (a plain one, a
# WILL_FAIL one, a node-dependent one, and a name with a regex character), the script writes their CTest file, and a
# real ctest run of that file must pass and fail exactly the runs the properties say: WILL_FAIL passes a FAIL, the
# node-dependent case passes on CRASH and on PASS but not on HARNESS, exit 77 skips, and the case's name in the
# VERDICT line must be its own.
#   -DDISCOVER=<cmake/DiscoverCases.cmake> -DWORK=<scratch folder>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/results)
set(fake ${WORK}/fake_repro)
# Answers --list --json FILE with the list; --case NAME prints the VERDICT line and exits with the code that
# FAKE_<name> in its environment names (verdict word and exit code).
file(WRITE ${fake} [=[#!/bin/sh
if [ "$1" = --list ]; then
  cat >"$3" <<'JSON'
{"schema":"vmem-repro-cases/1","binary":"fake","backend":"host","cases":[
 {"name":"plain","description":"d","has_rows":true,"known_crash":false,"selftest":false,"opt_in":false,
  "labels":["pow2"],"ctest_will_fail":false,"ctest_verdicts":[]},
 {"name":"hole","description":"d","has_rows":true,"known_crash":false,"selftest":false,"opt_in":false,
  "labels":[],"ctest_will_fail":true,"ctest_verdicts":[]},
 {"name":"node","description":"d","has_rows":true,"known_crash":true,"selftest":false,"opt_in":true,
  "labels":["iris#418","known-crash"],"ctest_will_fail":false,"ctest_verdicts":["CRASH","FAIL","PASS"]},
 {"name":"nodexatomics","description":"d","has_rows":true,"known_crash":false,"selftest":false,"opt_in":false,
  "labels":[],"ctest_will_fail":false,"ctest_verdicts":["FAIL","PASS"]}]}
JSON
  exit 0
fi
case "$2" in
  plain) v=$FAKE_plain ;; hole) v=$FAKE_hole ;; node) v=$FAKE_node ;; *) v=$FAKE_other ;;
esac
echo "env: something"
echo "VERDICT: ${v% *} $VERDICT_NAME ok"
exit "${v#* }"
]=])
file(CHMOD ${fake} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)

execute_process(COMMAND ${CMAKE_COMMAND} -DBINARY=${fake} -DLIST_JSON=${WORK}/fake.cases.json
                        -DTESTS_FILE=${WORK}/fake_tests.cmake -DRESULTS=${WORK}/results -P ${DISCOVER}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "DiscoverCases.cmake failed (${rc}): ${err}")
endif()
file(WRITE ${WORK}/CTestTestfile.cmake "include(${WORK}/fake_tests.cmake)\n")

# One ctest run per scenario: "name=VERDICT code" for each case, and which tests must fail.
function(scenario label plain hole node other expect_failed)
  # The fake prints the VERDICT line with the name CTest's regex expects, except where a scenario says otherwise.
  set(ENV{FAKE_plain} "${plain}")
  set(ENV{FAKE_hole} "${hole}")
  set(ENV{FAKE_node} "${node}")
  set(ENV{FAKE_other} "${other}")
  set(failed)
  foreach(c plain hole node nodexatomics)
    set(ENV{VERDICT_NAME} "fake.${c}")
    if(c STREQUAL "nodexatomics" AND DEFINED ENV{WRONG_NAME})
      set(ENV{VERDICT_NAME} "fake_nodexatomics")
    endif()
    execute_process(COMMAND ${CMAKE_CTEST_COMMAND} -R "^fake\\.${c}$" WORKING_DIRECTORY ${WORK}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT out MATCHES "tests passed")
      message(FATAL_ERROR "${label}: ctest ran no fake.${c}:\n${out}")
    endif()
    if(NOT rc EQUAL 0)
      list(APPEND failed ${c})
    endif()
  endforeach()
  if(NOT "${failed}" STREQUAL "${expect_failed}")
    message(FATAL_ERROR "${label}: failed tests '${failed}', expected '${expect_failed}'")
  endif()
  message(STATUS "${label}: failed '${failed}' as expected")
endfunction()

scenario("as the table says" "PASS 0" "FAIL 1" "CRASH 3" "FAIL 1" "")
scenario("node-dependent PASS" "PASS 0" "FAIL 1" "PASS 0" "PASS 0" "")
scenario("skips" "SKIP 77" "SKIP 77" "SKIP 77" "SKIP 77" "")
scenario("changed" "FAIL 1" "PASS 0" "HARNESS 99" "HANG 4" "plain;hole;node;nodexatomics")
set(ENV{WRONG_NAME} 1)
# "fake_nodexatomics" is not fake.nodexatomics: the '.' between binary and case is matched literally.
scenario("another case's line" "PASS 0" "FAIL 1" "CRASH 3" "PASS 0" "nodexatomics")

# The labels, the record path and the skip code as the list gives them.
file(READ ${WORK}/fake_tests.cmake generated)
foreach(want "LABELS [==[host;pow2]==]" "LABELS [==[host;iris#418;known-crash]==]" "SKIP_RETURN_CODE 77"
        "--json [==[${WORK}/results/fake.plain.json]==]")
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
