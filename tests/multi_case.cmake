# A run of several cases: each gets its own RESULT line and verdict, and the run's VERDICT line and exit code are
# the most severe of them (HANG over CRASH over FAIL over PASS), never PASS while a case failed.
execute_process(COMMAND ${BIN} --all --timeout 3 --json ${WORK}/all.json RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_QUIET)
foreach(want "\nRESULT: PASS repro_host_shm.read " "\nRESULT: PASS repro_host_shm.atomics "
             "\nRESULT: CRASH repro_host_shm.fault rank 1 " "\nRESULT: HANG repro_host_shm.hang deadline of 3 s"
             "\nRESULT: FAIL repro_host_shm.peer-exit rank 1 ")
  string(FIND "${out}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "--all lacks '${want}':\n${out}")
  endif()
endforeach()
set(last "VERDICT: HANG repro_host_shm.read+atomics+fault+hang+peer-exit PASS: read,atomics; FAIL: peer-exit; CRASH: fault; HANG: hang\n")
string(LENGTH "${last}" n)
string(LENGTH "${out}" total)
math(EXPR from "${total} - ${n}")
string(SUBSTRING "${out}" ${from} -1 tail)
if(NOT rc EQUAL 4 OR NOT tail STREQUAL last)
  message(FATAL_ERROR "--all: exit ${rc} (want 4) and last line '${tail}' (want '${last}')")
endif()
file(READ ${WORK}/all.json record)
string(JSON verdict GET "${record}" verdict)
string(JSON ncases LENGTH "${record}" cases)
if(NOT verdict STREQUAL "HANG" OR NOT ncases EQUAL 5)
  message(FATAL_ERROR "the --json record says ${verdict} with ${ncases} cases; want HANG with 5")
endif()
# read and atomics ran in one rank life (same pids); the crash ended it, and hang and peer-exit each got fresh ranks.
foreach(i 0 1 2 3 4)
  string(JSON pid${i} GET "${record}" cases ${i} ranks 0 pid)
endforeach()
if(NOT pid0 EQUAL pid1 OR NOT pid1 EQUAL pid2 OR pid3 EQUAL pid2 OR pid4 EQUAL pid3)
  message(FATAL_ERROR "rank 0's pids per case ${pid0} ${pid1} ${pid2} ${pid3} ${pid4}: want read, atomics, fault in one "
                      "life and hang, peer-exit each in fresh ranks")
endif()
# A rank that went on to the next case has no exit of its own for the case it passed: none is made up. The last case
# of a life (fault) has the real exit.
string(JSON went0 GET "${record}" cases 0 ranks 0 went_on)
string(JSON exit0 TYPE "${record}" cases 0 ranks 0 exit_code)
string(JSON went2 GET "${record}" cases 2 ranks 0 went_on)
string(JSON exit2 TYPE "${record}" cases 2 ranks 0 exit_code)
if(NOT went0 STREQUAL "ON" OR NOT exit0 STREQUAL "NULL" OR NOT went2 STREQUAL "OFF" OR NOT exit2 STREQUAL "NUMBER")
  message(FATAL_ERROR "read went on (${went0}, exit ${exit0}) and fault ended the life (${went2}, exit ${exit2}): "
                      "want ON/NULL and OFF/NUMBER")
endif()
# Each relaunch is announced once: after the crash, fresh ranks for hang and peer-exit; after the hang, for peer-exit.
string(REGEX MATCHALL "--- fresh ranks for the [0-9]+ case\\(s\\)" relaunches "${out}")
if(NOT relaunches STREQUAL "--- fresh ranks for the 2 case(s);--- fresh ranks for the 1 case(s)")
  message(FATAL_ERROR "--all announced its relaunches as '${relaunches}' (want each of the 2 once):\n${out}")
endif()
# Passing cases only: PASS, exit 0.
execute_process(COMMAND ${BIN} --case read --case atomics RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\nVERDICT: PASS repro_host_shm.read\\+atomics PASS: read,atomics\n$")
  message(FATAL_ERROR "read+atomics: exit ${rc}:\n${out}")
endif()
# A failure beside passes: FAIL, exit 1.
execute_process(COMMAND ${BIN} --case read --case peer-exit RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
if(NOT rc EQUAL 1 OR NOT out MATCHES "\nVERDICT: FAIL repro_host_shm.read\\+peer-exit PASS: read; FAIL: peer-exit\n$")
  message(FATAL_ERROR "read+peer-exit: exit ${rc}:\n${out}")
endif()
message("multi-case verdicts and exit codes as expected")
