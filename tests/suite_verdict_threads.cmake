# A suite problem never points to a runtime's regression thread: repro_host_shm run under a real `ulimit -n 12` (in
# the child shell only) ends HARNESS ("pipe2: Too many open files"), and check_expected, with a table whose read row
# names a thread, shows that row CHANGED but names no thread (console, verdicts Markdown). The same case's real FAIL
# (VMR_FORCE_FAIL) with the same table does name it: the link is there for what the node did.
#   -DCHECK=<check_expected> -DBIN=<repro_host_shm> -DTABLE=<expected/verdicts.md> -DWORK=<scratch folder>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/low-fd ${WORK}/fail)
file(READ ${TABLE} text)
set(row "| repro_host_shm | read | * | PASS | - |")
string(REPLACE "${row}" "| repro_host_shm | read | * | PASS | iris#418 |" threaded "${text}")
if(threaded STREQUAL text)
  message(FATAL_ERROR "the row '${row}' is not in ${TABLE}")
endif()
file(WRITE ${WORK}/verdicts.md "${threaded}")

execute_process(COMMAND sh -c "ulimit -n 12 && exec \"$0\" --case read --json \"$1\"" ${BIN}
                        ${WORK}/low-fd/repro_host_shm.json RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(NOT rc EQUAL 99 OR NOT EXISTS ${WORK}/low-fd/repro_host_shm.json)
  message(FATAL_ERROR "under ulimit -n 12 the run must be HARNESS (99) with its record; exit ${rc}:\n${log}")
endif()
execute_process(COMMAND ${CHECK} --table ${WORK}/verdicts.md --results ${WORK}/low-fd --markdown ${WORK}/low-fd.md
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ ${WORK}/low-fd.md md)
if(NOT rc EQUAL 1 OR NOT out MATCHES "\nrepro_host_shm\\.read [^\n]* PASS +HARNESS +CHANGED" OR out MATCHES "iris#418"
   OR md MATCHES "iris#418")
  message(FATAL_ERROR "a HARNESS row must be CHANGED and name no thread (exit ${rc}):\n${out}\n${err}\n${md}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env VMR_FORCE_FAIL=repro_host_shm.read ${BIN} --case read --json
                        ${WORK}/fail/repro_host_shm.json RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
execute_process(COMMAND ${CHECK} --table ${WORK}/verdicts.md --results ${WORK}/fail RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT out MATCHES "\n  repro_host_shm\\.read: FAIL \\(CHANGED\\) -> iris#418\n")
  message(FATAL_ERROR "the node's own FAIL must name the case's thread (exit ${rc}):\n${out}\n${err}")
endif()
