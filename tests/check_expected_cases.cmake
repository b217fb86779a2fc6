# check_expected --cases and the table check's --list --json: the cases a plain run takes (opt-in ones left out,
# all of them with --with-opt-in), exit 99 on a list it cannot read, 2 on a bad command line; and a --binary whose
# --list --json fails (or hangs) is the suite's problem (LIST:, exit 99), never read as an empty list nor a verdict; --lists reads saved lists instead; a record no
# row covers is CHANGED; a binary the manifest lists that is not there is one BUILD problem.
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
if(NOT rc EQUAL 99 OR NOT out MATCHES "(^|\n)LIST: [^\n]*/repro_host_shm --list --json exited 1\n")
  message(FATAL_ERROR "a binary whose --list --json fails must be the suite's problem, exit 99 (exit ${rc}):\n${out}\n${err}")
endif()
# Listed the one way (scripts/lib/case_list.sh, its limit shortened by VMR_LIST_TIMEOUT_S, the tests' hook): a
# binary that hangs while listing is killed and named, exit 99, never a verdict on the node: its one problem, its
# rows not run saying why.
file(MAKE_DIRECTORY ${WORK}/hanging)
file(WRITE ${WORK}/hanging/repro_host_shm "#!/bin/sh
exec sleep 30
")
file(CHMOD ${WORK}/hanging/repro_host_shm PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
execute_process(COMMAND ${CMAKE_COMMAND} -E env VMR_LIST_TIMEOUT_S=1 ${CHECK} --table ${TABLE} --results ${WORK}/results
                        --binary ${WORK}/hanging/repro_host_shm
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 20)
if(NOT rc EQUAL 99 OR NOT out MATCHES "(^|\n)LIST: [^\n]*/repro_host_shm --list --json did not finish in 1 s: killed\n"
   OR out MATCHES "TABLE: row for repro_host_shm" OR NOT out MATCHES "not run \\(its cases could not be listed: see the LIST problem\\): repro_host_shm \\([0-9]+\\)")
  message(FATAL_ERROR "a binary that hangs while listing: exit ${rc}, want 99 naming it:\n${out}\n${err}")
endif()
# --lists where the triage's listing failed (<binary>.failed, its one line): that line, the binary not listed again.
file(MAKE_DIRECTORY ${WORK}/failed-lists)
file(WRITE ${WORK}/failed-lists/repro_host_shm.failed "/x/repro_host_shm --list --json was killed by signal 6\n")
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${WORK}/results --binary ${WORK}/repro_host_shm
                        --lists ${WORK}/failed-lists RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 99 OR NOT out MATCHES "(^|\n)LIST: /x/repro_host_shm --list --json was killed by signal 6\n"
   OR out MATCHES "exited 1")
  message(FATAL_ERROR "--lists with the listing's failure saved: exit ${rc}, want 99 with that line alone:\n${out}\n${err}")
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
if(NOT rc EQUAL 99 OR NOT out MATCHES "LIST: [^\n]*is the case list of repro_other, not of repro_host_shm")
  message(FATAL_ERROR "--lists: another binary's list is taken (exit ${rc}):\n${out}\n${err}")
endif()

# A record of a case no row covers (a new case that CRASHed) is CHANGED, never left out of the comparison.
file(MAKE_DIRECTORY ${WORK}/uncovered)
file(WRITE ${WORK}/uncovered/repro_host_shm.brand-new.json [=[{"schema":"vmem-repro-run/1","binary":"repro_host_shm",
"backend":"host","verdict":"CRASH","environment":{"kernel":"Linux 6.1","variables":{}},"options":{"ranks":2,
"devices":[0,1],"device_source":"default 0..N-1"},"cases":[{"case":"brand-new","verdict":"CRASH",
"detail":"rank 1 killed by SIGSEGV","metrics":{},"ranks":[]}]}]=])
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${WORK}/uncovered --summary-json ${WORK}/uncovered.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out MATCHES "repro_host_shm\\.brand-new +- +- +CRASH +CHANGED: no row for repro_host_shm\\.brand-new in "
   OR NOT out MATCHES "\n0 OK, 1 CHANGED, ")
  message(FATAL_ERROR "a record no row covers must be CHANGED (exit ${rc}):\n${out}\n${err}")
endif()

