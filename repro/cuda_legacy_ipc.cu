// repro_cuda_legacy_ipc: the baseline a maintainer asks about first, "does legacy IPC work on this node?", as PyTorch
// and vLLM use it: cudaMalloc memory, cudaIpcGetMemHandle in the owner, the 64-byte handle sent over the control
// channel, cudaIpcOpenMemHandle in every peer process (never in the owner's own: CUDA refuses that), then reads and
// system-scope atomics at 256 MiB and at 2 GiB + 2 MiB (the words either side of 2^31 bytes written and read back
// across the processes: rocm-systems#4114's legacy IPC hung past 2 GB on an int overflow). The twin of
// repro_hip_legacy_ipc, the same case names. No VMem address can reach the export (gpu/legacy_ipc.h); the vmem-guard
// case proves the run-time half of that lock on this node's driver.
#include <cuda.h>
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "cuda/cuda_legacy_ipc.h"
#include "cuda/cuda_peer_bandwidth.h"
#include "cuda/cuda_rank.h"
#include "cuda/cuda_vmem.h"
#include "gpu/gpu_host.h"
#include "gpu/legacy_ipc_vmem_guard.h"
#include "gpu/size_rounds.h"
#include "gpu/vmem_share.h"
#include "harness/harness.h"

namespace {

using vmr::RankContext;
using vmr::Status;
using namespace vmr_gpu;  // the shared kernels, host helpers, size rounds and legacy IPC
using vmr_cuda::IpcMapping;
using vmr_cuda::PlainMemory;

using RankState = vmr_cuda::RankState;  // what describe() learns once per rank and every case reads

Status describe(RankContext& ctx, RankState* state) { return vmr_cuda::describe_rank(ctx, state); }

// cudaMalloc has no granule to ask; 2 MiB is CUDA's VMem granule, so "2 GiB + 2 MiB" is the VMem sweep's step.
constexpr size_t kPlainGranule = size_t(2) << 20;
SizeStep step_256m() { return size_step(kPlainGranule, size_t(256) << 20, "256m", "256 MiB", AtomicsRound::kCounters); }
SizeStep step_2g() {
  return size_step(kPlainGranule, (size_t(2) << 30) + kPlainGranule, "2g", "2 GiB + 2 MiB", AtomicsRound::kCounters);
}

// Every rank's cudaMalloc memory exported with cudaIpcGetMemHandle (behind the guard) and opened by every other rank;
// peers[self] stays closed.
Status share(RankContext& ctx, const PlainMemory& own, size_t size, std::vector<IpcMapping>* peers) {
  cudaIpcMemHandle_t mine{};
  VMR_TRY(vmr_cuda::ipc_export(own.allocation(), &mine));
  std::vector<std::string> handles;
  VMR_TRY(ctx.mesh().all_gather(handle_text(mine), &handles));
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    cudaIpcMemHandle_t theirs{};
    VMR_TRY(handle_from_text(handles[j], &theirs));
    const Status opened = (*peers)[j].open(theirs, size);
    if (!opened.ok()) return {opened.verdict, "rank " + std::to_string(j) + "'s handle: " + opened.detail};
  }
  return Status::pass();
}

std::vector<Span> spans_of_mappings(const std::vector<IpcMapping>& peers) {
  std::vector<Span> out;
  for (const auto& p : peers) out.push_back(p.span());
  return out;
}

