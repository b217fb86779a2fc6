// Minimal reproducer from vmem-repro (rocm-systems PR #9908, openxla/xla PR #46576): hipMemCreate memory granted to its
// own GPU first, then to another GPU, one hipMemSetAccess per device as XLA's allocator made them. From rocm-systems
// PR #6471 ROCr frees the KFD allocation behind a VMem handle, so the other GPU's grant migrates the buffer and the
// owner keeps stale page-table entries: each GPU then reads words the other did not write, or faults (CRASH). XLA's
// workaround grants the owner last (the suite's grant-owner-last). Needs two GPUs that reach each other (peer access).
// No second process shares anything here: each direction runs in a process of its own (the suite's two ranks, one
// after the other instead of at once), so that a fault kills that process and reads as CRASH. Its FAIL line is the
// verdict: the launcher prints none after it.
// suite case: repro_hip_vmem_access.grant-owner-first
// build: hipcc -O2 -std=c++17 -o hip_grant_owner_first hip_grant_owner_first.hip
// run:   ./hip_grant_owner_first [OWNER_GPU OTHER_GPU]        (default 0 1; on a one-GPU node 0 0, which SKIPs)
// exit:  0 PASS, 1 FAIL, 3 CRASH (a process died by a signal), 77 SKIP, 99 the program itself broke (no deadline:
//        the suite's case kills a hung rank and says HANG)
#include <hip/hip_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

// Prints the verdict line, "VERDICT: WORD hip_grant_owner_first DETAIL", and gives the exit code `rc`.
#define VERDICT(rc, word, ...) \
  (std::printf("VERDICT: " word " hip_grant_owner_first " __VA_ARGS__), std::printf("\n"), rc)
static void check(hipError_t e, const char* call) {
  if (e != hipSuccess) VERDICT(1, "FAIL", "%s returned %s", call, hipGetErrorName(e)), std::fflush(stdout), _exit(1);
}
#define HIP_CHECK(call) check((call), #call)

static const size_t kBytes = size_t(4) << 20;  // the suite's size, rounded up to the granule

__device__ unsigned long long pattern(unsigned long long tag, size_t i) { return tag << 56 ^ i * 0x9e37ull; }
__global__ void k_fill(unsigned long long* p, size_t n, unsigned long long tag) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = pattern(tag, i);
}
// Counts the words that differ from `tag`'s pattern (cells[0]) and keeps the lowest of them (cells[1]).
__global__ void k_verify(const unsigned long long* p, size_t n, unsigned long long tag, unsigned long long* cells) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (p[i] != pattern(tag, i)) atomicAdd(&cells[0], 1ull), atomicMin(&cells[1], (unsigned long long)i);
}

// The current GPU writes `tag`'s pattern over the buffer.
static void fill(unsigned long long* va, size_t n, unsigned long long tag) {
  k_fill<<<264, 256>>>(va, n, tag);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
}

// The current GPU reads the buffer: how many words differ from `tag`'s pattern, the first in *first.
static unsigned long long mismatches(const unsigned long long* va, size_t n, unsigned long long tag,
                                     unsigned long long* first) {
  unsigned long long cells[2] = {0, ~0ull}, *d = nullptr;  // ordinary device memory of the current GPU
  HIP_CHECK(hipMalloc(&d, sizeof cells));
  HIP_CHECK(hipMemcpy(d, cells, sizeof cells, hipMemcpyHostToDevice));
  k_verify<<<264, 256>>>(va, n, tag, d);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(cells, d, sizeof cells, hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d));
  *first = cells[1];
  return cells[0];
}

