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

# The results themselves: a record missing for a case that ran is CHANGED ("no run record"), and an unreadable
# record is reported, never ignored.
set(copy ${WORK}/results-copy)
file(REMOVE_RECURSE ${copy})
file(MAKE_DIRECTORY ${copy})
file(GLOB records ${RESULTS}/repro_host_shm.*.json)
file(COPY ${records} DESTINATION ${copy})
file(REMOVE ${copy}/repro_host_shm.atomics.json)
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${copy} --binary ${BIN} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 1 OR NOT out MATCHES "\nrepro_host_shm\\.atomics +- +PASS +- +CHANGED: no run record")
  message(FATAL_ERROR "a missing record must be CHANGED (exit ${rc}):\n${out}")
endif()
file(COPY ${RESULTS}/repro_host_shm.atomics.json DESTINATION ${copy})
file(WRITE ${copy}/repro_host_shm.read.json "{\"schema\":\"vmem-repro-run/1\",\"cases\":[")
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${copy} --binary ${BIN} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 1 OR NOT out MATCHES "unreadable run record repro_host_shm\\.read\\.json")
  message(FATAL_ERROR "a corrupt record must be reported (exit ${rc}):\n${out}")
endif()
message("caught: a missing record, a corrupt record")

# Table problems fail the check, and each is named: a row for a case the binary does not have, a row for a binary
# the manifest does not have (a misspelt binary name), a --binary that is not there; a malformed table names the
# --table file it came from.
function(expect_problem table_text args want)
  file(WRITE ${WORK}/verdicts.md "${table_text}")
  execute_process(COMMAND ${CHECK} --table ${WORK}/verdicts.md --results ${RESULTS} ${args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 1 OR NOT out MATCHES "[1-9][0-9]* table problems\n" OR NOT out MATCHES "${want}")
    message(FATAL_ERROR "want exit 1, a table problem and '${want}'; got exit ${rc}:\n${out}")
  endif()
  message("caught: ${want}")
endfunction()
set(extra_case "| repro_host_shm | no-such-case | * | PASS | - | planted |\n")
set(extra_binary "| repro_host_shn | read | * | PASS | - | planted |\n")
expect_problem("${text}${extra_case}" "--binary;${BIN}"
               "TABLE: row for repro_host_shm\\.no-such-case names a case the binary does not have")
expect_problem("${text}${extra_case}" "--manifest;${MANIFEST}"
               "TABLE: row for repro_host_shm\\.no-such-case names a case the binary does not have")
expect_problem("${text}${extra_binary}" "--manifest;${MANIFEST}"
               "TABLE: row for repro_host_shn\\.read names a binary that is not in the manifest")
expect_problem("${text}" "--binary;${BIN}-misspelt;--manifest;${MANIFEST}" "is not a binary of the manifest")
file(WRITE ${WORK}/broken-table.md "${text}| repro_host_shm | read | * | PASS |\n")
# It is an error, so on stderr as one line; stdout carries the tool's output only (scripts/triage tees it into
# summary.txt), in both modes that read a table.
# (--bisect takes no --binary: the table is the first thing it reads.)
foreach(mode "--binary;${BIN}" "--bisect;expected;--case;repro_host_shm.read")
  execute_process(COMMAND ${CHECK} ${mode} --table ${WORK}/broken-table.md --results ${RESULTS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT out STREQUAL ""
     OR NOT err MATCHES "^check_expected: ${WORK}/broken-table\\.md line [0-9]+: [^\n]*\n$")
    message(FATAL_ERROR "a malformed --table (${mode}) must be one line on stderr naming its own path, nothing on "
                        "stdout (exit ${rc}):\nstdout: ${out}\nstderr: ${err}")
  endif()
endforeach()

# An output that cannot be written is an error naming it (exit 99), never "written".
foreach(flag --summary-json --markdown --junit)
  execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${RESULTS} --binary ${BIN}
                          ${flag} ${WORK}/no-such-folder/out.txt
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 99 OR NOT err MATCHES "cannot write ${WORK}/no-such-folder/out\\.txt" OR EXISTS ${WORK}/no-such-folder)
    message(FATAL_ERROR "${flag} into a missing folder: exit ${rc}, stderr '${err}' (want 99 naming the path)")
  endif()
endforeach()
message("caught: table problems exit 1 and are named; unwritable outputs exit 99")
