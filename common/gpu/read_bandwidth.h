// A read case's bandwidth figures, one definition for every backend: a kernel reading the source rank's mapping
// (the best of a few grid sizes) and a copy of the whole mapping by the backend's copy path, each rank in its turn so
// that no other rank's traffic shares the link (each figure is one direction's: harness/read_direction.h). The
// metrics keep the names and units repro/cuda_vmm.cu's read case gave them first (peer_read_kernel_GBps,
// peer_read_copy_GBps in GB/s, kernel_over_copy_bandwidth as a ratio), so the matrix, the summary and Prometheus
// show every backend's in the same cells. The backend passes its copy (amd/hip_read_bandwidth.h for HIP); a copy
// that fails or leaves other bytes than the source's gives no copy figure and a fact saying why, never a verdict:
// the read case's verdict is the read, not the measurement.
#pragma once

#include <functional>
#include <string>

#include "gpu/gpu_host.h"
#include "gpu/read_metrics.h"
#include "harness/rank_context.h"
#include "harness/read_direction.h"
#include "harness/text.h"

namespace vmr_gpu {

namespace {  // internal linkage, as gpu_host.h

struct ReadBandwidth {
  size_t bytes = 0;
  double kernel_s = 0;  // the best time of one k_checksum over the whole source
  int kernel_blocks = 0;
  std::string copy_path;  // what copied, as the backend names it ("hipMemcpy(DeviceToDeviceNoCU): ...")
  double copy_s = 0;      // the best time of one copy of the whole source; 0 where there is no copy figure
  std::string no_copy;    // why there is no copy figure, empty where there is one
};

// One copy of the whole source into `into` (a plain device buffer of the same size); the backend's call, failed or
// not, in the Status.
using CopyOnce = std::function<Status(const Span& from, const Span& into)>;

inline Status compute_units(int device, int* units) {
#if defined(__HIP__) || defined(__HIPCC__)
  return gpu_check("hipDeviceGetAttribute",
                   hipDeviceGetAttribute(units, hipDeviceAttributeMultiprocessorCount, device));
#else
  return gpu_check("cudaDeviceGetAttribute", cudaDeviceGetAttribute(units, cudaDevAttrMultiProcessorCount, device));
#endif
}

// Times the reads of `src` (rank read_source_rank's mapping in this process) in turns; every rank calls it, since
// the turns are barriers. `copy` may be empty: no copy figure, `no_copy_reason` saying why.
inline Status measure_peer_read(vmr::RankContext& ctx, const Span& src, const std::string& copy_path,
                                const CopyOnce& copy, const std::string& no_copy_reason, ReadBandwidth* out) {
  *out = {};
  out->bytes = src.words * sizeof(u64);
  out->copy_path = copy_path;
  VMR_TRY(guard(src, 0, src.words & ~size_t(1), "k_checksum (bandwidth)"));
  int units = 0;
  VMR_TRY(compute_units(ctx.device(), &units));
  DeviceBuffer<u64> local, cell;
  VMR_TRY(local.alloc(src.words));
  VMR_TRY(cell.alloc(1));
  const Span into{local.p, src.words};
  out->kernel_s = 1e30;
  for (int turn = 0; turn < ctx.ranks(); ++turn) {
    if (turn == ctx.rank()) {
      for (int per_unit : {1, 2, 4, 8}) {
        double t = 0;
        VMR_TRY(time_best(
            5,
            [&] {
              forget_stale_error();
              k_checksum<<<units * per_unit, kThreads>>>(reinterpret_cast<const ulonglong2*>(src.p), src.words / 2,
                                                         cell.p);
              return gpu_check("k_checksum (bandwidth)", VMR_GPU(GetLastError)());
            },
            &t));
        if (t < out->kernel_s) out->kernel_s = t, out->kernel_blocks = units * per_unit;
      }
      if (!copy) {
        out->no_copy = no_copy_reason;
      } else {
        const Status copied = time_best(
            5, [&] { return copy(src, into); }, &out->copy_s);
        forget_stale_error();  // a failed copy is this figure's, never the next call's
        u64 want = 0, got = 0;
        const Status source_sum = copied.ok() ? checksum(src, &want) : copied;
        const Status copy_sum = source_sum.ok() ? checksum(into, &got) : source_sum;
        if (!copy_sum.ok())
          out->no_copy = copy_sum.detail;
        else if (got != want)
          out->no_copy = "the copy left a checksum of " + std::to_string(got) + " where the source's is " +
                         std::to_string(want) + ": its time measures no real copy";
        if (!out->no_copy.empty()) out->copy_s = 0;
      }
    }
    VMR_TRY(ctx.mesh().barrier("bandwidth-turn-" + std::to_string(turn)));
  }
  return Status::pass();
}

// Every rank's figures as facts, each with its direction (the other direction of a pair is in rank 0's facts), and
// the case's metrics from kBandwidthRank only: the data moving from devices[0] to devices[1].
inline void report_read_bandwidth(vmr::RankContext& ctx, const ReadBandwidth& bw) {
  const bool have_copy = bw.no_copy.empty() && bw.copy_s > 0;
  const std::vector<vmr::Metric> m = read_bandwidth_metrics(bw.bytes, bw.kernel_s, have_copy ? bw.copy_s : 0);
  ctx.info("peer_read_kernel_grid",
           std::to_string(bw.kernel_blocks) + " blocks x " + std::to_string(kThreads) + " threads");
  ctx.info("read_direction", vmr::read_direction(ctx.rank(), ctx.devices(), true));
  ctx.info("peer_read_copy_path", bw.copy_path);
  ctx.info("peer_read_GBps", "kernel " + vmr::format_double(m[0].value) + ", copy " +
                                 (have_copy ? vmr::format_double(m[1].value) : "none (" + bw.no_copy + ")"));
  if (ctx.rank() != vmr::kBandwidthRank) return;
  for (const vmr::Metric& one : m) ctx.metric(one.name, one.value, one.unit);
}

}  // namespace
}  // namespace vmr_gpu
