# scripts/bug-report on a results directory holding one AMD crash: every section of the ROCm issue form is there,
# with the failing command, the crashing rank's last stderr line and the GPU facts; it is not a reference run.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/summary.json "{}\n")
file(WRITE ${WORK}/repro_hip_vmem_pinned.atomics.0-1.json
  "{\"schema\":\"vmem-repro-run/1\",\"binary\":\"repro_hip_vmem_pinned\",\"backend\":\"hip\",\"verdict\":\"CRASH\","
  "\"environment\":{\"os\":\"test\"},\"options\":{\"ranks\":2,\"devices\":[0,1],\"device_source\":\"--devices\"},"
  "\"cases\":[{\"case\":\"atomics\",\"verdict\":\"CRASH\",\"detail\":\"rank 1 (pid 7) killed by SIGABRT (Aborted); last stderr: Memory access fault by GPU node-3\","
  "\"metrics\":{},\"ranks\":[{\"info\":{\"device\":\"0\",\"gfx_arch\":\"gfx942\",\"uuid\":\"GPU-aaaa\",\"hip_version\":\"6.4.1\",\"rocm_release\":\"6.4.1\"},"
  "\"stderr_tail\":[]},{\"info\":{\"device\":\"1\",\"gfx_arch\":\"gfx942\",\"uuid\":\"GPU-bbbb\"},"
  "\"stderr_tail\":[\"Memory access fault by GPU node-3 (Agent handle: 0x1) on address 0x7f00. Reason: Page not present or supervisor privilege.\"]}]}]}\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E env BUILD_DIR=${BUILD} ${SCRIPT} ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bug-report exited ${rc}: ${err}")
endif()
file(READ ${WORK}/bug-report.md report)
foreach(want "### Problem Description" "### Operating System" "### CPU" "### GPU" "### ROCm Version"
             "### ROCm Component" "### Steps to Reproduce" "rocminfo --support" "### Additional Information"
             "repro_hip_vmem_pinned --case atomics --devices 0,1" "Memory access fault by GPU node-3"
             "gfx_arch=gfx942" "hip_version:6.4.1" "CRASH \\(expected CRASH/FAIL/PASS ~Memory access fault")
  if(NOT report MATCHES "${want}")
    message(FATAL_ERROR "bug-report.md lacks '${want}':\n${report}")
  endif()
endforeach()
if(report MATCHES "Reference run")
  message(FATAL_ERROR "a node where an AMD GPU ran is not a reference run")
endif()
