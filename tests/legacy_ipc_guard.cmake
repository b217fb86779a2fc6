# The compile-time lock of gpu/legacy_ipc.h: tests/legacy_ipc_guard_tu.cpp's try 0 (the plain allocator's token)
# compiles, and each other try (a raw pointer, a VMem VA or span, a token made outside the allocator, brace-made,
# default-made, another backend's, the backend's raw export) is refused by the compiler for the token (its error
# names PlainAllocation) or for the raw export's privacy, for
# a stand-in backend and, with CUDA_INCLUDE, for vmr_cuda::ipc_export, where a second maker of the token (the plain
# allocator or its allocate explicitly specialized) is refused too ("specialization ... after instantiation"). Then no source but a backend's guard header
# (common/<backend>/*legacy_ipc.h) and the standalone minimal files (repro/minimal/) names IpcGetMemHandle in code: a
# case, even in a legacy IPC binary, cannot reach the export but through the token.
#   cmake -DCXX=... -DSOURCE=<repo> [-DCUDA_INCLUDE=<dir>] -P tests/legacy_ipc_guard.cmake
set(_tu ${SOURCE}/tests/legacy_ipc_guard_tu.cpp)
set(_failures "")
set(_backends standin)
if(CUDA_INCLUDE)
  list(APPEND _backends cuda)
endif()
foreach(_backend IN LISTS _backends)
  set(_flags -std=c++17 -fsyntax-only -I${SOURCE}/common)
  if(_backend STREQUAL cuda)
    list(APPEND _flags -DVMR_GUARD_CUDA -I${CUDA_INCLUDE})
  endif()
  set(_last_try 6)
  if(_backend STREQUAL cuda)
    set(_last_try 8)  # 7, 8: the plain allocator (a template over the backend) explicitly specialized
  endif()
  foreach(_try RANGE 0 ${_last_try})
    execute_process(COMMAND ${CXX} ${_flags} -DVMR_GUARD_TRY=${_try} -x c++ ${_tu} RESULT_VARIABLE _rc
                    OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
    if(_try EQUAL 0)
      if(NOT _rc EQUAL 0)
        string(APPEND _failures "${_backend} try 0 (the allocator's token) does not compile:\n${_out}\n")
      endif()
    elseif(_rc EQUAL 0)
      string(APPEND _failures "${_backend} try ${_try} compiles: legacy IPC took something that is not the token\n")
    elseif(NOT _out MATCHES "PlainAllocation|is private within this context|specialization of .*PlainMemory.* after instantiation")
      string(APPEND _failures "${_backend} try ${_try} fails for another reason than the token:\n${_out}\n")
    else()
      message(STATUS "${_backend} try ${_try}: refused by the compiler, as it must be")
    endif()
  endforeach()
endforeach()

file(GLOB_RECURSE _sources RELATIVE ${SOURCE} ${SOURCE}/common/* ${SOURCE}/repro/* ${SOURCE}/tools/*)
foreach(_file IN LISTS _sources)
  # The backends' guard headers make the call; the minimal files are one screen of plain runtime calls, no suite.
  if(_file MATCHES "^common/[a-z]+/[a-z_]*legacy_ipc\\.h$" OR _file MATCHES "^repro/minimal/"
     OR NOT _file MATCHES "\\.(h|cpp|cu|hip|c)$")
    continue()
  endif()
  file(STRINGS ${SOURCE}/${_file} _lines REGEX "IpcGetMemHandle")
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "//.*$" "" _code "${_line}")
    string(REGEX REPLACE "\"[^\"]*\"" "" _code "${_code}")
    if(_code MATCHES "IpcGetMemHandle")
      string(APPEND _failures "${_file} names IpcGetMemHandle outside a backend's guard header: ${_line}\n")
    endif()
  endforeach()
endforeach()

if(_failures)
  message(FATAL_ERROR "${_failures}")
endif()
message(STATUS "legacy IPC guard: every try but the token refused; no IpcGetMemHandle outside the guard headers")
