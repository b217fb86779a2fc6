# Every bad command line of a reproducer binary exits 2 with exactly one line on stderr, naming the binary and
# saying what is wrong, and nothing on stdout; --help and --list exit 0.
# Each entry: the arguments separated by '|', then '=>', then a text the stderr line must contain.
get_filename_component(name ${BIN} NAME)
# A symlink to a directory, made here (--json writes through a link, a device or a FIFO as the tools do:
# tests/json_write_through.sh; a directory behind one is refused).
set(nodes ${CMAKE_CURRENT_BINARY_DIR}/usage-errors-${name})
file(REMOVE_RECURSE ${nodes})
file(MAKE_DIRECTORY ${nodes}/adir)
file(CREATE_LINK ${nodes}/adir ${nodes}/dir-link SYMBOLIC)
execute_process(COMMAND ${BIN} --list OUTPUT_VARIABLE listing)
string(REGEX MATCH "^[a-z0-9-]+" first_case "${listing}")
set(bad_lines
  "--bogus=>unknown option '--bogus'"
  "--case=>--case needs a value"
  "--case|no-such-case=>unknown case 'no-such-case' (known: "
  "--ranks|1=>--ranks: '1' is not a whole number from 2 to 64"
  "--ranks|65=>--ranks: '65' is not a whole number from 2 to 64"
  "--ranks|x=>--ranks: 'x' is not a whole number"
  "--timeout|0=>--timeout: '0' is not a number of seconds from 0.001 (1 ms) to 86400"
  "--timeout|0.0001=>--timeout: '0.0001' is not a number of seconds from 0.001 (1 ms) to 86400"
  "--timeout|-3=>--timeout: '-3' is not a number of seconds"
  "--timeout|86401=>--timeout: '86401' is not a number of seconds from 0.001 (1 ms) to 86400"
  "--devices|a,b=>--devices: 'a' is not a device number"
  "--devices|-1,0=>--devices: '-1' is not a device number"
  "--devices|0,,1=>--devices: '' is not a device number"
  "--devices|0,1024=>--devices: '1024' is not a device number"
  "--devices|0,1-2=>--devices: '1-2' is not a device number"
  "--ranks|3|--devices|0,1=>--devices lists 2 devices but --ranks is 3"
  "--json=>--json needs a value"
  "--all|--case|@CASE@=>--all and --case exclude each other"
  "stray-argument=>unexpected argument 'stray-argument'"
  "--list=yes=>--list takes no value"
  "--json|/nonexistent-dir/run.json=>--json: '/nonexistent-dir/run.json' is in no existing folder"
  "--json|/=>--json: '/' names a directory"
  "--json|${nodes}/adir=>--json: '${nodes}/adir' is a directory"
  "--json|${nodes}/dir-link=>--json: '${nodes}/dir-link' is a symlink to a directory"
  "--json|/proc/vmr-usage.json=>--json: '/proc/vmr-usage.json' cannot be written")
foreach(entry IN LISTS bad_lines)
  string(FIND "${entry}" "=>" at)
  string(SUBSTRING "${entry}" 0 ${at} line)
  math(EXPR from "${at} + 2")
  string(SUBSTRING "${entry}" ${from} -1 want)
  string(REPLACE "@CASE@" "${first_case}" line "${line}")
  string(REPLACE "|" ";" args "${line}")
  execute_process(COMMAND ${BIN} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(STRIP "${err}" err_stripped)
  string(REGEX MATCHALL "\n" newlines "${err_stripped}")
  list(LENGTH newlines n)
  if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR err_stripped STREQUAL "" OR n GREATER 0)
    message(FATAL_ERROR "'${line}': exit ${rc}, stdout '${out}', stderr '${err}' (want exit 2, one stderr line)")
  endif()
  string(FIND "${err_stripped}" "${name}: " at_name)
  string(FIND "${err_stripped}" "${want}" at_want)
  if(NOT at_name EQUAL 0 OR at_want EQUAL -1)
    message(FATAL_ERROR "'${line}': stderr '${err_stripped}' does not say '${name}: ... ${want}'")
  endif()
  message("ok: ${line} -> ${err_stripped}")
endforeach()
foreach(args "--help" "--list")
  execute_process(COMMAND ${BIN} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR out STREQUAL "")
    message(FATAL_ERROR "${args}: exit ${rc}")
  endif()
endforeach()