# A binary the manifest says this build makes that is not there (a partial build): one BUILD problem naming it,
# never a problem per row of it ("names a case the binary does not have"), its rows not run saying why.
file(MAKE_DIRECTORY ${WORK}/partial/bin)
# The build's own manifest beside check_expected, every other binary's toolchain "missing" (a full build lists
# them "ok").
get_filename_component(bin ${CHECK} DIRECTORY)
file(READ ${bin}/manifest.txt manifest)
string(REPLACE "\tok\t" "\tmissing\t" manifest "${manifest}")
string(REGEX REPLACE "(^|\n)repro_host_shm\thost\tmissing\t" "\\1repro_host_shm\thost\tok\t" manifest "${manifest}")
file(WRITE ${WORK}/partial/bin/manifest.txt "${manifest}")
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${WORK}/results --manifest ${WORK}/partial/bin/manifest.txt
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCHALL "(^|\n)(TABLE|BUILD): " problems "${out}")  # (the lines hold ";")
list(LENGTH problems n)
if(NOT rc EQUAL 1 OR NOT n EQUAL 1
   OR NOT out MATCHES "BUILD: ${WORK}/partial/bin/repro_host_shm is not there, though the manifest"
   OR NOT out MATCHES "not run \\(binary missing from the build[^\n]*: repro_host_shm \\([0-9]+\\)")
  message(FATAL_ERROR "a missing listed binary must be one BUILD problem (exit ${rc}, ${n} problems):\n${out}\n${err}")
endif()
# A manifest of an older build (toolchain "yes", before it said ok or missing) is not read on a guess: exit 99 (the
# callers build again, which writes it anew), never its binaries taken for ones without a toolchain.
string(REPLACE "repro_host_shm\thost\tok\t" "repro_host_shm\thost\tyes\t" manifest "${manifest}")
file(WRITE ${WORK}/partial/bin/manifest.txt "${manifest}")
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${WORK}/results --manifest ${WORK}/partial/bin/manifest.txt
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 99 OR NOT err MATCHES "repro_host_shm's toolchain is 'yes', neither ok nor missing")
  message(FATAL_ERROR "a manifest whose toolchain says yes must be refused (exit 99), got exit ${rc}:\n${out}\n${err}")
endif()

# A run whose ranks died before they described the node (no rocm_release) of a case whose rows have rocm_release
# conditions: the node's CHANGED, never a table problem, so the health line judges the node (exit 1, a drain) and
# does not call it a suite problem (99, never drained).
file(MAKE_DIRECTORY ${WORK}/early-crash)
file(WRITE ${WORK}/early-crash/repro_hip_vmem_regressions.0-1.json [=[{"schema":"vmem-repro-run/1",
"binary":"repro_hip_vmem_regressions","backend":"hip","verdict":"CRASH","environment":{"kernel":"Linux 6.1",
"variables":{}},"options":{"ranks":2,"devices":[0,1],"device_source":"default 0..N-1"},"cases":[{"case":"unmap-leak",
"verdict":"CRASH","detail":"rank 0 killed by SIGSEGV before it reported","metrics":{},"ranks":[]}]}]=])
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${WORK}/early-crash --summary-json ${WORK}/early-crash.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR out MATCHES "(^|\n)TABLE: " OR NOT out MATCHES "repro_hip_vmem_regressions\\.unmap-leak [^\n]*CRASH +CHANGED")
  message(FATAL_ERROR "a CRASH before describe must be CHANGED with no table problem (exit ${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${CHECK} --health-line --summary ${WORK}/early-crash.json --exit 1 --took 3
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out MATCHES "^vmem-repro: repro_hip_vmem_regressions\\.unmap-leak CRASH")
  message(FATAL_ERROR "the health line of a CRASH before describe must judge the node (exit ${rc}):\n${out}\n${err}")
endif()

# Flags given again, as each mode reads them: --record twice reads the last record only (a one-value flag); --case
# twice judges both cases, in the order given (a list flag), each on its own line before the commit's.
file(MAKE_DIRECTORY ${WORK}/again)
file(READ ${WORK}/uncovered/repro_host_shm.brand-new.json crash)
string(REPLACE "brand-new" "other" other "${crash}")
string(REPLACE "\"CRASH\"" "\"PASS\"" other "${other}")
file(WRITE ${WORK}/again/repro_host_shm.json "${other}")
expect(0 "PASS other\n" --record ${WORK}/uncovered/repro_host_shm.brand-new.json --record ${WORK}/again/repro_host_shm.json)
execute_process(COMMAND ${CHECK} --bisect pass --results ${WORK}/uncovered --case repro_host_shm.brand-new
                        --case repro_host_shm.read RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out MATCHES "^bad repro_host_shm\\.brand-new: CRASH[^\n]*\nskip repro_host_shm\\.read: no record[^\n]*\n"
   OR NOT out MATCHES "\nbisect: bad \\(0 good, 1 bad, 1 not judged")
  message(FATAL_ERROR "--case twice must judge both cases in order (exit ${rc}):\n${out}\n${err}")
endif()
