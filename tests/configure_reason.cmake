# The "backend hip: OFF" configure line carries the whole reason the HIP probe failed, on one line: CMake's error
# block from "CMake Error" to its end (the call stack left out), not its first 3 lines, which stop before the reason
# ("The CMAKE_HIP_COMPILER:" for a compiler that is not there).
#   cmake -DBACKENDS=<src>/cmake/Backends.cmake -DWORK=<scratch dir> -P configure_reason.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/src)
file(WRITE ${WORK}/src/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.21)\nproject(reason LANGUAGES CXX)\ninclude(${BACKENDS})\n")
# Each entry: a HIP compiler, '=>', then CMake's words the line must hold, in order, each run of white space one
# space; @DEBIAN@ stands for the line's own "; on Debian 12 ..." that follows (a list entry cannot hold a ';').
set(probes
  "${WORK}/no-such-clang=>enable_language(HIP) fails: CMake Error at CMakeLists.txt:2 (project): The CMAKE_HIP_COMPILER: ${WORK}/no-such-clang is not a full path to an existing compiler tool. Tell CMake where to find the compiler by setting either the environment variable \"HIPCXX\" or the CMake cache entry CMAKE_HIP_COMPILER to the full path to the compiler, or to the compiler name if it is in the PATH.@DEBIAN@"
  "hipcc=>CMAKE_HIP_COMPILER is set to the hipcc wrapper: hipcc This is not supported. Use Clang directly, or let CMake pick a default.@DEBIAN@")
foreach(entry IN LISTS probes)
  string(FIND "${entry}" "=>" at)
  string(SUBSTRING "${entry}" 0 ${at} compiler)
  math(EXPR from "${at} + 2")
  string(SUBSTRING "${entry}" ${from} -1 want)
  file(REMOVE_RECURSE ${WORK}/build)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/src -B ${WORK}/build -DVMR_ENABLE_CUDA=OFF
                          -DCMAKE_HIP_COMPILER=${compiler} -DCMAKE_HIP_ARCHITECTURES=gfx90a
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX MATCH "-- backend hip: OFF[^\n]*" line "${out}")
  if(NOT rc EQUAL 0 OR line STREQUAL "")
    message(FATAL_ERROR "configure with ${compiler}: exit ${rc}, no 'backend hip: OFF' line:\n${out}\n${err}")
  endif()
  string(REPLACE "@DEBIAN@" "; on Debian 12 use --preset debian-rocm" want "${want}")
  string(FIND "${line}" "${want}" found)
  # CMake's call stack names the probe's files, not the reason; two spaces would be CMake's layout kept.
  if(found EQUAL -1 OR line MATCHES "Call Stack|  ")
    message(FATAL_ERROR "with ${compiler}, the HIP line\n  ${line}\nlacks\n  ${want}\nor keeps the call stack")
  endif()
  message("ok: ${line}")
endforeach()
