// smoke_cuda: the CUDA toolchain frame. Proves that nvcc builds a binary that starts without libcuda.so.1 (cudart
// is linked statically and loads the driver at run time: SKIP "no NVIDIA driver" here) and, on a GPU node, runs a
// kernel on each rank's device. The CUDA VMM reference replaces it.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <string>

#include "repro.h"

namespace {

using vmr::RankContext;
using vmr::Status;

std::string cuda_error(const char* call, cudaError_t e) {
  return std::string(call) + " returned " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

__global__ void k_fill(int* out, int value) { out[threadIdx.x] = value + int(threadIdx.x); }

Status describe_cuda(RankContext& ctx) {
  // cudart reports a missing driver as "driver version is insufficient"; name the real cause first.
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) return Status::skip(std::string("no NVIDIA driver: ") + dlerror());
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) return Status::skip(cuda_error("cudaGetDeviceCount", e));
  if (ctx.device() >= count)
    return Status::skip("device " + std::to_string(ctx.device()) + " not present: " + std::to_string(count) +
                        " CUDA device(s) visible");
  int runtime = 0, drv = 0;
  (void)cudaRuntimeGetVersion(&runtime);
  (void)cudaDriverGetVersion(&drv);
  ctx.info("cuda_runtime_version", std::to_string(runtime));
  ctx.info("cuda_driver_version", std::to_string(drv));
  cudaDeviceProp prop{};
  if ((e = cudaGetDeviceProperties(&prop, ctx.device())) != cudaSuccess)
    return Status::fail(cuda_error("cudaGetDeviceProperties", e));
  char bus[32] = {};
  (void)cudaDeviceGetPCIBusId(bus, sizeof bus, ctx.device());
  ctx.info("device_name", prop.name);
  ctx.info("compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor));
  ctx.info("pci_bus_id", bus);
  return Status::pass();
}

Status case_kernel(RankContext& ctx) {
  cudaError_t e = cudaSetDevice(ctx.device());
  if (e != cudaSuccess) return Status::fail(cuda_error("cudaSetDevice", e));
  int* d = nullptr;
  if ((e = cudaMalloc(&d, 64 * sizeof(int))) != cudaSuccess) return Status::fail(cuda_error("cudaMalloc", e));
  vmr::ScopeExit free_d([&] { (void)cudaFree(d); });
  ctx.phase_done("setup");
  k_fill<<<1, 64>>>(d, ctx.rank() * 1000);
  if ((e = cudaGetLastError()) != cudaSuccess) return Status::fail(cuda_error("kernel launch", e));
  int h[64] = {};
  if ((e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)) != cudaSuccess)
    return Status::fail(cuda_error("cudaMemcpy", e));
  ctx.phase_done("run");
  for (int i = 0; i < 64; ++i)
    if (h[i] != ctx.rank() * 1000 + i)
      return Status::fail("element " + std::to_string(i) + " is " + std::to_string(h[i]));
  return Status::pass("a kernel ran on every rank's device");
}

}  // namespace

int main(int argc, char** argv) {
  static const vmr::ReproBinary binary{"smoke_cuda",
                                       {"cuda", describe_cuda},
                                       {{"kernel", "toolchain frame: one kernel on each rank's device", case_kernel}}};
  return vmr::repro_main(binary, argc, argv);
}
