// smoke_hip: the HIP toolchain frame. Proves that the HIP backend compiles, links, starts on a machine without an
// AMD GPU (SKIP with the runtime's own answer), and on one with GPUs runs a kernel on each rank's device.
// The VMem reproducers replace it; until then it is the CI's proof that the HIP toolchain works.
#include <hip/hip_runtime.h>

#include <string>

#include "repro.h"

namespace {

using vmr::RankContext;
using vmr::Status;

std::string hip_error(const char* call, hipError_t e) {
  return std::string(call) + " returned " + hipGetErrorName(e) + " (" + hipGetErrorString(e) + ")";
}

__global__ void k_fill(int* out, int value) { out[threadIdx.x] = value + int(threadIdx.x); }

Status describe_hip(RankContext& ctx) {
  int count = 0;
  hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess) return Status::skip(hip_error("hipGetDeviceCount", e));
  if (ctx.device() >= count)
    return Status::skip("device " + std::to_string(ctx.device()) + " not present: " + std::to_string(count) +
                        " HIP device(s) visible");
  int runtime = 0, driver = 0;
  (void)hipRuntimeGetVersion(&runtime);
  (void)hipDriverGetVersion(&driver);
  ctx.info("hip_runtime_version", std::to_string(runtime));
  ctx.info("hip_driver_version", std::to_string(driver));
  hipDeviceProp_t prop{};
  if ((e = hipGetDeviceProperties(&prop, ctx.device())) != hipSuccess)
    return Status::fail(hip_error("hipGetDeviceProperties", e));
  char bus[32] = {};
  (void)hipDeviceGetPCIBusId(bus, sizeof bus, ctx.device());
  ctx.info("device_name", prop.name);
  ctx.info("gfx_arch", prop.gcnArchName);
  ctx.info("pci_bus_id", bus);
  return Status::pass();
}

Status case_kernel(RankContext& ctx) {
  hipError_t e = hipSetDevice(ctx.device());
  if (e != hipSuccess) return Status::fail(hip_error("hipSetDevice", e));
  int* d = nullptr;
  if ((e = hipMalloc(&d, 64 * sizeof(int))) != hipSuccess) return Status::fail(hip_error("hipMalloc", e));
  vmr::ScopeExit free_d([&] { (void)hipFree(d); });
  ctx.phase_done("setup");
  hipLaunchKernelGGL(k_fill, dim3(1), dim3(64), 0, 0, d, ctx.rank() * 1000);
  if ((e = hipGetLastError()) != hipSuccess) return Status::fail(hip_error("kernel launch", e));
  int h[64] = {};
  if ((e = hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost)) != hipSuccess)
    return Status::fail(hip_error("hipMemcpy", e));
  ctx.phase_done("run");
  for (int i = 0; i < 64; ++i)
    if (h[i] != ctx.rank() * 1000 + i)
      return Status::fail("element " + std::to_string(i) + " is " + std::to_string(h[i]));
  return Status::pass("a kernel ran on every rank's device");
}

}  // namespace

int main(int argc, char** argv) {
  static const vmr::ReproBinary binary{
      "smoke_hip", {"hip", describe_hip}, {{"kernel", "toolchain frame: one kernel on each rank's device", case_kernel}}};
  return vmr::repro_main(binary, argc, argv);
}
