// repro_host_shm: the host (no GPU) baseline of the VMem sharing flow every GPU reproducer follows.
//
// Each rank plays owner of one buffer and peer of every other rank's buffer:
//   owner: create memory (memfd)  -> reserve a VA range (PROT_NONE) -> map into it (MAP_FIXED)
//          -> grant access (mprotect) -> export the fd
//   peer:  receive the fd (SCM_RIGHTS) -> reserve -> map -> grant access -> read / atomically add
// The GPU analogues: hsa_amd_vmem_handle_create / hipMemCreate, *_address_reserve, *_map, *_set_access,
// export/import of a dma-buf fd. If this binary fails, the node or the suite is broken, not the GPU stack.
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <system_error>
#include <thread>
#include <vector>

#include "harness/harness.h"
#include "harness/read_direction.h"
#include "harness/text.h"

namespace {

using vmr::RankContext;
using vmr::ScopeExit;
using vmr::Status;
using vmr::UniqueFd;

constexpr size_t kReadBytes = 16u << 20;  // per rank, for `read`
constexpr size_t kCounters = 64;          // per rank, for `atomics`, one per cache line
constexpr size_t kCounterStride = 64 / sizeof(uint64_t);
constexpr int kThreads = 2;                   // per rank; the CI machine has 2 cores
constexpr uint64_t kAddsPerPeer = 64 * 1024;  // per thread and peer; a multiple of kCounters

// A reserved VA range with memory mapped into it; unmapped on every path.
class Mapping {
 public:
  Mapping() = default;
  Mapping(Mapping&& o) noexcept : va_(std::exchange(o.va_, nullptr)), size_(o.size_) {}
  Mapping& operator=(Mapping&&) = delete;
  ~Mapping() { release(); }
  void release() {
    if (va_) ::munmap(va_, size_);
    va_ = nullptr;
  }
  void* va() const { return va_; }

