# scripts/bug-report, section by section, on two fabricated results folders:
#  1. an AMD crash beside a SKIPped CUDA run: each ROCm issue-form section holds what belongs there (the crash and
#     its expectation in Problem Description, the failing command in Steps to Reproduce, the GPU facts under GPU,
#     the versions under ROCm Version, the rank's stderr line), and it is not a reference run;
#  2. an AMD run that only SKIPped: no AMD GPU ran, so the report says it is a reference run.
function(write_run dir file backend binary case verdict detail info stderr)
  file(WRITE ${dir}/${file}
    "{\"schema\":\"vmem-repro-run/1\",\"binary\":\"${binary}\",\"backend\":\"${backend}\",\"verdict\":\"${verdict}\","
    "\"environment\":{\"os\":\"test\"},\"options\":{\"ranks\":2,\"devices\":[0,1],\"device_source\":\"--devices\"},"
    "\"cases\":[{\"case\":\"${case}\",\"verdict\":\"${verdict}\",\"detail\":\"${detail}\",\"metrics\":{},"
    "\"ranks\":[{\"info\":{${info}},\"stderr_tail\":[]},{\"info\":{},\"stderr_tail\":[${stderr}]}]}]}\n")
endfunction()
# The folder's summary.json as a triage writes it (its one comparison, which bug-report reads and never makes again),
# validated against the published schema.
function(triage_summary dir)
  file(REMOVE ${dir}/summary.json)
  execute_process(COMMAND ${BUILD}/bin/check_expected --table ${TABLE} --results ${dir}
                          --summary-json ${dir}/summary.json
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(rc GREATER 1)
    message(FATAL_ERROR "check_expected could not make ${dir}/summary.json (exit ${rc}): ${err}")
  endif()
  execute_process(COMMAND /usr/bin/python3 ${SOURCE}/tests/validate_summary.py
                          ${SOURCE}/schemas/vmem-repro-summary-2.schema.json ${dir}/summary.json
                  RESULT_VARIABLE valid OUTPUT_VARIABLE why ERROR_VARIABLE why)
  if(NOT valid EQUAL 0)
    message(FATAL_ERROR "${dir}/summary.json does not follow the schema: ${why}")
  endif()
endfunction()
function(bug_report dir out_var)
  triage_summary(${dir})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env BUILD_DIR=${BUILD} ${SCRIPT} ${dir}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "bug-report exited ${rc}: ${err}")
  endif()
  file(READ ${dir}/bug-report.md report)
  set(${out_var} "${report}" PARENT_SCOPE)
