# A known-crash case under a real ctest, on a real reproducer: the host baseline built with tests/known_crash_table.md
# (read and fault are CRASH/FAIL/PASS there, as repro_hip_vmem_pinned.atomics is in the suite's table) lists its
# cases, cmake/DiscoverCases.cmake registers them, and ctest must fail the read that PASSes (showing its VERDICT
# line), pass the read VMR_FORCE_FAIL makes FAIL and the fault that CRASHes, and fail a HARNESS verdict (the fault
# under a file-size limit) and a usage exit, which WILL_FAIL alone would pass. (A SKIP, which the host baseline never
# gives, is the stand-in script's in discover_cases.cmake.)
#   -DBIN=<known_crash_standin> -DDISCOVER=<cmake/DiscoverCases.cmake> -DWORK=<scratch folder>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/results)
# CTest hands a test no CTEST_RESOURCE_GROUP_* of the caller's, and no environment breaks the host baseline's
# harness; a file-size limit does (its --json record cannot be written: HARNESS naming the case, exit 99). So the
# tests run the binary through this wrapper, which sets the limit STANDIN_FSIZE (in the shell's blocks of 512 or 1024 bytes;
# the record is about 2 KB) where given.
set(wrapper ${WORK}/standin.sh)
file(WRITE ${wrapper} "#!/bin/sh\n[ -z \"$STANDIN_FSIZE\" ] || ulimit -f \"$STANDIN_FSIZE\" || exit 98\nexec '${BIN}' \"$@\"\n")
file(CHMOD ${wrapper} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
execute_process(COMMAND ${CMAKE_COMMAND} -DBINARY=${wrapper} -DLIST_JSON=${WORK}/cases.json -DTESTS_FILE=${WORK}/tests.cmake
                        -DRESULTS=${WORK}/results -P ${DISCOVER}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR err MATCHES "no CTest cases registered")
  message(FATAL_ERROR "DiscoverCases.cmake over ${BIN} (exit ${rc}): ${err}")
endif()
file(WRITE ${WORK}/CTestTestfile.cmake "include(${WORK}/tests.cmake)\n")

# The properties CTest has for them: WILL_FAIL, passing only on the case's own CRASH or FAIL line.
cmake_policy(VERSION 3.21)  # if(... IN_LIST ...)
include(${CMAKE_CURRENT_LIST_DIR}/ctest_properties.cmake)
ctest_properties(${WORK} "^repro_host_shm\\." names)
foreach(c read fault)
  ctest_property(wf repro_host_shm.${c} WILL_FAIL)
  ctest_property(fail repro_host_shm.${c} FAIL_REGULAR_EXPRESSION)
  ctest_property(labels repro_host_shm.${c} LABELS)
  if(NOT wf STREQUAL "ON" OR NOT fail STREQUAL "(^|\n)VERDICT: (CRASH|FAIL) repro_host_shm\\.${c} " OR
     NOT "known-crash" IN_LIST labels)
    message(FATAL_ERROR "repro_host_shm.${c}: WILL_FAIL '${wf}', FAIL_REGULAR_EXPRESSION '${fail}', LABELS "
                        "'${labels}' (want ON, its CRASH|FAIL line, known-crash)")
  endif()
endforeach()
ctest_property(wf repro_host_shm.atomics WILL_FAIL)  # no row in the test table: a plain test
if(wf)
  message(FATAL_ERROR "repro_host_shm.atomics has no row here, yet WILL_FAIL is '${wf}'")
endif()

# One ctest run of repro_host_shm.<case> with the environment `env` (NAME=VALUE;...): CTest must say `want`, and
# the output must match each regex of the list `lines`.
function(expect label case env want lines)
  set(saved)
  foreach(kv IN LISTS env)
    string(REGEX MATCH "^[^=]+" k "${kv}")
    string(LENGTH "${k}=" skip)
    string(SUBSTRING "${kv}" ${skip} -1 v)
    set(ENV{${k}} "${v}")
  endforeach()
  execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --output-on-failure -R "^repro_host_shm\\.${case}$"
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  foreach(kv IN LISTS env)
    string(REGEX MATCH "^[^=]+" k "${kv}")
    unset(ENV{${k}})
  endforeach()
  if(NOT out MATCHES "Test +#[0-9]+: repro_host_shm\\.${case} [.]+ *(\\*\\*\\*)?(Passed|Failed|Skipped)")
    message(FATAL_ERROR "${label}: ctest ran no repro_host_shm.${case}:\n${out}")
  endif()
  if(NOT CMAKE_MATCH_2 STREQUAL want)
    message(FATAL_ERROR "${label}: ctest says ${CMAKE_MATCH_2}, want ${want}:\n${out}")
  endif()
  foreach(line IN LISTS lines)
    if(NOT out MATCHES "${line}")
      message(FATAL_ERROR "${label}: the output lacks '${line}':\n${out}")
    endif()
  endforeach()
  message(STATUS "${label}: ${want}")
endfunction()

expect("a known-crash case that PASSes" read "" Failed
       "\nVERDICT: PASS repro_host_shm\\.read ;Failed +Required regular expression found\\. Regex=\\[VERDICT: PASS")
expect("one that FAILs" read "VMR_FORCE_FAIL=repro_host_shm.read" Passed "")
expect("one that CRASHes" fault "" Passed "")
# The crash reproduced, but the harness could not write its record: WILL_FAIL alone would pass that exit 99.
expect("a HARNESS verdict" fault "STANDIN_FSIZE=1" Failed "\nVERDICT: HARNESS repro_host_shm\\.fault ")
# --json into a folder that is not there: the binary's usage error (exit 2, no VERDICT line).
file(REMOVE_RECURSE ${WORK}/results)
expect("a usage error" read "" Failed "--json: .* is in no existing folder")
