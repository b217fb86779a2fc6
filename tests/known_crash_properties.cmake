# The CTest properties of this build's case tests as ctest reads them (`ctest --show-only=json-v1`): the known-crash
# cases the issue names are WILL_FAIL, passing only on their own CRASH or FAIL line (so a PASS, a HARNESS or a usage
# exit fails them); the cases around them are what their unconditional rows say; and no case test anywhere is
# WILL_FAIL without such a line. Only the binaries this build made are checked (bin/manifest.txt); a host-only build
# has repro_host_shm.fault, and tests/known_crash_standin.cmake runs the same registration on a stand-in.
#   -DBUILD=<build folder>
cmake_policy(VERSION 3.21)  # if(... IN_LIST ...)
include(${CMAKE_CURRENT_LIST_DIR}/ctest_properties.cmake)
# Case tests are named <binary>.<case>, every binary repro_*.
ctest_properties(${BUILD} "^repro_[^.]+\\." names)

file(STRINGS ${BUILD}/bin/manifest.txt manifest REGEX "^[^#]")
set(built)
foreach(line IN LISTS manifest)
  string(REPLACE "\t" ";" cells "${line}")
  list(GET cells 0 binary)
  list(GET cells 2 toolchain)
  if(toolchain STREQUAL "ok")
    list(APPEND built ${binary})
  endif()
endforeach()

# What each case's test must be: WILL_FAIL with the verdicts its FAIL_REGULAR_EXPRESSION names, or "plain" (not
# WILL_FAIL); whether it is labelled known-crash.
set(cases
    "repro_hip_vmem_pinned.atomics|CRASH|FAIL|known-crash"  # CRASH/FAIL/PASS: a PASS is the fix (iris#418)
    "repro_hip_vmem_uncached.atomics|CRASH|FAIL|known-crash"
    "repro_host_shm.fault|CRASH|known-crash"                 # the self-test crash, in every build
    "repro_pow2_remap.set-access-hole|FAIL"                  # FAIL only: WILL_FAIL, not known-crash
    "repro_pow2_remap.set-access-subrange|plain"             # its unconditional row is PASS
    "repro_hip_vmem_access.grant-owner-first|plain|known-crash")  # crashes only in conditional rows; CTest follows *
set(checked 0)
foreach(spec IN LISTS cases)
  string(REPLACE "|" ";" spec "${spec}")
  list(GET spec 0 test)
  list(REMOVE_AT spec 0)
  set(want_label OFF)
  if("known-crash" IN_LIST spec)
    set(want_label ON)
    list(REMOVE_ITEM spec known-crash)
  endif()
  string(REGEX REPLACE "\\..*" "" binary "${test}")
  if(NOT binary IN_LIST built)
    message(STATUS "${test}: ${binary} is not built here, not checked")
    continue()
  endif()
  if(NOT test IN_LIST names)
    message(FATAL_ERROR "${test}: ${binary} is built, but ctest has no such test (tests of ${binary}: "
                        "see ${BUILD}/ctest-cases)")
  endif()
  ctest_property(wf ${test} WILL_FAIL)
  ctest_property(fail ${test} FAIL_REGULAR_EXPRESSION)
  ctest_property(labels ${test} LABELS)
  set(has_label OFF)
  if("known-crash" IN_LIST labels)
    set(has_label ON)
  endif()
  string(REPLACE "." "\\." escaped "${test}")
  list(JOIN spec "|" verdicts)
  if(spec STREQUAL "plain")
    if(wf)
      message(FATAL_ERROR "${test}: WILL_FAIL is '${wf}', want none")
    endif()
  elseif(NOT wf STREQUAL "ON" OR NOT fail STREQUAL "(^|\n)VERDICT: (${verdicts}) ${escaped} ")
    message(FATAL_ERROR "${test}: WILL_FAIL '${wf}', FAIL_REGULAR_EXPRESSION '${fail}'; want ON and its "
                        "(${verdicts}) line")
  endif()
  if(NOT has_label STREQUAL want_label)
    message(FATAL_ERROR "${test}: labelled known-crash: ${has_label}, want ${want_label} (LABELS '${labels}')")
  endif()
  message(STATUS "${test}: WILL_FAIL '${wf}' (${verdicts}), LABELS ${labels}")
  math(EXPR checked "${checked} + 1")
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "no known-crash case was checked: repro_host_shm is always built (${BUILD}/bin/manifest.txt)")
endif()

# Every WILL_FAIL case test: passes only on a VERDICT line of its own naming no PASS, whatever its exit code, and
# skips on 77; WILL_FAIL alone would pass a HARNESS or usage exit.
set(will_fail 0)
foreach(test IN LISTS names)
  ctest_property(wf "${test}" WILL_FAIL)
  if(NOT wf STREQUAL "ON")
    continue()
  endif()
  string(REPLACE "." "\\." escaped "${test}")
  ctest_property(fail "${test}" FAIL_REGULAR_EXPRESSION)
  ctest_property(pass "${test}" PASS_REGULAR_EXPRESSION)
  ctest_property(skip "${test}" SKIP_RETURN_CODE)
  string(REGEX MATCH "^\\(\\^\\|\n\\)VERDICT: \\(([A-Z|]+)\\) " head "${fail}")
  set(verdicts "${CMAKE_MATCH_1}")
  if(NOT head OR NOT fail STREQUAL "(^|\n)VERDICT: (${verdicts}) ${escaped} " OR verdicts MATCHES "PASS|SKIP" OR
     NOT pass STREQUAL "VERDICT: PASS ${escaped} ;^" OR NOT skip EQUAL 77)
    message(FATAL_ERROR "${test} is WILL_FAIL without the VERDICT-line check that keeps a PASS, a HARNESS or a "
                        "usage exit from passing it: FAIL_REGULAR_EXPRESSION '${fail}', PASS_REGULAR_EXPRESSION "
                        "'${pass}', SKIP_RETURN_CODE '${skip}'")
  endif()
  math(EXPR will_fail "${will_fail} + 1")
endforeach()
message(STATUS "${checked} named cases checked; ${will_fail} WILL_FAIL tests, each with its VERDICT-line check")
