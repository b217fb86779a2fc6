// What every AMD reproducer checks and reports before its case: the devices exist, and the facts that tell nodes
// apart (iris#418 crashed on one runner only): ROCm and driver versions, gfx arch, XNACK, PCI bus id, UUID, XGMI
// hive, link type to each peer, and which memory pools the agent has, with their granules.
#pragma once

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <optional>
#include <string>
#include <vector>

#include "harness/rank_context.h"
#include "harness/scope_guard.h"
#include "harness/status.h"
#include "harness/text.h"

namespace vmr_amd {

using vmr::RankContext;
using vmr::Status;

struct PoolInfo {
  hsa_amd_memory_pool_t pool{};
  uint32_t flags = 0;
  size_t granule = 0;
  size_t size = 0;
};

struct AgentPools {
  std::optional<PoolInfo> coarse, fine, ext_fine;  // global pools the runtime may allocate from
};

struct Env {
  int hip_version = 0;       // hipRuntimeGetVersion: HIP_VERSION of the runtime that runs (amd/amd_rules.h)
  std::string rocm_release;  // reported as rocm_release: what the expected table's conditions compare
  bool large_bar = false;    // hipDeviceProp_t::isLargeBar: the host can reach all of the device's memory
  hsa_agent_t agent{};       // the HSA agent of this rank's device
  AgentPools pools;          // this rank's agent's
};

// The GPUs HIP shows this process (ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES applied):
// what describe_rank checks the ranks' devices against, and the binary table's count_devices (the launcher's probe,
// a fresh process with the ranks' environment). SKIP with HIP's answer where it shows none.
Status count_devices(int* count);
// Reports the facts above with ctx.info() and fills *out. SKIPs with the runtime's own answer where there is no AMD
// GPU or too few GPUs; HARNESS where this build has no code object for the device or no HSA agent pairs with it.
Status describe_rank(RankContext& ctx, Env* out);
Status agent_pools(hsa_agent_t agent, AgentPools* out);
std::string describe_pools(const AgentPools& p);

}  // namespace vmr_amd
