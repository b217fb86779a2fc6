// vmr_gpu::finish for the AMD reproducers: a kernel's failure names the kernel and HIP's error. (A GPU memory
// access fault usually never gets here: ROCr prints "Memory access fault by GPU node-N ..." and aborts the
// process, which the launcher reports as CRASH with that line. From HIP 7.0 other kernel exceptions come back as
// errors unless core dumps are enabled.)
#include <hip/hip_runtime.h>

#include <string>

#include "amd/amd_rules.h"
#include "gpu/gpu_errors.h"

#ifndef VMR_HIP_ARCHS
#define VMR_HIP_ARCHS "unknown (built outside CMake)"
#endif

namespace vmr_gpu {

namespace {
// hipErrorNoBinaryForGpu (209): the launch found no code object for the device; say which arch and how to build.
std::string no_binary_hint() {
  int device = 0;
  hipDeviceProp_t prop{};
  if (hipGetDevice(&device) != hipSuccess || hipGetDeviceProperties(&prop, device) != hipSuccess)
    return "; the device's arch is unknown";
  return "; " + vmr_amd::missing_code_object(prop.gcnArchName, VMR_HIP_ARCHS);
}
}  // namespace

vmr::Status finish(const char* what) {
  hipError_t launch = hipGetLastError();
  if (launch == hipErrorNoBinaryForGpu) return vmr::Status::harness(gpu_error(what, launch) + no_binary_hint());
  if (launch != hipSuccess) return vmr::Status::fail(gpu_error(what, launch));
  hipError_t done = hipDeviceSynchronize();
  if (done == hipSuccess) return vmr::Status::pass();
  return vmr::Status::fail(gpu_error(std::string("hipDeviceSynchronize after ") + what, done));
}

}  // namespace vmr_gpu
