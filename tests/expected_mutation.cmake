# Proves that expected_verdicts can fail, in every direction: each mutation changes one host row in a copy of the
# table (PASS to FAIL, CRASH to PASS, non-PASS to another non-PASS, a reason that does not match), and the checker
# must exit 1 with exactly one CHANGED, on that case. The unmutated table must give 0 CHANGED.
file(READ ${TABLE} text)
foreach(c read atomics fault hang peer-exit)
  if(NOT EXISTS ${RESULTS}/repro_host_shm.${c}.json)
    message(FATAL_ERROR "repro_host_shm.${c} left no record in ${RESULTS}: the case tests must run first")
  endif()
endforeach()

function(check table_text want_rc want_case)
  file(WRITE ${WORK}/verdicts.md "${table_text}")
  execute_process(COMMAND ${CHECK} --table ${WORK}/verdicts.md --results ${RESULTS} --binary ${BIN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL want_rc)
    message(FATAL_ERROR "check_expected exited ${rc}, want ${want_rc} (${want_case}):\n${out}")
  endif()
  if(want_case STREQUAL "")
    if(NOT out MATCHES "\n5 OK, 0 CHANGED, [0-9]+ not run, 0 table problems\n")
      message(FATAL_ERROR "the table as it is must give 5 OK, 0 CHANGED:\n${out}")
    endif()
    return()
  endif()
  if(NOT out MATCHES "\n4 OK, 1 CHANGED, [0-9]+ not run, 0 table problems\n")
    message(FATAL_ERROR "want exactly one CHANGED (${want_case}):\n${out}")
  endif()
  if(NOT out MATCHES "\nrepro_host_shm\\.${want_case} +- +[^\n]* CHANGED")
    message(FATAL_ERROR "the CHANGED row is not repro_host_shm.${want_case}:\n${out}")
  endif()
endfunction()

function(mutate from to want_case)
  string(REPLACE "${from}" "${to}" mutated "${text}")
  if(mutated STREQUAL text)
    message(FATAL_ERROR "the row text '${from}' is not in ${TABLE}")
  endif()
  check("${mutated}" 1 ${want_case})
  message("caught: '${from}' -> '${to}'")
endfunction()

check("${text}" 0 "")
mutate("| repro_host_shm | read | * | PASS |" "| repro_host_shm | read | * | FAIL |" read)
mutate("| repro_host_shm | fault | * | CRASH ~killed by SIGSEGV |" "| repro_host_shm | fault | * | PASS |" fault)
mutate("| repro_host_shm | fault | * | CRASH ~killed by SIGSEGV |" "| repro_host_shm | fault | * | FAIL ~killed by SIGSEGV |"
       fault)
mutate("| repro_host_shm | peer-exit | * | FAIL ~left mid-protocol |"
       "| repro_host_shm | peer-exit | * | CRASH ~left mid-protocol |" peer-exit)
mutate("| repro_host_shm | hang | * | HANG ~deadline of |" "| repro_host_shm | hang | * | HANG ~a reason never printed |"
       hang)
mutate("| repro_host_shm | atomics | * | PASS |" "| repro_host_shm | atomics | * | HANG/CRASH |" atomics)