  Status reserve(size_t size) {
    void* va = ::mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (va == MAP_FAILED)
      return Status::fail(vmr::errno_text("mmap(PROT_NONE) reserving " + std::to_string(size) + " bytes"));
    va_ = va;
    size_ = size;
    return Status::pass();
  }
  Status map(int fd) {
    if (::mmap(va_, size_, PROT_NONE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
      return Status::fail(vmr::errno_text("mmap(MAP_FIXED) of the shared fd"));
    return Status::pass();
  }
  Status grant_access() {
    if (::mprotect(va_, size_, PROT_READ | PROT_WRITE) != 0) return Status::fail(vmr::errno_text("mprotect(RW)"));
    return Status::pass();
  }

 private:
  void* va_ = nullptr;
  size_t size_ = 0;
};

uint64_t pattern(int rank, size_t i) {
  uint64_t x = (uint64_t(rank) << 40) ^ i ^ 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Owner side: memory, a VA range, the mapping, access, and the fd to export.
Status create_owned(size_t size, Mapping* own, UniqueFd* fd) {
  fd->reset(::memfd_create("vmem-repro", MFD_CLOEXEC));
  if (!fd->valid()) return Status::fail(vmr::errno_text("memfd_create"));
  if (::ftruncate(fd->get(), off_t(size)) != 0) return Status::fail(vmr::errno_text("ftruncate"));
  VMR_TRY(own->reserve(size));
  VMR_TRY(own->map(fd->get()));
  return own->grant_access();
}

// Every rank exports its fd to every peer, then imports every peer's: reserve, map, grant access.
Status exchange(RankContext& ctx, int own_fd, size_t size, std::vector<Mapping>* peers) {
  peers->resize(ctx.ranks());
  return ctx.mesh().share_fd(own_fd, {}, [&](int j, int fd, const std::string&) {
    Mapping& m = (*peers)[j];
    VMR_TRY(m.reserve(size));
    VMR_TRY(m.map(fd));  // the mapping keeps the memory alive; the fd closes after this
    return m.grant_access();
  });
}

Status describe_host(RankContext& ctx, vmr::NoState*) {
  ctx.info("device", "cpu (host baseline; --devices ignored)");
  ctx.info("page_size", std::to_string(::sysconf(_SC_PAGESIZE)));
  return Status::pass();
}

// --- cases ------------------------------------------------------------------------------------------------------

Status case_read(RankContext& ctx, const vmr::NoState&) {
  Mapping own;
  UniqueFd fd;
  VMR_TRY(create_owned(kReadBytes, &own, &fd));
  auto* words = static_cast<uint64_t*>(own.va());
  const size_t n = kReadBytes / sizeof(uint64_t);
  for (size_t i = 0; i < n; ++i) words[i] = pattern(ctx.rank(), i);
  ctx.phase_done("setup");

  std::vector<Mapping> peers;
  VMR_TRY(exchange(ctx, fd.get(), kReadBytes, &peers));
  ctx.phase_done("exchange");

  // The figure is one direction's (harness/read_direction.h): this rank's verify of its source rank's memory.
  const int source = vmr::read_source_rank(ctx.rank(), ctx.ranks());
  double secs = 0;
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    const auto* peer = static_cast<const uint64_t*>(peers[j].va());
    const int64_t t0 = vmr::monotonic_ns();
    for (size_t i = 0; i < n; ++i)
      if (peer[i] != pattern(j, i))
        return Status::fail("rank " + std::to_string(j) + "'s word " + std::to_string(i) + " reads " +
                            std::to_string(peer[i]) + ", expected " + std::to_string(pattern(j, i)));
    if (j == source) secs = double(vmr::monotonic_ns() - t0) / 1e9;
  }
  ctx.phase_done("verify");
  ctx.info("read_direction", vmr::read_direction(ctx.rank(), ctx.devices(), false));
  // Owners keep their memory until every peer has read it.
  VMR_TRY(ctx.mesh().barrier("read-done"));
  if (ctx.rank() == vmr::kBandwidthRank) ctx.metric("peer_verify_GBps", double(kReadBytes) / secs / 1e9, "GB/s");
  return Status::pass(std::to_string(kReadBytes >> 20) + " MiB pattern of each of " + std::to_string(ctx.ranks()) +
                      " ranks read exactly by every peer");
}

Status case_atomics(RankContext& ctx, const vmr::NoState&) {
  const size_t bytes = kCounters * kCounterStride * sizeof(uint64_t);
  Mapping own;
  UniqueFd fd;
  VMR_TRY(create_owned(bytes, &own, &fd));  // memfd pages start zeroed
  ctx.phase_done("setup");
  std::vector<Mapping> peers;
  VMR_TRY(exchange(ctx, fd.get(), bytes, &peers));
  VMR_TRY(ctx.mesh().barrier("zeroed"));
  ctx.phase_done("exchange");

  int64_t t0 = vmr::monotonic_ns();
  std::vector<std::thread> threads;
  // Every started thread is joined on every path: a joinable std::thread destroyed while unwinding would abort.
  ScopeExit join_all([&] {
    for (auto& t : threads)
      if (t.joinable()) t.join();
  });
  try {
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&] {
        for (uint64_t k = 0; k < kAddsPerPeer; ++k)
          for (int j = 0; j < ctx.ranks(); ++j) {
            if (j == ctx.rank()) continue;
            auto* counters = static_cast<uint64_t*>(peers[j].va());
            __atomic_fetch_add(&counters[(k % kCounters) * kCounterStride], 1, __ATOMIC_SEQ_CST);
          }
      });
  } catch (const std::system_error& e) {
    // The other ranks see this one leave; the launcher reports this record (HARNESS outranks their FAIL).
    return Status::harness("std::thread for adder " + std::to_string(threads.size() + 1) + " of " +
                           std::to_string(kThreads) + ": " + e.what() + " (ulimit -u?)");
  }
  for (auto& t : threads) t.join();
  double secs = double(vmr::monotonic_ns() - t0) / 1e9;
  VMR_TRY(ctx.mesh().barrier("added"));
  ctx.phase_done("run");

