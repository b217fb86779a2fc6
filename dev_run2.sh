#!/usr/bin/env bash
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
git log --oneline -1 2>/dev/null
cmake -S . -B build -DVMR_ENABLE_HIP=OFF -DVMR_WERROR=ON > $OUT/cfg.log 2>&1 && cmake --build build -j16 > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
build/bin/repro_cuda_vmm --json $OUT/all.json | tail -2; echo rc=$?
grep -o '"compute_mode":"[^"]*"' $OUT/all.json | sort | uniq -c
build/bin/repro_cuda_vmm_access --case grant-owner-first --devices 0,0 | tail -1
build/bin/repro_cuda_vmm --case atomics --devices 0,0,0,0 | tail -1
ctest --test-dir build -L cuda -j2 > $OUT/ctest.log 2>&1; grep -E "tests passed|tests failed|Total Test time" $OUT/ctest.log
RESULTS_DIR=$OUT/triage ./scripts/triage > $OUT/triage.log 2>&1; echo triage rc=$?; tail -1 $OUT/triage.log
./scripts/health-check; echo hc rc=$?
compute-sanitizer --tool memcheck build/bin/repro_cuda_vmm --case read 2>&1 | grep -E "ERROR SUMMARY|VERDICT" | tail -2
cd $OUT && tar czf r.tgz *.json *.log && rm -rf triage
