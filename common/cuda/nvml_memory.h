// This process's own device memory on an NVIDIA GPU, as NVML's per-process list counts it, for the leak cases
// (gpu/process_memory.h). libnvidia-ml.so.1 comes with the driver and is opened at run time, never linked (the
// suite's run-time dependencies are the GPU runtimes and libc). Plain C++ (no CUDA or NVML header): the unit tests
// run the row choice on the CPU.
#pragma once

#include <string>
#include <vector>

#include "gpu/process_memory.h"

namespace vmr_cuda {

// What the leak cases take of one row of nvmlDeviceGetComputeRunningProcesses_v3.
struct NvmlProcessRow {
  unsigned int pid = 0;
  unsigned long long used = 0;  // usedGpuMemory, bytes
};
// NVML_VALUE_NOT_AVAILABLE ((unsigned long long)-1 in usedGpuMemory): the driver did not say (under some
// hypervisors and where the process's pid is not visible).
constexpr unsigned long long kNvmlValueNotAvailable = ~0ull;

// The memory of the row of `pid` among `rows`: unknown, naming why, when no row or several carry the pid, or its
// count is not available. NVML lists host pids, so a process in a PID namespace (a container) finds no row of its
// own, or one of another process with its number, which the leak case's held reading then refuses.
vmr_gpu::MemoryReading memory_of_pid(const std::vector<NvmlProcessRow>& rows, unsigned int pid);

vmr_gpu::ProcessMemorySource nvml_source();

// libnvidia-ml.so.1 opened, NVML initialised and the GPU found by PCI bus id (cudaDeviceGetPCIBusId's text, e.g.
// "0000:19:00.0": a device index would differ under CUDA_VISIBLE_DEVICES), for as long as it lives; what failed
// makes every read unknown, naming it.
class NvmlProcessMemory {
 public:
  explicit NvmlProcessMemory(const std::string& pci_bus_id, const char* library = "libnvidia-ml.so.1");
  ~NvmlProcessMemory();
  NvmlProcessMemory(const NvmlProcessMemory&) = delete;
  NvmlProcessMemory& operator=(const NvmlProcessMemory&) = delete;
  vmr_gpu::MemoryReading read(unsigned int pid) const;

 private:
  struct Api;
  void* lib_ = nullptr;
  Api* api_ = nullptr;
  void* device_ = nullptr;  // nvmlDevice_t
  bool initialised_ = false;
  std::string why_not_;  // why reads are unknown; empty once the GPU was found
};

}  // namespace vmr_cuda
