// vmr_gpu::finish for the HIP reproducers: a kernel's failure names the kernel and HIP's error. (A GPU memory
// access fault usually never gets here: ROCr prints "Memory access fault by GPU node-N ..." and aborts the
// process, which the launcher reports as CRASH with that line.)
#include <hip/hip_runtime.h>

#include <string>

#include "gpu/gpu_errors.h"

namespace vmr_gpu {

vmr::Status finish(const char* what) {
  hipError_t launch = hipGetLastError();
  if (launch != hipSuccess) return vmr::Status::fail(gpu_error(what, launch));
  hipError_t done = hipDeviceSynchronize();
  return done == hipSuccess
             ? vmr::Status::pass()
             : vmr::Status::fail(gpu_error((std::string("hipDeviceSynchronize after ") + what).c_str(), done));
}

}  // namespace vmr_gpu
