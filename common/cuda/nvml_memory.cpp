#include "cuda/nvml_memory.h"

#include <dlfcn.h>

namespace vmr_cuda {

namespace {

// NVML's own types and values (nvml.h, API version 12; stable since driver R510): nvmlReturn_t is an int enum,
// nvmlDevice_t a pointer. nvmlDeviceGetComputeRunningProcesses_v3 fills nvmlProcessInfo_t, the four-field row below;
// the unversioned (v1) entry point fills a two-field row instead, so only _v3 is called, with this row.
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0, kNvmlInsufficientSize = 7;
struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
static_assert(sizeof(NvmlProcessInfo) == 24, "nvmlProcessInfo_t is 24 bytes on LP64");

}  // namespace

struct NvmlProcessMemory::Api {
  NvmlReturn (*init)() = nullptr;                                             // nvmlInit_v2
  NvmlReturn (*shutdown)() = nullptr;                                         // nvmlShutdown
  NvmlReturn (*by_bus_id)(const char*, void**) = nullptr;                     // nvmlDeviceGetHandleByPciBusId_v2
  NvmlReturn (*processes)(void*, unsigned int*, NvmlProcessInfo*) = nullptr;  // ..._v3
  const char* (*error_string)(NvmlReturn) = nullptr;                          // nvmlErrorString
  std::string error(const char* call, NvmlReturn r) const {
    const char* text = error_string ? error_string(r) : nullptr;
    return std::string(call) + " answered " + std::to_string(r) + (text ? std::string(" (") + text + ")" : "");
  }
};

vmr_gpu::MemoryReading memory_of_pid(const std::vector<NvmlProcessRow>& rows, unsigned int pid) {
  const NvmlProcessRow* mine = nullptr;
  int times = 0;
  for (const auto& r : rows)
    if (r.pid == pid) mine = &r, ++times;
  if (times == 0)
    return vmr_gpu::MemoryReading::unknown("pid " + std::to_string(pid) + " is not among the " +
                                           std::to_string(rows.size()) +
                                           " compute processes NVML lists on this GPU (NVML lists host pids: a PID "
                                           "namespace, as in a container?)");
  if (times > 1)
    return vmr_gpu::MemoryReading::unknown("NVML lists pid " + std::to_string(pid) + " " + std::to_string(times) +
                                           " times on this GPU");
  if (mine->used == kNvmlValueNotAvailable)
    return vmr_gpu::MemoryReading::unknown("NVML reports this process's used memory as NVML_VALUE_NOT_AVAILABLE");
  return vmr_gpu::MemoryReading::of(mine->used);
}

vmr_gpu::ProcessMemorySource nvml_source() {
  return {"NVML per-process used memory (nvmlDeviceGetComputeRunningProcesses_v3)", true};
}

NvmlProcessMemory::NvmlProcessMemory(const std::string& pci_bus_id, const char* library) {
  lib_ = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!lib_) {
    const char* e = dlerror();
    why_not_ = std::string("cannot load ") + library + ": " + (e ? e : "dlopen failed");
    return;
  }
  api_ = new Api;
  struct Symbol {
    const char* name;
    void** slot;
  };
  const Symbol symbols[] = {{"nvmlInit_v2", reinterpret_cast<void**>(&api_->init)},
                            {"nvmlShutdown", reinterpret_cast<void**>(&api_->shutdown)},
                            {"nvmlDeviceGetHandleByPciBusId_v2", reinterpret_cast<void**>(&api_->by_bus_id)},
                            {"nvmlDeviceGetComputeRunningProcesses_v3", reinterpret_cast<void**>(&api_->processes)},
                            {"nvmlErrorString", reinterpret_cast<void**>(&api_->error_string)}};
  for (const auto& s : symbols) {
    *s.slot = dlsym(lib_, s.name);
    if (!*s.slot) {
      why_not_ = std::string(library) + " has no " + s.name + " (a driver before R510?)";
      return;
    }
  }
  NvmlReturn r = api_->init();
  if (r != kNvmlSuccess) {
    why_not_ = api_->error("nvmlInit_v2", r);
    return;
  }
  initialised_ = true;
  r = api_->by_bus_id(pci_bus_id.c_str(), &device_);
  if (r != kNvmlSuccess) why_not_ = api_->error(("nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + ")").c_str(), r);
}

NvmlProcessMemory::~NvmlProcessMemory() {
  if (initialised_) (void)api_->shutdown();
  delete api_;
  if (lib_) dlclose(lib_);
}

vmr_gpu::MemoryReading NvmlProcessMemory::read(unsigned int pid) const {
  if (!why_not_.empty()) return vmr_gpu::MemoryReading::unknown(why_not_);
  // The list can grow between the call that sizes it and the call that fills it: a few rounds, then give up.
  std::vector<NvmlProcessInfo> infos(64);
  for (int round = 0; round < 4; ++round) {
    unsigned int count = unsigned(infos.size());
    NvmlReturn r = api_->processes(device_, &count, infos.data());
    if (r == kNvmlInsufficientSize) {
      infos.resize(count + 16);
      continue;
    }
    if (r != kNvmlSuccess)
      return vmr_gpu::MemoryReading::unknown(api_->error("nvmlDeviceGetComputeRunningProcesses_v3", r));
    std::vector<NvmlProcessRow> rows;
    for (unsigned int i = 0; i < count && i < infos.size(); ++i) rows.push_back({infos[i].pid, infos[i].usedGpuMemory});
    return memory_of_pid(rows, pid);
  }
  return vmr_gpu::MemoryReading::unknown(
      "nvmlDeviceGetComputeRunningProcesses_v3 kept answering "
      "NVML_ERROR_INSUFFICIENT_SIZE (last offered " +
      std::to_string(infos.size()) + " rows)");
}

}  // namespace vmr_cuda
