// What every AMD reproducer checks and reports before its case: the devices exist, and the facts that tell nodes
// apart (iris#418 crashed on one runner only): ROCm and driver versions, gfx arch, XNACK, PCI bus id, UUID, XGMI
// hive, link type to each peer, and which memory pools the agent has, with their granules.
#pragma once

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <optional>
#include <string>
#include <vector>

#include "rank_context.h"
#include "status.h"

namespace vmr {

struct PoolInfo {
  hsa_amd_memory_pool_t pool{};
  uint32_t flags = 0;
  size_t granule = 0;
  size_t size = 0;
};

struct AgentPools {
  std::optional<PoolInfo> coarse, fine, ext_fine;  // global pools the runtime may allocate from
};

struct AmdRank {
  std::vector<int> devices;        // HIP device of every rank
  std::vector<hsa_agent_t> agents;  // the HSA agent of every rank's device
  AgentPools pools;                 // this rank's agent
};

// SKIPs with the runtime's own answer where there is no AMD GPU, too few GPUs or no HSA agent for a device.
Status describe_amd_rank(RankContext& ctx, AmdRank* out);
Status agent_pools(hsa_agent_t agent, AgentPools* out);
std::string describe_pools(const AgentPools& p);

}  // namespace vmr
