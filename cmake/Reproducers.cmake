# vmr_add_repro and the manifest. Every case of a built reproducer becomes the CTest test <binary>.<case> after the
# build: cmake/DiscoverCases.cmake asks the binary (`--list --json`), which decides each case's tags and CTest
# properties from the expected table it embeds (common/harness/expected.cpp, case_policy). CMake never reads the
# table itself.

set(VMR_EXPECTED_TABLE ${CMAKE_SOURCE_DIR}/expected/verdicts.md)
set(VMR_RESULTS_DIR ${CMAKE_BINARY_DIR}/results)

# repro/manifest.txt, the one manifest: VMR_SOURCES_<library> (absolute paths, build order), VMR_BINARIES, and for
# each binary VMR_BINARY_<name> = backend;libraries;defines;source.
set(VMR_MANIFEST_FILE ${CMAKE_SOURCE_DIR}/repro/manifest.txt)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${VMR_MANIFEST_FILE})
file(STRINGS ${VMR_MANIFEST_FILE} _vmr_manifest_lines)
set(VMR_BINARIES)
foreach(_line IN LISTS _vmr_manifest_lines)
  string(REGEX REPLACE "#.*$" "" _line "${_line}")
  separate_arguments(_words UNIX_COMMAND "${_line}")
  if(NOT _words)
    continue()
  endif()
  list(POP_FRONT _words _kind _name)
  list(LENGTH _words _n)
  if(_kind STREQUAL "library" AND _n GREATER 0)
    foreach(_f IN LISTS _words)
      list(APPEND VMR_SOURCES_REL_${_name} ${_f})
      list(APPEND VMR_SOURCES_${_name} ${CMAKE_SOURCE_DIR}/${_f})
    endforeach()
  elseif(_kind STREQUAL "binary" AND _n EQUAL 4)
    list(APPEND VMR_BINARIES ${_name})
    set(VMR_BINARY_${_name} ${_words})
  else()
    message(FATAL_ERROR "repro/manifest.txt: cannot read the line '${_line}' (see the comment at its top)")
  endif()
endforeach()

# vmr_add_repro(<binary of repro/manifest.txt>): the manifest line of bin/manifest.txt, built or not; a binary whose
# backend's toolchain works is a target of this build (toolchain "ok") and gets one CTest test per case it lists.
# The manifest is written at configure time, before anything is linked: "ok" says the toolchain works, so the build
# makes the binary ("missing": it has no toolchain here), and only bin/<binary> itself says it was linked (every reader checks both; a listed binary that is not there is a
# partial or failed build, which check_expected names and scripts/triage builds again).
function(vmr_add_repro target)
  list(GET VMR_BINARY_${target} 0 _backend)
  list(GET VMR_BINARY_${target} 1 _libs)
  list(GET VMR_BINARY_${target} 2 _defines)
  list(GET VMR_BINARY_${target} 3 _source)
  string(REPLACE "," ";" _libs "${_libs}")
  if(_backend STREQUAL "host")
    set(_toolchain_works ON)
  elseif(_backend MATCHES "^(hip|hsa)$")
    set(_toolchain_works ${VMR_HAVE_HSA})  # the HSA backend is on only where HIP is too
  elseif(_backend STREQUAL "cuda")
    set(_toolchain_works ${VMR_HAVE_CUDA})
  else()
    message(FATAL_ERROR "repro/manifest.txt: ${target} has the unknown backend '${_backend}'")
  endif()
  # The manifest line: name, backend, toolchain, defines, then every source file in build order.
  set(_files)
  foreach(_lib IN LISTS _libs)
    if(NOT VMR_SOURCES_REL_${_lib})
      message(FATAL_ERROR "repro/manifest.txt: ${target} links the unknown library '${_lib}'")
    endif()
    list(APPEND _files ${VMR_SOURCES_REL_${_lib}})
  endforeach()
  list(APPEND _files ${_source})
  if(_toolchain_works)
    set(_toolchain ok)
  else()
    set(_toolchain missing)
  endif()
  list(JOIN _files " " _files)
  string(REPLACE "," " " _defines_text "${_defines}")
  set_property(GLOBAL APPEND PROPERTY VMR_MANIFEST "${target}\t${_backend}\t${_toolchain}\t${_defines_text}\t${_files}")
  if(NOT _toolchain_works)
    return()
  endif()

  add_executable(${target} ${CMAKE_SOURCE_DIR}/${_source})
  target_link_libraries(${target} PRIVATE ${_libs})
  if(NOT _defines STREQUAL "-")
    string(REPLACE "," ";" _defines "${_defines}")
    target_compile_definitions(${target} PRIVATE ${_defines})
  endif()
  set_property(GLOBAL APPEND PROPERTY VMR_REPRO_TARGETS ${target})
  vmr_discover_cases(${target})
endfunction()

# The way gtest_discover_tests works: after each link the binary lists its cases into a CTest file, which ctest
# includes through a wrapper written now (before the first build the wrapper registers one failing test saying so).
# A custom command rather than POST_BUILD, so that the file is made again when DiscoverCases.cmake or the lister
# (scripts/lib/case_list.sh) changes too.
function(vmr_discover_cases target)
  set(_dir ${CMAKE_BINARY_DIR}/ctest-cases)
  set(_tests ${_dir}/${target}_tests.cmake)
  set(_wrapper ${_dir}/${target}_include.cmake)
  add_custom_command(OUTPUT ${_tests}
    COMMAND ${CMAKE_COMMAND} -DBINARY=$<TARGET_FILE:${target}> -DLIST_JSON=${_dir}/${target}.cases.json
            -DTESTS_FILE=${_tests} -DRESULTS=${VMR_RESULTS_DIR} -P ${CMAKE_SOURCE_DIR}/cmake/DiscoverCases.cmake
    DEPENDS ${target} ${CMAKE_SOURCE_DIR}/cmake/DiscoverCases.cmake ${CMAKE_SOURCE_DIR}/scripts/lib/case_list.sh
    BYPRODUCTS ${_dir}/${target}.cases.json VERBATIM)
  add_custom_target(${target}_cases ALL DEPENDS ${_tests})
  file(WRITE ${_wrapper}
       "if(EXISTS \"${_tests}\")\n  include(\"${_tests}\")\nelse()\n"
       "  add_test(${target}.NOT_BUILT ${target}.NOT_BUILT)\n"
       "  set_tests_properties(${target}.NOT_BUILT PROPERTIES LABELS harness)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${_wrapper})
endfunction()

# The one list of binaries, for scripts/triage, scripts/amalgamate and .ci/run: one tab-separated line each.
function(vmr_write_manifest)
  get_property(_lines GLOBAL PROPERTY VMR_MANIFEST)
  set(_text "# vmem-repro manifest: binary, backend, toolchain (ok: it works, so this build makes the binary, linked if bin/<binary> is there; missing: none here), defines (- for none), sources in build order\n")
  foreach(_line IN LISTS _lines)
    string(APPEND _text "${_line}\n")
  endforeach()
  file(WRITE ${CMAKE_BINARY_DIR}/bin/manifest.txt.new "${_text}")
  configure_file(${CMAKE_BINARY_DIR}/bin/manifest.txt.new ${CMAKE_BINARY_DIR}/bin/manifest.txt COPYONLY)
  file(REMOVE ${CMAKE_BINARY_DIR}/bin/manifest.txt.new)
endfunction()
