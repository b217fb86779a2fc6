# check_expected as the triage uses it: per-pair results become a rank 0 x rank 1 GPU matrix, a pair whose verdict
# differs from expected/ is CHANGED (exit 1), and summary.json and the Markdown report say the same.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
function(write_run file pair_json verdict detail)
  file(WRITE ${WORK}/${file}
    "{\"schema\":\"vmem-repro-run/1\",\"binary\":\"repro_cuda_vmm\",\"backend\":\"cuda\",\"verdict\":\"${verdict}\","
    "\"environment\":{\"os\":\"test\"},\"options\":{\"ranks\":2,\"devices\":${pair_json},\"device_source\":\"--devices\"},"
    "\"cases\":[{\"case\":\"read\",\"verdict\":\"${verdict}\",\"detail\":\"${detail}\","
    "\"metrics\":{\"peer_read_kernel_GBps\":{\"value\":333.5,\"unit\":\"GB/s\"}},\"ranks\":[{\"info\":{}}]}]}\n")
endfunction()
write_run(repro_cuda_vmm.read.0-1.json "[0,1]" PASS "read exactly")
write_run(repro_cuda_vmm.read.1-0.json "[1,0]" FAIL "peer read of rank 0: 12 of 100 words differ")
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${WORK} --matrix --summary-json ${WORK}/summary.json
                        --markdown ${WORK}/report.md
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "a pair that differs from expected/ must make check_expected exit 1, got ${rc}")
endif()
foreach(want "repro_cuda_vmm.read +0-1 +PASS +PASS +OK" "repro_cuda_vmm.read +1-0 +PASS +FAIL +CHANGED"
             "GPU 0 +- +PASS 333.5 GB/s" "GPU 1 +FAIL 333.5 GB/s \\(CHANGED\\) +-")
  if(NOT out MATCHES "${want}")
    message(FATAL_ERROR "output lacks '${want}'")
  endif()
endforeach()
execute_process(COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/validate_summary.py
                        ${CMAKE_CURRENT_LIST_DIR}/../schemas/vmem-repro-summary-2.schema.json ${WORK}/summary.json
                RESULT_VARIABLE valid OUTPUT_VARIABLE why)
if(NOT valid EQUAL 0)
  message(FATAL_ERROR "summary.json does not follow schemas/vmem-repro-summary-2.schema.json: ${why}")
endif()
file(READ ${WORK}/summary.json summary)
if(NOT summary MATCHES "\"ok\":1,\"changed\":1" OR NOT summary MATCHES "\"gpus\":\\[1,0\\],\"observed\":\"FAIL\",\"standing\":\"changed_verdict\"")
  message(FATAL_ERROR "summary.json does not count 1 OK and 1 CHANGED: ${summary}")
endif()
file(READ ${WORK}/report.md report)
if(NOT report MATCHES "\\| GPU 1 \\| FAIL 333.5 GB/s \\(CHANGED\\) \\| - \\|")
  message(FATAL_ERROR "report.md lacks the matrix row: ${report}")
endif()

# The triage's report.md (check_expected --report-md): the run's facts, then exactly what --markdown wrote, read back
# from summary.json (so the report and the summary cannot disagree).
execute_process(COMMAND ${CHECK} --report-md ${WORK}/triage-report.md --summary ${WORK}/summary.json --launches 5
                        --took 1.5 --modelled 0.7 --concurrency "each round's runs at once"
                        --note "cuda: 2 GPUs, 2 pair(s)" --note "hip: no GPU"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--report-md: exit ${rc}: ${err}")
endif()
file(READ ${WORK}/triage-report.md triage)
string(FIND "${triage}" "${report}" at)
string(LENGTH "${triage}" triage_length)
string(LENGTH "${report}" report_length)
math(EXPR want_at "${triage_length} - ${report_length}")
if(NOT triage MATCHES "^# vmem-repro triage, [0-9]+-[0-9]+-[0-9]+ [0-9]+:[0-9]+ UTC\n\n- node: [^\n]+, [^\n]+\n"
   OR NOT triage MATCHES "\n- 5 launches in 1\\.5 s \\(each round's runs at once; modelled 0\\.7 s\\)\n"
   OR NOT triage MATCHES "\n- backend cuda: 2 GPUs, 2 pair\\(s\\)\n- backend hip: no GPU\n\n## Verdicts against"
   OR NOT at EQUAL want_at OR report_length EQUAL 0)
  message(FATAL_ERROR "report.md is not the run's facts and then --markdown's verdicts:\n${triage}")
endif()
message("check_expected --report-md: the triage's facts, then the verdicts of summary.json as --markdown wrote them")

# A planned pair that left no record is CHANGED, beside the pairs that did report (--plan "case pair pair ...").
file(REMOVE ${WORK}/repro_cuda_vmm.read.1-0.json)
file(WRITE ${WORK}/plan.txt "repro_cuda_vmm.read 0-1 1-0\n")
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${WORK} --plan ${WORK}/plan.txt
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 1 OR NOT out MATCHES "repro_cuda_vmm.read +1-0 +PASS +- +CHANGED: the planned run on GPUs 1-0 left no record"
   OR NOT out MATCHES "repro_cuda_vmm.read +0-1 +PASS +PASS +OK")
  message(FATAL_ERROR "a planned pair without its record must be CHANGED (exit ${rc}):\n${out}")
endif()
file(WRITE ${WORK}/plan.txt "repro_cuda_vmm.read 0-1\n")
execute_process(COMMAND ${CHECK} --table ${TABLE} --results ${WORK} --plan ${WORK}/plan.txt
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "every planned pair reported, yet exit ${rc}:\n${out}")
endif()

# --record: what triage reads instead of its logs. Each case of a record, one "<VERDICT> <case>" line; a record it
# cannot read is exit 99 with nothing on stdout (triage then reruns every case of a mesh run in pairs).
file(WRITE ${WORK}/rec/two.json
  "{\"schema\":\"vmem-repro-run/1\",\"binary\":\"repro_cuda_vmm\",\"backend\":\"cuda\",\"verdict\":\"FAIL\","
  "\"cases\":[{\"case\":\"read\",\"verdict\":\"PASS\",\"ranks\":[]},{\"case\":\"set-access-hole\",\"verdict\":\"FAIL\",\"ranks\":[]}]}\n")
execute_process(COMMAND ${CHECK} --record ${WORK}/rec/two.json RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "PASS read\nFAIL set-access-hole\n")
  message(FATAL_ERROR "--record of a two-case record: exit ${rc}, '${out}'")
endif()
file(WRITE ${WORK}/rec/cut.json "{\"schema\":\"vmem-repro-run/1\",\"cases\":[{\"case\":\"read\",\"verd")
execute_process(COMMAND ${CHECK} --record ${WORK}/rec/cut.json RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 99 OR NOT out STREQUAL "" OR NOT err MATCHES "unreadable run record cut.json")
  message(FATAL_ERROR "--record of a truncated record: exit ${rc}, stdout '${out}', stderr '${err}'")
endif()
message("check_expected --record: each case's verdict; an unreadable record is exit 99")
