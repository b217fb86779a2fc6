// The CUDA read cases' bandwidth figures (VMem and legacy IPC alike), measured and reported as every backend's are
// (gpu/read_bandwidth.h: a kernel's read of the source rank's memory, best of a few grid sizes, and a copy of it,
// one rank at a time so each figure is one direction's; the metric names and units in gpu/read_metrics.h). The copy
// is cuMemcpyDtoD into a cudaMalloc buffer: the copy engines.
#pragma once

#include <cuda.h>

#include <vector>

#include "cuda/cuda_api.h"
#include "gpu/read_bandwidth.h"

namespace vmr_cuda {

// The copy path, said once for the fact peer_read_copy_path.
inline constexpr const char* kCopyPath = "cuMemcpyDtoD into a cudaMalloc buffer (the copy engines)";

// `peers[j]`: rank j's memory as this rank maps it (empty for itself), each `size` bytes. Needs `size` bytes of
// this rank's device memory for the copy's destination. Every rank must call it: the turns are barriers.
inline Status peer_read_bandwidth(vmr::RankContext& ctx, const std::vector<vmr_gpu::Span>& peers, size_t size) {
  const vmr_gpu::Span& src = peers[vmr::read_source_rank(ctx.rank(), ctx.ranks())];
  const size_t words = size / sizeof(vmr_gpu::u64);
  VMR_TRY(vmr_gpu::guard(src, 0, words, "k_checksum (bandwidth)"));  // the mapping holds `size` bytes
  const vmr_gpu::Span whole{src.p, words};
  const vmr_gpu::CopyOnce copy = [](const vmr_gpu::Span& from, const vmr_gpu::Span& into) {
    VMR_CU_TRY(api.cuMemcpyDtoD, reinterpret_cast<CUdeviceptr>(into.p), reinterpret_cast<CUdeviceptr>(from.p),
               from.words * sizeof(vmr_gpu::u64));
    return Status::pass();
  };
  vmr_gpu::ReadBandwidth bw;
  VMR_TRY(vmr_gpu::measure_peer_read(ctx, whole, kCopyPath, copy, "", &bw));
  vmr_gpu::report_read_bandwidth(ctx, bw);
  return Status::pass();
}

}  // namespace vmr_cuda