// read-*: the owner's pattern read whole by every peer (pattern and checksum), the probe words written and read back,
// then kernel and copy-engine bandwidth per direction (cuda_peer_bandwidth.h).
Status legacy_read(RankContext& ctx, const SizeStep& step) {
  const size_t size = step.plan.bytes;
  VMR_TRY(agree_fit(ctx, step.label, 2 * size));  // its own memory and the copy's destination: else SKIP
  PlainMemory own;
  VMR_TRY(own.allocate(size));
  VMR_TRY(fill_pattern(own.span(), ctx.rank(), "the owner's cudaMalloc memory"));
  u64 own_sum = 0;
  VMR_TRY(checksum(own.span(), &own_sum));
  ctx.phase_done("setup");
  std::vector<IpcMapping> peers(ctx.ranks());
  VMR_TRY(share(ctx, own, size, &peers));
  ctx.phase_done("exchange");
  VMR_TRY(verify_peer_reads(ctx, spans_of_mappings(peers), own_sum));
  VMR_TRY(probe_round(ctx, own.span(), spans_of_mappings(peers), step.probe_words));
  ctx.phase_done("verify");
  VMR_TRY(vmr_cuda::peer_read_bandwidth(ctx, spans_of_mappings(peers), size));
  ctx.phase_done("run");
  VMR_TRY(ctx.mesh().barrier("read-done"));  // owners keep their memory until every peer is done
  return Status::pass(step.label +
                      " of every rank's cudaMalloc memory read exactly by every peer through "
                      "cudaIpcOpenMemHandle (pattern, checksum, " +
                      std::to_string(step.probe_words.size()) + " probe words to byte offset " +
                      std::to_string(step.probe_words.back() * 8) + " written and read back)");
}

// atomics-*: system-scope atomics from every peer on counters across the highest boundary inside the buffer.
Status legacy_atomics(RankContext& ctx, const SizeStep& step) {
  const size_t size = step.plan.bytes;
  VMR_TRY(agree_fit(ctx, step.label, size));  // else SKIP naming the size
  PlainMemory own;
  VMR_TRY(own.allocate(size));
  ctx.phase_done("setup");
  std::vector<IpcMapping> peers(ctx.ranks());
  VMR_TRY(share(ctx, own, size, &peers));
  ctx.phase_done("exchange");
  AtomicsRound round;
  VMR_TRY(atomics_across(ctx, own.span(), spans_of_mappings(peers), step, "remote_system_atomics_per_s", &round));
  ctx.phase_done("run");
  VMR_TRY(ctx.mesh().barrier("atomics-done"));
  return Status::pass("system scope on " + step.label + " of cudaMalloc memory: each of " +
                      std::to_string(round.counters) + " counters from word " + std::to_string(step.counters_first) +
                      " holds exactly " + std::to_string(round.expect));
}

Status case_read_256m(RankContext& ctx, const RankState&) { return legacy_read(ctx, step_256m()); }
Status case_read_2g(RankContext& ctx, const RankState&) { return legacy_read(ctx, step_2g()); }
Status case_atomics_256m(RankContext& ctx, const RankState&) { return legacy_atomics(ctx, step_256m()); }
Status case_atomics_2g(RankContext& ctx, const RankState&) { return legacy_atomics(ctx, step_2g()); }

// The run-time lock on this node's driver (gpu/legacy_ipc_vmem_guard.h): what the legacy-IPC attribute and
// cuMemRetainAllocationHandle say of a VMem mapping and of cudaMalloc memory, and the guard's decision on each. No IPC
// call is made.
Status case_vmem_guard(RankContext& ctx, const RankState& state) {
  vmr_cuda::Block vmem;
  VMR_TRY(map_own(state.cuda, state.granule, &vmem));
  return legacy_ipc_vmem_guard<vmr_cuda::PlainBackend>(ctx, vmem, state.granule);
}

}  // namespace

int main(int argc, char** argv) {
  static const vmr::Binary<RankState> binary{
      "repro_cuda_legacy_ipc",
      "cuda",
      describe,
      {
          {"read-256m",
           "cudaIpcGetMemHandle / cudaIpcOpenMemHandle on 256 MiB of cudaMalloc memory: read exactly; kernel vs "
           "cuMemcpyDtoD bandwidth",
           case_read_256m},
          {"atomics-256m", "system-scope atomics from every peer into 256 MiB of cudaMalloc memory opened by IPC",
           case_atomics_256m},
          {"read-2g", "the same read at 2 GiB + 2 MiB: words either side of 2^31 bytes written and read back",
           case_read_2g, 180},
          {"atomics-2g", "system-scope atomics across 2^31 bytes of 2 GiB + 2 MiB of cudaMalloc memory",
           case_atomics_2g, 180},
          {"vmem-guard",
           "the legacy IPC guard on this driver: refuses a VMem mapping, passes cudaMalloc memory (no IPC call)",
           case_vmem_guard},
      },
      vmr_cuda::count_devices};
  return vmr::repro_main(binary, argc, argv);
}