// One rank's work: memory of `owner`, granted to `owner`, then to `other`; each GPU reads what the other wrote.
static int grant_owner_first(int owner, int other) {
  HIP_CHECK(hipSetDevice(owner));
  hipMemAllocationProp prop{};
  prop.type = hipMemAllocationTypePinned;
  prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;  // exportable, as the suite's every allocation
  prop.location.type = hipMemLocationTypeDevice;
  prop.location.id = owner;
  size_t g = 0;
  HIP_CHECK(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum));
  const size_t size = (kBytes + g - 1) / g * g, n = size / 8;
  hipMemGenericAllocationHandle_t h;
  HIP_CHECK(hipMemCreate(&h, size, &prop, 0));
  void* base = nullptr;
  HIP_CHECK(hipMemAddressReserve(&base, size, 0, nullptr, 0));
  HIP_CHECK(hipMemMap(base, size, 0, h, 0));
  // CLR up to 7.2 at least answers hipSuccess for a map that failed below it: ask, as the suite does.
  hipMemLocation here{hipMemLocationTypeDevice, owner};
  unsigned long long flags = 0;
  const hipError_t found = hipMemGetAccess(&flags, &here, base);
  if (found == hipErrorInvalidValue) check(found, "hipMemMap answered hipSuccess, yet no map: hipMemGetAccess");
  check(found, "hipMemGetAccess(after hipMemMap)");
  for (int d : {owner, other}) {  // one call per device, the owner's first
    hipMemAccessDesc access{{hipMemLocationTypeDevice, d}, hipMemAccessFlagsProtReadWrite};
    HIP_CHECK(hipMemSetAccess(base, size, &access, 1));
  }
  auto* va = static_cast<unsigned long long*>(base);
  unsigned long long first = 0, bad = 0;
  fill(va, n, 1);
  HIP_CHECK(hipSetDevice(other));
  if ((bad = mismatches(va, n, 1, &first)))
    return VERDICT(1, "FAIL",
                   "GPU %d reading what GPU %d wrote (granted GPU %d, then GPU %d): %llu of %zu words "
                   "differ, first at word %llu",
                   other, owner, owner, other, bad, n, first);
  fill(va, n, 2);
  HIP_CHECK(hipSetDevice(owner));
  if ((bad = mismatches(va, n, 2, &first)))
    return VERDICT(1, "FAIL",
                   "GPU %d reading what GPU %d wrote (granted GPU %d, then GPU %d): %llu of %zu words "
                   "differ, first at word %llu",
                   owner, other, owner, other, bad, n, first);
  return 0;
}

static int run(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--rank") == 0)
    return grant_owner_first(std::atoi(argv[2]), std::atoi(argv[3]));
  // VMM support: hipDeviceAttributeVirtualMemoryManagementSupported (89), on both GPUs as each rank asks
  int count = 0, version = 0, vmm = 0, vmm_other = 0;
  const bool gpu = hipGetDeviceCount(&count) == hipSuccess && count > 0;
  const int a = argc == 3 ? std::atoi(argv[1]) : 0, b = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  const auto attr = static_cast<hipDeviceAttribute_t>(89);
  if (!gpu || hipRuntimeGetVersion(&version) || version < 60200000 || hipDeviceGetAttribute(&vmm, attr, a) ||
      hipDeviceGetAttribute(&vmm_other, attr, b) || !vmm || !vmm_other)
    return VERDICT(77, "SKIP", "no AMD GPU, HIP %d before 6.2 (no VMem export by fd) or no VMM", version);
  std::printf("devices: %d,%d\n", a, b);  // the suite's --devices for the same run
  if (a == b) return VERDICT(77, "SKIP", "needs two different GPUs: only another GPU's attach of the memory moves it");
  int ab = 0, ba = 0;  // whether each GPU can reach the other's memory, as each rank asks
  HIP_CHECK(hipDeviceCanAccessPeer(&ba, b, a));
  HIP_CHECK(hipDeviceCanAccessPeer(&ab, a, b));
  if (!ab || !ba)
    return VERDICT(77, "SKIP", "GPUs %d and %d cannot both access each other's memory (no peer access)", a, b);
  std::fflush(stdout);           // before the ranks write: a FAIL line of theirs must come last
  for (int r = 0; r < 2; ++r) {  // rank 0 owns GPU a's memory, rank 1 GPU b's
    const int owner = r ? b : a, other = r ? a : b;
    const pid_t pid = fork();  // each rank execs this program again: a forked HIP runtime is not usable
    if (pid == 0) {
      char x[16], y[16];
      std::snprintf(x, sizeof x, "%d", owner), std::snprintf(y, sizeof y, "%d", other);
      execl("/proc/self/exe", argv[0], "--rank", x, y, static_cast<char*>(nullptr));
      _exit(99);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return 99;
    const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0, code = WIFEXITED(status) ? WEXITSTATUS(status) : 99;
    if (sig)
      return VERDICT(3, "CRASH",
                     "the rank owning GPU %d's memory (granted GPU %d, then GPU %d) was killed by signal "
                     "%d (%s)",
                     owner, owner, other, sig, strsignal(sig));
    if (code == 1) return 1;  // the rank printed its FAIL line
    if (code)
      return VERDICT(code == 99 ? 99 : 1, "FAIL", "the rank owning GPU %d's memory exited with status %d", owner, code);
  }
  return VERDICT(0, "PASS",
                 "each GPU read exactly what the other wrote through the owner's VA, the owner granted first");
}

// Every process leaves without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}