  const uint64_t expect = uint64_t(ctx.ranks() - 1) * kThreads * (kAddsPerPeer / kCounters);
  const auto* counters = static_cast<const uint64_t*>(own.va());
  for (size_t c = 0; c < kCounters; ++c) {
    uint64_t got = __atomic_load_n(&counters[c * kCounterStride], __ATOMIC_SEQ_CST);
    if (got != expect)
      return Status::fail("counter " + std::to_string(c) + " of rank " + std::to_string(ctx.rank()) + " is " +
                          std::to_string(got) + ", expected exactly " + std::to_string(expect));
  }
  ctx.phase_done("verify");

  // Node-wide rate: every rank's adds over the slowest rank's time.
  double slowest = 0;
  VMR_TRY(ctx.max_over_ranks(secs, &slowest));
  const double total_adds = double(ctx.ranks()) * kThreads * kAddsPerPeer * (ctx.ranks() - 1);
  ctx.metric("remote_atomics_per_s", total_adds / slowest, "ops/s");
  VMR_TRY(ctx.mesh().barrier("verified"));
  return Status::pass("each of " + std::to_string(kCounters) + " counters per rank holds exactly " +
                      std::to_string(expect) + " (" + std::to_string(ctx.ranks()) + " ranks x " +
                      std::to_string(kThreads) + " threads)");
}

// Self-test: the last rank writes through a VA it just unmapped; the launcher must report CRASH naming SIGSEGV.
Status case_fault(RankContext& ctx, const vmr::NoState&) {
  if (ctx.rank() == ctx.ranks() - 1) {
    rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);  // a deliberate fault need not leave a core file behind
    Mapping m;
    UniqueFd fd;
    VMR_TRY(create_owned(4096, &m, &fd));
    auto* p = static_cast<volatile uint64_t*>(m.va());
    m.release();
    std::fprintf(stderr, "writing through unmapped VA %p\n", static_cast<void*>(const_cast<uint64_t*>(p)));
    std::fflush(stderr);
    *p = 1;
    return Status::fail("write through an unmapped VA did not fault");
  }
  VMR_TRY(ctx.mesh().barrier("after-fault"));
  return Status::fail("the faulting rank came back");
}

// Self-test: the last rank blocks forever and ignores SIGTERM, so the launcher must escalate to SIGKILL.
Status case_hang(RankContext& ctx, const vmr::NoState&) {
  if (ctx.rank() == ctx.ranks() - 1) {
    ::signal(SIGTERM, SIG_IGN);
    for (;;) ::pause();
  }
  VMR_TRY(ctx.mesh().barrier("never"));
  return Status::fail("the hanging rank came back");
}

// Self-test: the last rank leaves mid-protocol without a record; the others must notice at once, not hang.
Status case_peer_exit(RankContext& ctx, const vmr::NoState&) {
  const int leaver = ctx.ranks() - 1;
  if (ctx.rank() == leaver) {
    vmr::Message m;
    VMR_TRY(ctx.mesh().recv(0, vmr::MsgKind::Data, 0, &m));
    std::fprintf(stderr, "leaving mid-protocol on purpose\n");
    std::fflush(nullptr);
    ::_exit(0);
  }
  VMR_TRY(ctx.mesh().send(leaver, vmr::MsgKind::Data, "ping"));
  vmr::Message reply;
  VMR_TRY(ctx.mesh().recv(leaver, vmr::MsgKind::Data, 0, &reply));
  return Status::fail("rank " + std::to_string(leaver) + " answered instead of leaving");
}

}  // namespace

int main(int argc, char** argv) {
  static const vmr::Binary<vmr::NoState> binary{
      "repro_host_shm",
      "host",
      describe_host,
      {
          {"read", "every peer reads the pattern each owner wrote into its memfd mapping", case_read},
          {"atomics", "every rank's threads add atomically into every peer's counters; exact totals", case_atomics},
          {"fault", "self-test: a rank writes through an unmapped VA (expected CRASH, SIGSEGV)", case_fault},
          {"hang", "self-test: a rank blocks forever (expected HANG, nothing left running)", case_hang, 3},
          {"peer-exit", "self-test: a rank leaves mid-protocol (the others must not hang)", case_peer_exit},
      }};
  return vmr::repro_main(binary, argc, argv);
}
