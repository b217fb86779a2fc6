# Every bad command line of a reproducer binary exits 2 with exactly one line on stderr and nothing on stdout;
# --help and --list exit 0.
# Arguments of one command line are separated by '|'.
set(bad_lines
  "--bogus" "--case" "--case|no-such-case" "--ranks|1" "--ranks|x" "--timeout|0" "--timeout|-3"
  "--devices|a,b" "--ranks|3|--devices|0,1" "--json" "--all|--case|read" "stray-argument" "--list=yes" "--json|/nonexistent-dir/run.json")
foreach(line IN LISTS bad_lines)
  string(REPLACE "|" ";" args "${line}")
  execute_process(COMMAND ${BIN} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(STRIP "${err}" err_stripped)
  string(REGEX MATCHALL "\n" newlines "${err_stripped}")
  list(LENGTH newlines n)
  if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR err_stripped STREQUAL "" OR n GREATER 0)
    message(FATAL_ERROR "'${line}': exit ${rc}, stdout '${out}', stderr '${err}' (want exit 2, one stderr line)")
  endif()
  message("ok: ${line} -> ${err_stripped}")
endforeach()
foreach(args "--help" "--list")
  execute_process(COMMAND ${BIN} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR out STREQUAL "")
    message(FATAL_ERROR "${args}: exit ${rc}")
  endif()
endforeach()
