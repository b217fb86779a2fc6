// What every HIP VMem binary's describe step learns once per rank and its cases read (harness.h hands the state to
// each case), and the describe step of the binaries that need nothing more.
#pragma once

#include <hip/hip_runtime.h>

#include <string>

#include "amd/amd_env.h"
#include "amd/hip_vmem.h"
#include "harness/rank_context.h"
#include "harness/scope_guard.h"
#include "harness/status.h"
#include "harness/text.h"

namespace vmr_hip {

struct RankState {
  vmr_amd::Env amd;
  Session session;     // the rank's agent and osHandle convention, and whether a stale unmap stopped VMem use
  Vmem hip;            // the session, the device and the binary's allocation type, bound into every VMem call
  size_t granule = 0;  // hipMemGetAllocationGranularity of that type, minimum
  // A stale unmap found by an owner as the case ended is that case's FAIL, not the next one's (harness.h).
  vmr::Status after_case() const { return session.still_usable(); }
  // Whether this runtime can be asked for host access to device memory (amd/amd_rules.h).
  vmr::Status host_access_support() const { return vmr_amd::host_access_support(amd.hip_version, amd.large_bar); }
};

// The AMD facts, the VMem session (describe_vmem), then the granule of `type` and the rank's Vmem.
inline vmr::Status describe_rank(vmr::RankContext& ctx, hipMemAllocationType type, RankState* state) {
  VMR_TRY(vmr_amd::describe_rank(ctx, &state->amd));
  VMR_TRY(describe_vmem(ctx, state->amd, &state->session));
  VMR_TRY(granularity(ctx.device(), type, &state->granule));
  ctx.info("vmem_granularity", std::to_string(state->granule));
  state->hip = {&state->session, ctx.device(), type};
  return vmr::Status::pass();
}

}  // namespace vmr_hip
