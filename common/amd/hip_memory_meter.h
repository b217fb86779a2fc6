// The leak cases' meter on AMD (the twin of cuda/cuda_memory_meter.h): this process's own VRAM as KFD counts it
// (amd/kfd_memory.h), on the KFD node of the rank's HSA agent, the GPU's free memory (hipMemGetInfo) beside it, and
// the other KFD processes on the GPU; gpu/process_memory.h decides which of them may judge.
#pragma once

#include <hip/hip_runtime.h>
#include <hsa/hsa_ext_amd.h>
#include <unistd.h>

#include <string>

#include "amd/hip_rank.h"
#include "amd/kfd_memory.h"
#include "gpu/gpu_host.h"
#include "gpu/process_memory.h"

namespace vmr_hip {

class MemoryMeter {
 public:
  vmr::Status open(const RankState& state) {
    uint32_t node = 0;
    // HSA_AMD_AGENT_INFO_DRIVER_NODE_ID: the agent's KFD topology node (hsa_ext_amd.h since ROCm 5.x).
    hsa_status_t s =
        hsa_agent_get_info(state.amd.agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_DRIVER_NODE_ID), &node);
    if (s != HSA_STATUS_SUCCESS)
      why_not_ = "hsa_agent_get_info(HSA_AMD_AGENT_INFO_DRIVER_NODE_ID) answered " + std::to_string(int(s));
    else if (vmr_amd::kfd_gpu_id(vmr_amd::kKfdRoot, node, &gpu_id_, &why_not_))
      why_not_.clear();
    return vmr::Status::pass();
  }
  vmr_gpu::ProcessMemorySource source() const { return vmr_amd::kfd_source(); }
  vmr_gpu::MemoryReading process() const {
    if (!why_not_.empty()) return vmr_gpu::MemoryReading::unknown(why_not_);
    return vmr_amd::kfd_process_vram(vmr_amd::kKfdRoot, long(::getpid()), gpu_id_);
  }
  // This process's count and the GPU's free memory, one after the other.
  vmr::Status read(vmr_gpu::MemoryReading* mine, uint64_t* device_free) const {
    *mine = process();
    size_t free = 0;
    VMR_TRY(vmr_gpu::device_free_bytes(&free));
    *device_free = free;
    return vmr::Status::pass();
  }
  // The KFD processes outside this run that hold the GPU (empty: none), read where KFD's count is blind.
  std::string others() const {
    if (!why_not_.empty()) return "who else holds the GPU is unknown (" + why_not_ + ")";
    return vmr_amd::kfd_other_processes(vmr_amd::kKfdRoot, "/proc", gpu_id_, long(::getpid()), long(::getppid()));
  }

 private:
  uint32_t gpu_id_ = 0;
  std::string why_not_ = "not opened";
};

}  // namespace vmr_hip
