// The leak cases' meter on NVIDIA (the twin of amd/hip_memory_meter.h): this process's own device memory through
// NVML (cuda/nvml_memory.h), found by the rank's PCI bus id, and the GPU's free memory (cudaMemGetInfo) beside it;
// gpu/process_memory.h decides which of them may judge.
#pragma once

#include <cuda_runtime.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "cuda/cuda_rank.h"
#include "cuda/nvml_memory.h"
#include "gpu/gpu_host.h"
#include "gpu/process_memory.h"

namespace vmr_cuda {

class MemoryMeter {
 public:
  vmr::Status open(const RankState& state) {
    char bus[32] = {};
    VMR_GPU_TRY(cudaDeviceGetPCIBusId, bus, int(sizeof bus), state.cuda.device);
    nvml_ = std::make_unique<NvmlProcessMemory>(bus);
    return vmr::Status::pass();
  }
  vmr_gpu::ProcessMemorySource source() const { return nvml_source(); }
  vmr_gpu::MemoryReading process() const {
    return nvml_ ? nvml_->read(unsigned(::getpid())) : vmr_gpu::MemoryReading::unknown("NVML not opened");
  }
  // This process's count and the GPU's free memory, one after the other.
  vmr::Status read(vmr_gpu::MemoryReading* mine, uint64_t* device_free) const {
    *mine = process();
    size_t free = 0;
    VMR_TRY(vmr_gpu::device_free_bytes(&free));
    *device_free = free;
    return vmr::Status::pass();
  }
  // Who else holds the GPU: not needed where NVML's count decides (it keeps what a release left allocated).
  std::string others() const { return ""; }

 private:
  std::unique_ptr<NvmlProcessMemory> nvml_;
};

}  // namespace vmr_cuda
