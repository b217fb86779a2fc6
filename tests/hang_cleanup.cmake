# repro_host_shm --case hang --timeout 2: exits 4 (HANG) within 10 s and leaves no process behind. Every process the
# run starts carries a marker in its environment; afterwards no process in /proc may still carry it.
string(RANDOM LENGTH 16 marker)
string(TIMESTAMP t0 "%s")
execute_process(COMMAND ${CMAKE_COMMAND} -E env VMR_HANG_TEST_MARKER=${marker} ${BIN} --case hang --timeout 2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
string(TIMESTAMP t1 "%s")
math(EXPR took "${t1} - ${t0}")
if(NOT rc EQUAL 4)
  message(FATAL_ERROR "exit ${rc}, want 4 (HANG):\n${out}")
endif()
if(took GREATER 10)
  message(FATAL_ERROR "took ${took} s, want at most 10")
endif()
# Some processes' environ is not readable to us; those are not ours.
execute_process(COMMAND sh -c "grep -ls 'VMR_HANG_TEST_MARKER=${marker}' /proc/[0-9]*/environ" OUTPUT_VARIABLE left)
if(NOT left STREQUAL "")
  message(FATAL_ERROR "processes of the run are still alive: ${left}")
endif()
message("HANG in ${took} s, nothing left running")
