# check_expected --cases and the table check's --list --json: the cases a plain run takes (opt-in ones left out,
# all of them with --with-opt-in), exit 99 on a list it cannot read, 2 on a bad command line; and a --binary whose
# --list --json fails is a table problem, never read as an empty list; --lists reads saved lists instead.
#   -DCHECK=<check_expected> -DTABLE=<expected/verdicts.md> -DWORK=<scratch folder>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/results)
file(WRITE ${WORK}/list.json [=[{"schema":"vmem-repro-cases/1","binary":"repro_host_shm","backend":"host","cases":[
 {"name":"read","opt_in":false},{"name":"fault","opt_in":true},{"name":"atomics","opt_in":false}]}]=])
function(expect want_rc want_out)
  execute_process(COMMAND ${CHECK} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL want_rc OR NOT out STREQUAL want_out)
    message(FATAL_ERROR "check_expected ${ARGN}: exit ${rc} (want ${want_rc}), stdout '${out}' (want '${want_out}'), "
                        "stderr '${err}'")
  endif()
endfunction()
expect(0 "read\natomics\n" --cases ${WORK}/list.json)
expect(0 "read\nfault\natomics\n" --cases ${WORK}/list.json --with-opt-in)
file(WRITE ${WORK}/human.txt "read   every peer reads\nfault  self-test [known-crash, selftest]\n")
expect(99 "" --cases ${WORK}/human.txt)
expect(99 "" --cases ${WORK}/absent.json)
expect(2 "" --cases)
expect(2 "" --cases ${WORK}/list.json --all)

# A binary that exits 1 on --list --json (after writing a list, so only the exit says it failed).
file(WRITE ${WORK}/repro_host_shm "#!/bin/sh\ncp '${WORK}/list.json' \"$3\"\nexit 1\n")
file(CHMOD ${WORK}/repro_host_shm PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${WORK}/results --binary ${WORK}/repro_host_shm
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out MATCHES "TABLE: [^\n]*repro_host_shm --list --json exited 1")
  message(FATAL_ERROR "a binary whose --list --json fails must be a table problem (exit ${rc}):\n${out}\n${err}")
endif()

# --lists DIR: the list a triage saved is read instead of listing the binary again. The binary here fails its
# --list --json, so only a read of the saved list passes; a saved case the table has no row for is a problem; a
# saved list of another binary is one too.
file(MAKE_DIRECTORY ${WORK}/lists)
file(COPY_FILE ${WORK}/list.json ${WORK}/lists/repro_host_shm.json)
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${WORK}/results --binary ${WORK}/repro_host_shm
                        --lists ${WORK}/lists RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(out MATCHES "--list --json exited" OR NOT out MATCHES "repro_host_shm\\.read ")
  message(FATAL_ERROR "--lists: the saved list was not read (exit ${rc}):\n${out}\n${err}")
endif()
file(WRITE ${WORK}/lists/repro_host_shm.json [=[{"schema":"vmem-repro-cases/1","binary":"repro_host_shm","cases":[
 {"name":"read","opt_in":false},{"name":"no-such-case","opt_in":false}]}]=])
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${WORK}/results --binary ${WORK}/repro_host_shm
                        --lists ${WORK}/lists RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out MATCHES "TABLE: case repro_host_shm\\.no-such-case has no row")
  message(FATAL_ERROR "--lists: a saved case without a row is not a table problem (exit ${rc}):\n${out}\n${err}")
endif()
file(WRITE ${WORK}/lists/repro_host_shm.json [=[{"schema":"vmem-repro-cases/1","binary":"repro_other","cases":[]}]=])
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${WORK}/results --binary ${WORK}/repro_host_shm
                        --lists ${WORK}/lists RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out MATCHES "TABLE: [^\n]*is the case list of repro_other, not of repro_host_shm")
  message(FATAL_ERROR "--lists: another binary's list is taken (exit ${rc}):\n${out}\n${err}")
endif()
