// vmr_gpu::finish for the AMD reproducers: a kernel's failure names the kernel and HIP's error. (Up to 6.4 a GPU
// memory access fault never gets here: ROCr prints "Memory access fault by GPU node-N ..." and aborts the process,
// which the launcher reports as CRASH. CLR 7.2.4, with HIP_SKIP_ABORT_ON_GPU_ERROR at its default 1 and a core-file
// limit of 0, takes the fault itself: hipDeviceSynchronize then answers hipErrorIllegalAddress, a FAIL here. Other
// hardware exceptions answer hipErrorLaunchFailure.)
#include <hip/hip_runtime.h>

#include <string>

#include "amd/amd_rules.h"
#include "gpu/gpu_errors.h"

#ifndef VMR_HIP_ARCHS
#define VMR_HIP_ARCHS "unknown (built outside CMake)"
#endif

namespace vmr_gpu {

namespace {
// The first visible device whose arch this build has no code for, as missing_code_object words it; empty when every
// device has code. CLR digests a fat binary for every device of the process at once (clr rocm-6.2.0
// hipamd/src/hip_code_object.cpp:1141-1142) and stops at the first device without code (hip_fatbin.cpp:271-281);
// the launch then answers hipErrorInvalidDeviceFunction (hip_platform.cpp:616), so on a node of mixed archs a
// launch can fail on a device that has code: the culprit is another device.
std::string device_without_code() {
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess) return "";
  for (int d = 0; d < count; ++d) {
    hipDeviceProp_t prop{};
    if (hipGetDeviceProperties(&prop, d) != hipSuccess) continue;
    std::string missing = vmr_amd::missing_code_object(prop.gcnArchName, VMR_HIP_ARCHS);
    if (!missing.empty()) return "device " + std::to_string(d) + ": " + missing;
  }
  return "";
}
}  // namespace

vmr::Status finish(const char* what) {
  hipError_t launch = hipGetLastError();
  if (launch == hipErrorNoBinaryForGpu || launch == hipErrorInvalidDeviceFunction) {
    std::string culprit = device_without_code();
    if (!culprit.empty()) return vmr::Status::harness(gpu_error(what, launch) + "; " + culprit);
    if (launch == hipErrorNoBinaryForGpu)
      return vmr::Status::harness(gpu_error(what, launch) + "; every visible device's arch has code in this build (" +
                                  VMR_HIP_ARCHS + ")");
  }
  if (launch != hipSuccess) return vmr::Status::fail(gpu_error(what, launch));
  hipError_t done = hipDeviceSynchronize();
  if (done == hipSuccess) return vmr::Status::pass();
  return vmr::Status::fail(gpu_error(std::string("hipDeviceSynchronize after ") + what, done));
}

}  // namespace vmr_gpu
