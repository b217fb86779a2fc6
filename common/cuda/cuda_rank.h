// What every CUDA reference binary's describe step learns once per rank and its cases read: the driver, the
// device and its VMM support, and the P2P facts of each pair the rank meets (the CUDA side of amd/hip_rank.h).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_api.h"
#include "cuda/cuda_vmem.h"
#include "gpu/gpu_errors.h"
#include "gpu/gpu_kernels.h"
#include "harness/rank_context.h"
#include "harness/scope_guard.h"
#include "harness/status.h"
#include "harness/text.h"

// The targets this binary was compiled for: CMake's list (common/cuda/CMakeLists.txt), else, built outside CMake
// (the single files), nvcc's own __CUDA_ARCH_LIST__ (virtual architectures, 800 for compute_80).
#ifndef VMR_CUDA_ARCHS
#define VMR_CUDA_ARCH_TEXT(...) #__VA_ARGS__
#define VMR_CUDA_ARCH_STRING(...) VMR_CUDA_ARCH_TEXT(__VA_ARGS__)
#ifdef __CUDA_ARCH_LIST__
#define VMR_CUDA_ARCHS "__CUDA_ARCH_LIST__ " VMR_CUDA_ARCH_STRING(__CUDA_ARCH_LIST__)
#else
#define VMR_CUDA_ARCHS "unknown (built outside CMake)"
#endif
#endif

namespace vmr_cuda {

// What describe_rank learns once per rank and every case reads (harness.h hands the state to each case).
struct RankState {
  vmr_cuda::Vmem cuda;  // this rank's device, bound into its driver calls
  size_t granule = 0;   // cuMemGetAllocationGranularity, minimum
  // No CUDA driver misreads a Host location (the driver itself answers whether it grants one).
  vmr::Status host_access_support() const { return vmr::Status::pass(); }
};

inline std::string uuid_text(const CUuuid& u) {
  char buf[64];
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  std::snprintf(buf, sizeof buf, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return buf;
}

// The CUDA devices this process sees (CUDA_VISIBLE_DEVICES applied): what describe_rank checks the ranks' devices
// against, and the binary table's count_devices (the launcher's probe). SKIP without libcuda.so.1 or a device.
inline Status count_devices(int* count) {
  VMR_TRY(vmr_cuda::load_api());
  cudaError_t e = cudaGetDeviceCount(count);
  if (e != cudaSuccess) return Status::skip(vmr_gpu::gpu_error("cudaGetDeviceCount", e));
  return Status::pass();
}

// The driver, the device, VMM and POSIX-fd support, and P2P access and native atomics between every pair of
// devices this rank meets; SKIPs naming what is missing.
inline Status describe_rank(vmr::RankContext& ctx, RankState* state) {
  int count = 0;
  VMR_TRY(count_devices(&count));
  VMR_TRY(ctx.require_devices(count, "CUDA"));
  CUdevice dev;
  VMR_CU_TRY(api.cuDeviceGet, &dev, ctx.device());  // cudaGetDeviceCount initialised the driver
  int mode = 0;
  VMR_CU_TRY(api.cuDeviceGetAttribute, &mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev);
  ctx.info("compute_mode", compute_mode_name(mode));
  const auto& devices = ctx.devices();
  VMR_TRY(open_device(ctx.device(), int(std::count(devices.begin(), devices.end(), ctx.device()))));

  int runtime = 0, driver = 0;
  VMR_GPU_TRY(cudaRuntimeGetVersion, &runtime);
  VMR_CU_TRY(api.cuDriverGetVersion, &driver);
  ctx.info("cuda_runtime_version", std::to_string(runtime));
  ctx.info("cuda_driver_version", std::to_string(driver));
  cudaDeviceProp prop{};
  VMR_GPU_TRY(cudaGetDeviceProperties, &prop, ctx.device());
  char bus[32] = {};
  VMR_GPU_TRY(cudaDeviceGetPCIBusId, bus, int(sizeof bus), ctx.device());
  CUuuid uuid{};
  VMR_CU_TRY(api.cuDeviceGetUuid, &uuid, dev);
  ctx.info("device", std::to_string(ctx.device()));
  ctx.info("device_name", prop.name);
  ctx.info("compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor));
  ctx.info("built_archs", VMR_CUDA_ARCHS);
  // Whether this binary has code for the GPU, asked of a case kernel (each binary's kernels are compiled alike):
  // without it every launch fails "no kernel image", which is the build's fault, not the node's. The error is
  // not sticky; cudaGetLastError clears it so no later check reads it as a case's.
  cudaFuncAttributes attr{};
  const cudaError_t image = cudaFuncGetAttributes(&attr, vmr_gpu::k_store);
  (void)cudaGetLastError();
  VMR_TRY(missing_kernel_image(ctx.device(), prop.major, prop.minor, int(image),
                               vmr_gpu::gpu_error("cudaFuncGetAttributes", image), VMR_CUDA_ARCHS));
  ctx.info("pci_bus_id", bus);
  ctx.info("uuid", uuid_text(uuid));

  int vmm = 0, posix_fd = 0;
  VMR_CU_TRY(api.cuDeviceGetAttribute, &vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev);
  VMR_CU_TRY(api.cuDeviceGetAttribute, &posix_fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev);
  if (!vmm)
    return Status::skip("device " + std::to_string(ctx.device()) +
                        ": CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED is 0");
  if (!posix_fd)
    return Status::skip("device " + std::to_string(ctx.device()) +
                        ": CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED is 0");
  VMR_TRY(vmr_cuda::granularity(ctx.device(), &state->granule));
  ctx.info("vmm_granularity", std::to_string(state->granule));
  state->cuda = {ctx.device()};

  // Each pair this rank touches, both ways: access, native atomics, performance rank.
  for (int j = 0; j < ctx.ranks(); ++j) {
    int peer = ctx.devices()[j];
    if (j == ctx.rank() || peer == ctx.device()) continue;
    CUdevice pdev;
    VMR_CU_TRY(api.cuDeviceGet, &pdev, peer);
    std::vector<std::string> facts;
    for (auto [from, to] : {std::pair{dev, pdev}, std::pair{pdev, dev}}) {
      int can = 0, access = 0, atomics = 0, perf = 0;
      VMR_CU_TRY(api.cuDeviceCanAccessPeer, &can, from, to);
      VMR_CU_TRY(api.cuDeviceGetP2PAttribute, &access, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, from, to);
      VMR_CU_TRY(api.cuDeviceGetP2PAttribute, &atomics, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, from, to);
      VMR_CU_TRY(api.cuDeviceGetP2PAttribute, &perf, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, from, to);
      std::string pair = std::to_string(int(from)) + "->" + std::to_string(int(to));
      facts.push_back(pair + " access=" + std::to_string(access) + " native_atomics=" + std::to_string(atomics) +
                      " perf_rank=" + std::to_string(perf));
      if (!can) return Status::skip("cuDeviceCanAccessPeer(" + pair + ") is 0");
      if (!atomics) return Status::skip("CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED(" + pair + ") is 0");
    }
    ctx.info("p2p_" + std::to_string(ctx.device()) + "_" + std::to_string(peer), vmr::join(facts, "; "));
  }
  return Status::pass();
}

}  // namespace vmr_cuda
