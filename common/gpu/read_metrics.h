// The read cases' bandwidth metrics, named and given their units once: the names and units repro/cuda_vmm.cu's read
// case reported first, which the triage's matrix, summary.json and the Prometheus textfile read (tools/prom.cpp
// exports a metric in GB/s as a bandwidth). Plain C++, so the unit tests check them on the CPU
// (ReadMetrics.EveryBackendsNamesAndUnits); gpu/read_bandwidth.h reports them for every backend.
#pragma once

#include <cstddef>
#include <vector>

#include "harness/rank_record.h"

namespace vmr_gpu {

// `bytes` read in the best `kernel_s` by a kernel and in the best `copy_s` by the copy path (0: no copy figure).
inline std::vector<vmr::Metric> read_bandwidth_metrics(size_t bytes, double kernel_s, double copy_s) {
  std::vector<vmr::Metric> m;
  m.push_back({"peer_read_kernel_GBps", double(bytes) / kernel_s / 1e9, "GB/s"});
  if (copy_s <= 0) return m;
  m.push_back({"peer_read_copy_GBps", double(bytes) / copy_s / 1e9, "GB/s"});
  m.push_back({"kernel_over_copy_bandwidth", copy_s / kernel_s, "ratio"});
  return m;
}

}  // namespace vmr_gpu
