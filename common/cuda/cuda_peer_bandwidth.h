// The read cases' bandwidth figures, one measurement for every CUDA read case (VMem and legacy IPC alike): a kernel
// reading the source rank's memory (best of a few grid sizes) and the copy engine (cuMemcpyDtoD) on the same buffer
// in the same run, one rank at a time, so that no other rank's traffic shares the link and each figure is one
// direction's (harness/read_direction.h: rank 1 reads rank 0's, data moving from the exporter's GPU to the
// importer's). Every rank reports its own figures with their direction as facts; rank kBandwidthRank's are the
// case's metrics peer_read_kernel_GBps, peer_read_copy_GBps and kernel_over_copy_bandwidth.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "cuda/cuda_api.h"
#include "gpu/gpu_host.h"
#include "harness/read_direction.h"
#include "harness/text.h"

namespace vmr_cuda {

// `peers[j]`: rank j's memory as this rank maps it (empty for itself), each `size` bytes. Needs `size` bytes of
// this rank's device memory for the copy's destination.
inline Status peer_read_bandwidth(vmr::RankContext& ctx, const std::vector<vmr_gpu::Span>& peers, size_t size) {
  using namespace vmr_gpu;
  const size_t n = size / sizeof(u64);
  const int source = vmr::read_source_rank(ctx.rank(), ctx.ranks());
  DeviceBuffer<u64> local, cell;
  VMR_TRY(local.alloc(n));
  VMR_TRY(cell.alloc(1));
  const Span src = peers[source];
  VMR_TRY(guard(src, 0, n, "k_checksum (bandwidth)"));
  int sms = 0;
  VMR_GPU_TRY(cudaDeviceGetAttribute, &sms, cudaDevAttrMultiProcessorCount, ctx.device());
  double kernel_s = 1e30, copy_s = 0;
  int best_blocks = 0;
  for (int turn = 0; turn < ctx.ranks(); ++turn) {
    if (turn == ctx.rank()) {
      for (int per_sm : {1, 2, 4, 8}) {
        double t = 0;
        VMR_TRY(time_best(
            5,
            [&] {
              k_checksum<<<sms * per_sm, kThreads>>>(reinterpret_cast<const ulonglong2*>(src.p), size / 16, cell.p);
              return Status::pass();
            },
            &t));
        if (t < kernel_s) kernel_s = t, best_blocks = sms * per_sm;
      }
      VMR_TRY(time_best(
          5,
          [&] {
            VMR_CU_TRY(api.cuMemcpyDtoD, reinterpret_cast<CUdeviceptr>(local.p), reinterpret_cast<CUdeviceptr>(src.p),
                       size);
            return Status::pass();
          },
          &copy_s));
    }
    VMR_TRY(ctx.mesh().barrier("bandwidth-turn-" + std::to_string(turn)));
  }
  ctx.info("peer_read_kernel_grid", std::to_string(best_blocks) + " blocks x " + std::to_string(kThreads) + " threads");
  // Every rank's figures, each with its direction: the other direction of a pair is in rank 0's facts.
  ctx.info("read_direction", vmr::read_direction(ctx.rank(), ctx.devices(), true));
  ctx.info("peer_read_GBps",
           "kernel " + vmr::format_double(size / kernel_s / 1e9) + ", copy " + vmr::format_double(size / copy_s / 1e9));
  if (ctx.rank() == vmr::kBandwidthRank) {  // the case's figures: data from devices[0] to devices[1]
    ctx.metric("peer_read_kernel_GBps", size / kernel_s / 1e9, "GB/s");
    ctx.metric("peer_read_copy_GBps", size / copy_s / 1e9, "GB/s");
    ctx.metric("kernel_over_copy_bandwidth", copy_s / kernel_s, "ratio");
  }
  return Status::pass();
}

}  // namespace vmr_cuda