endfunction()
# The text of section "### <title>" up to the next "### ".
function(section report title out_var)
  string(FIND "${report}" "### ${title}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "no section '### ${title}':\n${report}")
  endif()
  string(SUBSTRING "${report}" ${at} -1 rest)
  string(LENGTH "### ${title}\n" skip)
  string(SUBSTRING "${rest}" ${skip} -1 rest)
  string(FIND "${rest}" "\n### " end)
  if(NOT end EQUAL -1)
    string(SUBSTRING "${rest}" 0 ${end} rest)
  endif()
  set(${out_var} "${rest}" PARENT_SCOPE)
endfunction()
function(expect_in report title text)
  section("${report}" "${title}" body)
  string(FIND "${body}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "section '${title}' lacks '${text}':\n${body}")
  endif()
endfunction()

# The commands name this run's BUILD_DIR as the reader types it in the checkout: relative where it is inside it.
string(FIND "${BUILD}" "${SOURCE}/" at_source)
set(bin ${BUILD}/bin)
if(at_source EQUAL 0)
  string(LENGTH "${SOURCE}/" skip)
  string(SUBSTRING "${BUILD}/bin" ${skip} -1 bin)
endif()

set(a ${WORK}/amd-crash)
file(REMOVE_RECURSE ${a})
file(MAKE_DIRECTORY ${a})
set(fault "Memory access fault by GPU node-3 (Agent handle: 0x1) on address 0x7f00. Reason: Page not present or supervisor privilege.")
write_run(${a} repro_hip_vmem_pinned.atomics.0-1.json hip repro_hip_vmem_pinned atomics CRASH
          "rank 1 (pid 7) killed by SIGABRT (Aborted); last stderr: ${fault}"
          "\"device\":\"0\",\"gfx_arch\":\"gfx942\",\"uuid\":\"GPU-aaaa\",\"hip_version\":\"6.4.43483\",\"rocm_release\":\"6.4.1\""
          "\"${fault}\"")
write_run(${a} repro_cuda_vmm.read.json cuda repro_cuda_vmm read SKIP "rank 0: no NVIDIA driver" "" "")
bug_report(${a} report)
foreach(title "Problem Description" "Operating System" "CPU" "GPU" "ROCm Version" "ROCm Component"
              "Steps to Reproduce" "(Optional for Linux users) Output of /opt/rocm/bin/rocminfo --support"
              "Additional Information")
  section("${report}" "${title}" body)
endforeach()
expect_in("${report}" "Problem Description" "repro_hip_vmem_pinned.atomics on GPU pair 0-1: CRASH (expected CRASH/FAIL/PASS")
expect_in("${report}" "Problem Description" "rank 1, last stderr lines:")
expect_in("${report}" "Problem Description"
          "Known regression this points to: [iris#418](https://github.com/ROCm/iris/issues/418)")
expect_in("${report}" "Problem Description" "${fault}")
# The headline's counts come from the comparison's summary.json (check_expected --counts), never from a line of its
# console text (which ends in the thread lines here).
if(NOT report MATCHES "Summary against the suite's expected verdicts: 1 OK, 0 CHANGED, [0-9]+ not run, 0 table problems\n")
  message(FATAL_ERROR "the report's headline does not carry the summary's counts:\n${report}")
endif()
expect_in("${report}" "Steps to Reproduce" "\n${bin}/repro_hip_vmem_pinned --case atomics --devices 0,1\n")
# The minimal file first, inline, with its build and run lines for the GPUs that failed and what the suite observed.
expect_in("${report}" "Steps to Reproduce" "#### 1. repro_hip_vmem_pinned.atomics: CRASH (expected CRASH/FAIL/PASS \\~Memory access fault")
expect_in("${report}" "Steps to Reproduce" "Its minimal reproducer, `hip_vmem_atomics.hip`")
expect_in("${report}" "Steps to Reproduce"
          "```sh\nhipcc -O2 -std=c++17 -o hip_vmem_atomics hip_vmem_atomics.hip\n./hip_vmem_atomics 0 1\n```")
file(READ ${SOURCE}/repro/minimal/hip_vmem_atomics.hip minimal_text)
expect_in("${report}" "Steps to Reproduce" "```hip\n${minimal_text}```")
expect_in("${report}" "Steps to Reproduce"
          "Observed, in the suite's run of repro_hip_vmem_pinned.atomics on GPUs 0,1 (the minimal file was not run: --run-minimal runs it)")
expect_in("${report}" "Steps to Reproduce" "```\nVERDICT: CRASH repro_hip_vmem_pinned.atomics rank 1 (pid 7) killed by SIGABRT")
section("${report}" "Steps to Reproduce" steps)
# Every heading stands after a blank line, as the ROCm issue form's own sections do (the Steps' last fence once ran
# straight into the next heading).
# (up to the collapsed environment, a fenced copy of collect-env's own Markdown)
string(FIND "${report}" "<details>" at_details)
string(SUBSTRING "${report}" 0 ${at_details} above_details)
if(above_details MATCHES "[^\n]\n#+ ")
  string(REGEX MATCH "[^\n]+\n#+ [^\n]*" squeezed "${above_details}")
  message(FATAL_ERROR "a heading without a blank line before it:\n${squeezed}")
endif()
string(FIND "${steps}" "#### 1. " at_minimal)
string(FIND "${steps}" "#### The full suite" at_suite)
if(at_suite LESS at_minimal)
  message(FATAL_ERROR "the minimal file is the first way to reproduce, the full suite the second:\n${steps}")
endif()
expect_in("${report}" "GPU" "gfx_arch=gfx942")
expect_in("${report}" "ROCm Version" "- rocm_release: 6.4.1")
expect_in("${report}" "ROCm Version" "- hip_version: 6.4.43483")
expect_in("${report}" "Additional Information" "repro_cuda_vmm.read")
if(report MATCHES "Reference run")
  message(FATAL_ERROR "a node where an AMD GPU ran is not a reference run:\n${report}")
endif()

set(b ${WORK}/amd-skipped)
file(REMOVE_RECURSE ${b})
file(MAKE_DIRECTORY ${b})
write_run(${b} repro_hip_vmem_pinned.read.json hip repro_hip_vmem_pinned read SKIP
          "rank 0: hipGetDeviceCount returned hipErrorNoDevice" "" "")
write_run(${b} repro_host_shm.read.json host repro_host_shm read PASS "read exactly" "" "")
bug_report(${b} report)
expect_in("${report}" "Problem Description" "**Reference run:** no GPU ran here")
expect_in("${report}" "ROCm Version" "Not applicable: no ROCm run on this node.")
section("${report}" "Steps to Reproduce" steps)
if(steps MATCHES "/bin/repro_")
  message(FATAL_ERROR "nothing failed, yet Steps to Reproduce names a failing command:\n${steps}")
endif()
# The triage's console summary of the same folder names the thread the crash points to.
execute_process(COMMAND ${BUILD}/bin/check_expected --table ${TABLE} --results ${a} OUTPUT_VARIABLE summary
                RESULT_VARIABLE rc)
string(FIND "${summary}" "known regressions these rows point to:\n  repro_hip_vmem_pinned.atomics 0-1: CRASH -> iris#418\n"
       at)
if(at EQUAL -1)
  message(FATAL_ERROR "check_expected's summary does not name the crash's thread (exit ${rc}):\n${summary}")
endif()
message("bug-report: every section holds what belongs there; a SKIPped AMD run is not an AMD run")

# 3. A CUDA node where a case PASSes that the table expects to FAIL: that unexpected PASS is a difference, listed
#    with its command under Steps to Reproduce; the CUDA run makes it a CUDA reference run, not "no GPU ran"; and the
#    report is redacted by default (home folders, the host's name), not with --no-redact.
cmake_host_system_information(RESULT host QUERY HOSTNAME)
set(c ${WORK}/cuda-unexpected-pass)
file(REMOVE_RECURSE ${c})
file(MAKE_DIRECTORY ${c})
write_run(${c} repro_cuda_vmm.set-access-hole.0-1.json cuda repro_cuda_vmm set-access-hole PASS
          "both blocks beside the hole read back exactly in /home/alice/vmr on ${host}" "\"device\":\"0\"" "")
bug_report(${c} report)
expect_in("${report}" "Problem Description" "**Reference run:** no AMD GPU ran here; these are the same VMem scenarios through the CUDA driver API")
expect_in("${report}" "Problem Description" "repro_cuda_vmm.set-access-hole on GPU pair 0-1: PASS (expected FAIL")
expect_in("${report}" "Steps to Reproduce" "\n${bin}/repro_cuda_vmm --case set-access-hole --devices 0,1\n")
if(report MATCHES "Every case that ran passed")
  message(FATAL_ERROR "an unexpected PASS is a difference, yet the report says every case passed:\n${report}")
endif()
string(FIND "${report}" "/home/alice" at_home)
string(FIND "${report}" "vmr on ${host}" at_host)  # the host's name as planted (it may be a part of other words)
if(NOT at_home EQUAL -1 OR NOT at_host EQUAL -1)
  message(FATAL_ERROR "the default report must redact home folders and the host name (${host}):\n${report}")
endif()
expect_in("${report}" "Problem Description" "/home/{user}/vmr on {host}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env BUILD_DIR=${BUILD} ${SCRIPT} --no-redact ${c} RESULT_VARIABLE rc
                OUTPUT_QUIET ERROR_VARIABLE err)
file(READ ${c}/bug-report.md raw)
string(FIND "${raw}" "/home/alice/vmr on ${host}" at_raw)
if(NOT rc EQUAL 0 OR at_raw EQUAL -1)
  message(FATAL_ERROR "--no-redact must keep everything (exit ${rc}, ${err}):\n${raw}")
endif()
message("bug-report: an unexpected PASS is listed with its command; a CUDA run is a CUDA reference run; redacted by default")

# 4. One triage record holds every case of a launch: one SKIPped case beside a PASS does not make the node a reference
#    run. The ROCm versions come from the parsed records: another JSON writer's \u escapes are decoded, a byte
#    that is not UTF-8 reaches the report as U+FFFD, never raw, and a newline cannot start a section of its own.
set(d ${WORK}/amd-multi-case)
file(REMOVE_RECURSE ${d})
file(MAKE_DIRECTORY ${d})
string(ASCII 255 not_utf8)
file(WRITE ${d}/repro_hsa_fine_grained.0-1.json
  "{\"schema\":\"vmem-repro-run/1\",\"binary\":\"repro_hsa_fine_grained\",\"backend\":\"hsa\",\"verdict\":\"PASS\","
  "\"environment\":{\"os\":\"test\"},\"options\":{\"ranks\":2,\"devices\":[0,1],\"device_source\":\"--devices\"},"
  "\"cases\":[{\"case\":\"read\",\"verdict\":\"PASS\",\"detail\":\"read exactly\",\"metrics\":{},"
  "\"ranks\":[{\"info\":{\"rocm_release\":\"7.2.4\",\"rocm_install\":\"7.2.4-caf\\u00e9${not_utf8}\\n### Forged\"},\"stderr_tail\":[]}]},"
  "{\"case\":\"atomics-ext-fine\",\"verdict\":\"SKIP\",\"detail\":\"rank 0: no extended fine-grained pool\",\"metrics\":{},"
  "\"ranks\":[{\"info\":{},\"stderr_tail\":[]}]}]}\n")
bug_report(${d} report)
if(report MATCHES "Reference run")
  message(FATAL_ERROR "a record whose read case PASSed on an AMD GPU is not a reference run:\n${report}")
endif()
expect_in("${report}" "ROCm Version" "- rocm_release: 7.2.4")
expect_in("${report}" "ROCm Version" "- rocm_install: 7.2.4-café�\\\\x0a\\#")  # (the newline as text, escaped)
if(report MATCHES "\n### Forged")
  message(FATAL_ERROR "a newline in a version fact forged a section of bug-report.md:\n${report}")
endif()
string(FIND "${report}" "${not_utf8}" at_raw_byte)
if(NOT at_raw_byte EQUAL -1)
  message(FATAL_ERROR "a byte that is not UTF-8 reached bug-report.md raw:\n${report}")
endif()
message("bug-report: one SKIPped case of a record does not hide the AMD run; versions decoded, invalid UTF-8 replaced")

# 5. Exit codes: a report it cannot write (bug-report.md is a folder here) is 99 naming it, never its path as if
#    written; a folder without triage results is 99 too.
file(REMOVE ${d}/bug-report.md)
file(MAKE_DIRECTORY ${d}/bug-report.md)
execute_process(COMMAND ${CMAKE_COMMAND} -E env BUILD_DIR=${BUILD} ${SCRIPT} ${d} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 99 OR NOT err MATCHES "cannot write ${d}/bug-report.md" OR out MATCHES "bug-report.md")
  message(FATAL_ERROR "an unwritable report: exit ${rc}, stdout '${out}', stderr '${err}' (want 99 naming it)")
endif()
file(MAKE_DIRECTORY ${WORK}/empty)
execute_process(COMMAND ${CMAKE_COMMAND} -E env BUILD_DIR=${BUILD} ${SCRIPT} ${WORK}/empty RESULT_VARIABLE rc
                OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 99 OR NOT err MATCHES "no triage results")
  message(FATAL_ERROR "a folder without results: exit ${rc}, stderr '${err}' (want 99)")
endif()
message("bug-report: an unwritable report and missing results are exit 99, named")
# Without a folder it takes the newest finished triage of RESULTS_ROOT, a path with a space in it too (split on
# blanks, its first word was taken: "no triage results in .../results"); a newer one still INCOMPLETE is passed over.
set(root "${WORK}/results root")
file(REMOVE_RECURSE "${root}")
file(MAKE_DIRECTORY "${root}/20260101T000000Z" "${root}/20260102T000000Z" "${root}/20260103T000000Z")
file(COPY ${a}/ DESTINATION "${root}/20260102T000000Z")
file(REMOVE "${root}/20260102T000000Z/bug-report.md")
file(WRITE "${root}/20260103T000000Z/INCOMPLETE" "interrupted\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E env BUILD_DIR=${BUILD} "RESULTS_ROOT=${root}" ${SCRIPT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "${root}/20260102T000000Z/bug-report.md\n")
  message(FATAL_ERROR "the newest finished triage of a RESULTS_ROOT with a space: exit ${rc}, stdout '${out}', "
                      "stderr '${err}'")
endif()
message("bug-report: the newest finished triage of a RESULTS_ROOT with a space in it")

# 6. A triage where a case failed on this very host (VMR_FORCE_FAIL), reported with --run-minimal --attach: the
#    minimal file of the case runs here and its own output is quoted (it PASSes: the failure was forced in the suite
#    only); the variant of a case is built with its -D; a case with no minimal file says so; --attach writes the
#    report, each minimal file and its output beside each other; a bad command line is 2 before anything is read.
set(h ${WORK}/host-forced)
file(REMOVE_RECURSE ${h})
file(MAKE_DIRECTORY ${h})
execute_process(COMMAND ${CMAKE_COMMAND} -E env VMR_FORCE_FAIL=repro_host_shm.atomics ${BUILD}/bin/repro_host_shm
                        --case atomics --json ${h}/repro_host_shm.json RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "VMR_FORCE_FAIL=repro_host_shm.atomics: exit ${rc}, want 1 (FAIL)")
endif()
write_run(${h} repro_hip_vmem_uncached.atomics.0-1.json hip repro_hip_vmem_uncached atomics FAIL
          "rank 1: system-scope atomics: counter 3 holds 17" "\"device\":\"0\",\"rocm_release\":\"7.0.2\"" "")
write_run(${h} repro_hip_vmem_pinned.read.0-1.json hip repro_hip_vmem_pinned read FAIL "rank 1: words differ" "" "")
triage_summary(${h})
execute_process(COMMAND ${CMAKE_COMMAND} -E env BUILD_DIR=${BUILD} ${SCRIPT} --run-minimal --attach ${h}/attach ${h}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "attached in ${h}/attach: ")
  message(FATAL_ERROR "bug-report --run-minimal --attach exited ${rc}: ${out} ${err}")
endif()
file(READ ${h}/bug-report.md report)
expect_in("${report}" "Steps to Reproduce" "repro_host_shm.atomics: FAIL (expected PASS)")
expect_in("${report}" "Steps to Reproduce" "g++ -O2 -std=c++17 -o host_shm_atomics host_shm_atomics.cpp")
expect_in("${report}" "Steps to Reproduce" "Observed, running it on this node (exit 0):")
expect_in("${report}" "Steps to Reproduce" "VERDICT: PASS host_shm_atomics")
expect_in("${report}" "Steps to Reproduce" "**The minimal file gave PASS here where the suite's case gave FAIL:**")
expect_in("${report}" "Steps to Reproduce" "hipcc -DUNCACHED -O2 -std=c++17 -o hip_vmem_atomics hip_vmem_atomics.hip\n./hip_vmem_atomics 0 1")
expect_in("${report}" "Steps to Reproduce" "(the variant built with -DUNCACHED is this case)")
expect_in("${report}" "Steps to Reproduce"
          "repro_hip_vmem_pinned.read: FAIL (expected PASS)\n\nNo minimal reproducer covers this case yet")
file(READ ${h}/attach/bug-report.md attached)
file(READ ${SOURCE}/repro/minimal/host_shm_atomics.cpp host_minimal)
file(READ ${h}/attach/host_shm_atomics.cpp host_attached)
file(READ ${h}/attach/host_shm_atomics.out host_out)
if(NOT attached STREQUAL report OR NOT host_attached STREQUAL host_minimal OR NOT host_out MATCHES "VERDICT: PASS"
   OR NOT EXISTS ${h}/attach/hip_vmem_atomics.hip)
  message(FATAL_ERROR "--attach: the report, each minimal file and its output belong beside each other in ${h}/attach")
endif()
# (--attach followed by an option is a forgotten folder, never a folder named --run-minimal)
foreach(bad "--attach" "--frobnicate" "${h} ${h}" "--attach --run-minimal ${h}")
  separate_arguments(bad_args UNIX_COMMAND "${bad}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env BUILD_DIR=${BUILD} ${SCRIPT} ${bad_args} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err WORKING_DIRECTORY ${WORK})
  if(NOT rc EQUAL 2 OR NOT err MATCHES "scripts/bug-report: ")
    message(FATAL_ERROR "bug-report ${bad}: exit ${rc} (want 2 with one line): ${out} ${err}")
  endif()
endforeach()
message("bug-report: a failed host case carries its minimal file, run here (${host_out}); attached beside the report")

# 7. The full suite's commands run as printed: the clone line names the checkout's origin without the credentials
#    its URL holds (a local folder is no address for a reader: a placeholder to fill in, said so), and the build
#    commands name this run's BUILD_DIR (outside the checkout: its whole path). The checkout is a stand-in root
#    whose scripts/ is this one's.
set(root ${WORK}/origin-root)
file(REMOVE_RECURSE ${root})
file(MAKE_DIRECTORY ${root})
foreach(link scripts expected repro)
  file(CREATE_LINK ${SOURCE}/${link} ${root}/${link} SYMBOLIC)
endforeach()
execute_process(COMMAND git init -q ${root} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "git init ${root} failed")
endif()
function(suite_commands origin out_var)
  execute_process(COMMAND git -C ${root} remote remove origin OUTPUT_QUIET ERROR_QUIET)
  if(origin)
    execute_process(COMMAND git -C ${root} remote add origin ${origin})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env BUILD_DIR=${BUILD} ${root}/scripts/bug-report --no-redact ${a}
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  file(READ ${a}/bug-report.md report)
  string(FIND "${report}" "#### The full suite" at)
  if(NOT rc EQUAL 0 OR at EQUAL -1)
    message(FATAL_ERROR "bug-report with origin '${origin}': exit ${rc}: ${err}")
  endif()
  string(SUBSTRING "${report}" ${at} -1 suite)
  set(${out_var} "${suite}" PARENT_SCOPE)
endfunction()
suite_commands("https://alice:s3cret@example.org/team/vmem-repro.git" suite)
foreach(want "\ngit clone https://example.org/team/vmem-repro.git vmem-repro && cd vmem-repro\n"
             "\nBUILD_DIR=${BUILD} ./scripts/test " "\nBUILD_DIR=${BUILD} ./scripts/triage "
             "\n${BUILD}/bin/repro_hip_vmem_pinned --case atomics --devices 0,1\n")
  string(FIND "${suite}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the full suite's commands lack '${want}':\n${suite}")
  endif()
endforeach()
if(suite MATCHES "s3cret|alice|<vmem-repro>")
  message(FATAL_ERROR "the clone line carries the origin's credentials or no address:\n${suite}")
endif()
suite_commands("git@example.org:team/vmem-repro.git" suite)
string(FIND "${suite}" "\ngit clone git@example.org:team/vmem-repro.git vmem-repro && cd vmem-repro\n" at)
if(at EQUAL -1)
  message(FATAL_ERROR "an scp-like origin is an address too:\n${suite}")
endif()
foreach(local_origin "${SOURCE}" "")
  suite_commands("${local_origin}" suite)
  string(FIND "${suite}" "\nVMEM_REPRO_URL=FILL-IN  # where you got vmem-repro: " at_fill)
  string(FIND "${suite}" "\ngit clone \"$VMEM_REPRO_URL\" vmem-repro && cd vmem-repro\n" at_clone)
  if(at_fill EQUAL -1 OR at_clone EQUAL -1 OR suite MATCHES "git clone ${SOURCE}")
    message(FATAL_ERROR "origin '${local_origin}' is no reader's address: want the placeholder to fill in:\n${suite}")
  endif()
endforeach()
message("bug-report: the suite's commands name the origin without credentials (or a placeholder) and the BUILD_DIR")

# 8. One case failing on several GPU pairs (CRASH on 0->1, PASS on 0->2, FAIL on 1->2 and 2->0) beside two more
#    failing cases (one of the same binary, on 1->0): the case is one step of Steps to Reproduce, headed by its first
#    failing pair's verdict, its minimal file run on that pair (owner first), its other failing pairs named in the
#    order the triage ran them (not another case's, not the passing one); every failing pair is listed with its
#    verdict and command; the next cases are steps 2 and 3.
function(write_pair_run dir binary case pair verdict detail)
  string(REPLACE "-" "," devices "${pair}")
  file(WRITE ${dir}/${binary}.${case}.${pair}.json
    "{\"schema\":\"vmem-repro-run/1\",\"binary\":\"${binary}\",\"backend\":\"hip\",\"verdict\":\"${verdict}\","
    "\"environment\":{\"os\":\"test\"},\"options\":{\"ranks\":2,\"devices\":[${devices}],\"device_source\":\"--devices\"},"
    "\"cases\":[{\"case\":\"${case}\",\"verdict\":\"${verdict}\",\"detail\":\"${detail}\",\"metrics\":{},"
    "\"ranks\":[{\"info\":{},\"stderr_tail\":[]},{\"info\":{},\"stderr_tail\":[]}]}]}\n")
endfunction()
set(m ${WORK}/several-pairs)
file(REMOVE_RECURSE ${m})
file(MAKE_DIRECTORY ${m})
write_pair_run(${m} repro_hip_vmem_pinned atomics 0-1 CRASH "rank 1 (pid 9) killed by SIGABRT; last stderr: ${fault}")
write_pair_run(${m} repro_hip_vmem_pinned atomics 0-2 PASS "64 counters exact")
write_pair_run(${m} repro_hip_vmem_pinned atomics 1-2 FAIL "rank 1: system-scope atomics: counter 3 holds 17")
write_pair_run(${m} repro_hip_vmem_pinned atomics 2-0 FAIL "rank 1: system-scope atomics: counter 5 holds 12")
write_pair_run(${m} repro_hip_vmem_pinned read 1-0 FAIL "rank 1: 12 words differ")
write_pair_run(${m} repro_hip_vmem_uncached atomics 1-2 FAIL "rank 1: system-scope atomics: counter 1 holds 2")
bug_report(${m} report)
section("${report}" "Steps to Reproduce" steps)
string(FIND "${steps}" "#### The full suite" at_suite)
string(SUBSTRING "${steps}" 0 ${at_suite} minimal_steps)
string(SUBSTRING "${steps}" ${at_suite} -1 suite_steps)
string(REGEX MATCHALL "\n#### [^\n]*" headings "\n${minimal_steps}")
# (the table's ~ reasons arrive escaped for Markdown, as \~: md_text)
set(want_headings
    "\n#### 1. repro_hip_vmem_pinned.atomics: CRASH (expected CRASH/FAIL/PASS \\~Memory access fault \\~GPU memory access fault \\~aborting with error \\~system-scope atomics: \\~hipErrorIllegalAddress \\~hipErrorLaunchFailure)"
    "\n#### 2. repro_hip_vmem_pinned.read: FAIL (expected PASS)"
    "\n#### 3. repro_hip_vmem_uncached.atomics: FAIL (expected CRASH/FAIL/PASS \\~Memory access fault \\~GPU memory access fault \\~aborting with error \\~system-scope atomics: \\~hipErrorIllegalAddress \\~hipErrorLaunchFailure)")
if(NOT headings STREQUAL want_headings)
  message(FATAL_ERROR "one step per failing case, headed by its first failing pair's verdict; got:\n${headings}")
endif()
# Step 1 alone: from its heading to step 2's; step 3 from its heading on.
string(FIND "${minimal_steps}" "#### 2. " at_second)
string(FIND "${minimal_steps}" "#### 3. " at_third)
string(SUBSTRING "${minimal_steps}" 0 ${at_second} first_step)
string(SUBSTRING "${minimal_steps}" ${at_third} -1 third_step)
foreach(want "```sh\nhipcc -O2 -std=c++17 -o hip_vmem_atomics hip_vmem_atomics.hip\n./hip_vmem_atomics 0 1\n```"
             "Observed, in the suite's run of repro_hip_vmem_pinned.atomics on GPUs 0,1 (the minimal file"
             "```\nVERDICT: CRASH repro_hip_vmem_pinned.atomics rank 1 (pid 9) killed by SIGABRT"
             "\nIt also failed on GPUs: 1,2 2,0.\n")
  string(FIND "${first_step}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "step 1 (the case failing on 0-1, 1-2 and 2-0) lacks '${want}':\n${first_step}")
  endif()
endforeach()
# (the minimal file's own text aside: its code may hold any of these)
file(READ ${SOURCE}/repro/minimal/hip_vmem_atomics.hip atomics_file)
string(REPLACE "${atomics_file}" "" first_step_prose "${first_step}")
if(first_step_prose MATCHES "0,2|0 2|1,0|counter 3 holds|counter 5 holds")
  message(FATAL_ERROR "step 1 names the passing pair 0-2 or another case's, or quotes another run than 0-1's:\n${first_step_prose}")
endif()
foreach(want "./hip_vmem_atomics 1 2\n" "VERDICT: FAIL repro_hip_vmem_uncached.atomics rank 1: system-scope atomics: counter 1")
  string(FIND "${third_step}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "step 3 (the uncached case on 1-2 only) lacks '${want}':\n${third_step}")
  endif()
endforeach()
if(third_step MATCHES "It also failed")
  message(FATAL_ERROR "step 3 failed on one pair only, yet names others:\n${third_step}")
endif()
# Every failing pair with its verdict and its command; the passing one with neither.
foreach(want "repro_hip_vmem_pinned.atomics on GPU pair 0-1: CRASH (expected"
             "repro_hip_vmem_pinned.atomics on GPU pair 1-2: FAIL (expected"
             "repro_hip_vmem_pinned.atomics on GPU pair 2-0: FAIL (expected")
  expect_in("${report}" "Problem Description" "${want}")
endforeach()
section("${report}" "Problem Description" problem)
if(problem MATCHES "pair 0-2")
  message(FATAL_ERROR "the pair that passed is listed as a failure:\n${problem}")
endif()
string(REGEX MATCHALL "\n[^\n]*/bin/repro_[^\n]*" commands "${suite_steps}")
set(want_commands "\n${bin}/repro_hip_vmem_pinned --case atomics --devices 0,1"
    "\n${bin}/repro_hip_vmem_pinned --case atomics --devices 1,2"
    "\n${bin}/repro_hip_vmem_pinned --case atomics --devices 2,0"
    "\n${bin}/repro_hip_vmem_pinned --case read --devices 1,0"
    "\n${bin}/repro_hip_vmem_uncached --case atomics --devices 1,2")
if(NOT commands STREQUAL want_commands)
  message(FATAL_ERROR "the full suite's commands: one per failing run, in order; got:\n${commands}")
endif()
message("bug-report: a case failing on several pairs is one step on its first pair, the others named, the PASS nowhere")

# 9. A case name from a record is text, never a program: a failing case named as a sed script with GNU sed's e flag
#    (a record planted in a results folder that root, or a maintainer, reports on) runs nothing; its step says no
#    minimal file covers it.
set(s ${WORK}/sed-name)
file(REMOVE_RECURSE ${s})
file(MAKE_DIRECTORY ${s})
file(REMOVE ${WORK}/sed-ran)
write_run(${s} repro_hip_vmem_uncached.json hip repro_hip_vmem_uncached "atomics|touch ${WORK}/sed-ran|e#" FAIL
          "rank 1: system-scope atomics: counter 1 holds 2" "" "")
bug_report(${s} report)
if(EXISTS ${WORK}/sed-ran)
  message(FATAL_ERROR "bug-report ran a command a record's case name held (${WORK}/sed-ran was made)")
endif()
expect_in("${report}" "Steps to Reproduce" "atomics\\|touch")
expect_in("${report}" "Steps to Reproduce" "No minimal reproducer covers this case yet")
message("bug-report: a case name is text, never a program run")
