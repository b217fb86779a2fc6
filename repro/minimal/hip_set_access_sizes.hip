// Minimal reproducer from vmem-repro (rocm-systems#2516, the sizes of PR #2568's test: 2379776, 7864320, 6533120;
// #2667: 4096, 8192, 16384 on gfx950): allocations mapped one after another into one reservation, as a growing pool
// does, each granted on its own with hipMemSetAccess(its VA, its size). From ROCm 7.0 CLR checks the size against
// sums of the reservation's mappings from its first one, so a later mapping's grant answers hipErrorInvalidValue
// (all of 7.0 to 7.2.3, and Debian's 7.2.4 usually: it sums in a std::set's heap order). Fixed by rocm-systems PR
// #2451 (develop, 2026-01-26; TheRock from 7.11). Up to 6.4 there is no such check: every grant must work.
// As in the suite, two rank processes (one per GPU) run both series at once, started by this one, which judges as
// the suite's launcher does; the pattern is simpler, and ROCr is not asked whether each unmap happened.
// suite case: repro_hip_vmem_access.set-access-sizes
// build: hipcc -O2 -std=c++17 -o hip_set_access_sizes hip_set_access_sizes.hip
// run:   ./hip_set_access_sizes [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
// exit:  0 PASS, 1 FAIL, 3 CRASH (a rank died by a signal), 77 SKIP, 99 the program itself broke (no deadline:
//        the suite's case kills a hung rank and says HANG)
#include <hip/hip_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

static void check(hipError_t e, const char* call) {  // the function's name only, as the suite's details give it;
  if (e != hipSuccess)                               // _exit: no runtime teardown can turn this FAIL into a crash
    std::printf("VERDICT: FAIL hip_set_access_sizes %.*s returned %s\n", int(std::strcspn(call, "(")), call,
                hipGetErrorName(e)),
        std::fflush(stdout), _exit(1);
}
#define HIP_CHECK(call) check((call), #call)

using u64 = unsigned long long;
// The sizes of the two series, rounded up to the granule (AMD's minimum, 4 KiB, leaves them as they are).
static const size_t kSeries[2][3] = {{2379776, 7864320, 6533120}, {4096, 8192, 16384}};

__device__ u64 pattern(u64 tag, u64 i) { return (tag << 40) ^ i ^ 0x9e3779b97f4a7c15ull; }  // never 0
__global__ void k_fill(u64* p, size_t n, u64 tag) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = pattern(tag, i);
}
__global__ void k_verify(const u64* p, size_t n, u64 tag, u64* bad) {  // counts the words that differ
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (p[i] != pattern(tag, i)) atomicAdd(bad, 1ull);
}

// One rank (a process of its own, as the suite's), on `device`, for each series: one reservation of the sizes' sum;
// each size created, mapped after the previous one, checked mapped, granted to this process's device on its own (its
// VA, its size), written and read whole; then all unmapped, released, freed. Prints its verdict line.
static int grant_series(int device) {
  HIP_CHECK(hipSetDevice(device));
  hipMemAllocationProp prop{};  // as the suite makes all its memory: exportable by fd (none is exported here)
  prop.type = hipMemAllocationTypePinned;
  prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;  // in every header (7.2's union has both names)
  prop.location.type = hipMemLocationTypeDevice;
  prop.location.id = device;
  size_t g = 0;
  HIP_CHECK(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum));
  for (const size_t* wanted : kSeries) {
    size_t sizes[3], total = 0, offset = 0;
    for (int i = 0; i < 3; ++i) total += sizes[i] = (wanted[i] + g - 1) / g * g;
    char* base = nullptr;
    HIP_CHECK(hipMemAddressReserve(reinterpret_cast<void**>(&base), total, 0, nullptr, 0));
    hipMemGenericAllocationHandle_t h[3];
    for (int i = 0; i < 3; offset += sizes[i++]) {
      u64* va = reinterpret_cast<u64*>(base + offset);
      HIP_CHECK(hipMemCreate(&h[i], sizes[i], &prop, 0));
      HIP_CHECK(hipMemMap(va, sizes[i], 0, h[i], 0));
      hipMemLocation here{hipMemLocationTypeDevice, device};  // CLR up to 7.2 at least answers hipSuccess for a map
      u64 flags = 0;                                          // that failed below it: then nothing is found there
      const hipError_t found = hipMemGetAccess(&flags, &here, va);
      if (found == hipErrorInvalidValue)  // left so: unmapping it dereferences null up to 6.4
        return std::puts(
                   "VERDICT: FAIL hip_set_access_sizes hipMemMap returned hipSuccess, but hipMemGetAccess "
                   "finds no mapping there: the map did not happen"),
               1;
      check(found, "hipMemGetAccess after hipMemMap");
      hipMemAccessDesc access{{hipMemLocationTypeDevice, device}, hipMemAccessFlagsProtReadWrite};
      const hipError_t granted = hipMemSetAccess(va, sizes[i], &access, 1);
      if (granted != hipSuccess)
        return std::printf(
                   "VERDICT: FAIL hip_set_access_sizes GPU %d: mapping %d of 3 (%zu bytes at offset %zu of "
                   "one reservation): hipMemSetAccess returned %s\n",
                   device, i + 1, sizes[i], offset, hipGetErrorName(granted)),
               1;
      k_fill<<<264, 256>>>(va, sizes[i] / sizeof(u64), i);
      HIP_CHECK(hipGetLastError());  // a launch refused (no code object for this GPU) is no verdict on set-access
      HIP_CHECK(hipDeviceSynchronize());
      u64 *cell = nullptr, bad = 0;  // counted into ordinary device memory: hipMemcpy silently skips VMem VAs
      HIP_CHECK(hipMalloc(&cell, sizeof bad));
      HIP_CHECK(hipMemcpy(cell, &bad, sizeof bad, hipMemcpyHostToDevice));
      k_verify<<<264, 256>>>(va, sizes[i] / sizeof(u64), i, cell);
      HIP_CHECK(hipGetLastError());
      HIP_CHECK(hipDeviceSynchronize());
      HIP_CHECK(hipMemcpy(&bad, cell, sizeof bad, hipMemcpyDeviceToHost));
      HIP_CHECK(hipFree(cell));
      if (bad)
        return std::printf(
                   "VERDICT: FAIL hip_set_access_sizes GPU %d: %zu bytes at offset %zu: %llu of %zu words "
                   "differ from the pattern\n",
                   device, sizes[i], offset, bad, sizes[i] / sizeof(u64)),
               1;
    }
    offset = 0;  // all unmapped, then all released, then the reservation freed, as the suite's owners do
    for (int i = 0; i < 3; offset += sizes[i++]) (void)hipMemUnmap(base + offset, sizes[i]);
    for (int i = 0; i < 3; ++i) (void)hipMemRelease(h[i]);
    (void)hipMemAddressFree(base, total), (void)hipGetLastError();
  }
  return std::printf(
             "VERDICT: PASS hip_set_access_sizes GPU %d: each mapping granted on its own, written and read "
             "whole, in reservations of the sizes of rocm-systems#2516 and #2667\n",
             device),
         0;
}

static int run(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--rank") == 0) return grant_series(std::atoi(argv[2]));
  int count = 0, version = 0, vmm[2] = {};  // VMM support: hipDeviceAttributeVirtualMemoryManagementSupported, 89
  if (hipGetDeviceCount(&count) != hipSuccess) count = 0;
  const int gpu[2] = {argc == 3 ? std::atoi(argv[1]) : 0, argc == 3 ? std::atoi(argv[2]) : (count > 1)};
  if (count == 0 || hipRuntimeGetVersion(&version) != hipSuccess || version < 60200000 || gpu[0] >= count ||
      gpu[1] >= count || hipDeviceGetAttribute(&vmm[0], static_cast<hipDeviceAttribute_t>(89), gpu[0]) ||
      hipDeviceGetAttribute(&vmm[1], static_cast<hipDeviceAttribute_t>(89), gpu[1]) || !vmm[0] || !vmm[1])
    return std::printf("VERDICT: SKIP hip_set_access_sizes no such AMD GPUs, HIP %d < 6.2 or no VMM\n", version), 77;
  std::printf("devices: %d,%d\n", gpu[0], gpu[1]);  // the suite's --devices for the same run: one rank per GPU
  std::fflush(stdout);
  // The ranks run at once, each its own process as in the suite; this one only starts them and judges.
  pid_t pid[2];
  int out[2], status[2] = {};
  for (int r = 0; r < 2; ++r) {
    int p[2];
    if (pipe(p) != 0 || (pid[r] = fork()) < 0) return 99;
    if (pid[r] == 0) {  // the rank execs this program again: a forked HIP runtime is not usable; stdout: the pipe
      dup2(p[1], STDOUT_FILENO), close(p[0]), close(p[1]);
      execl("/proc/self/exe", argv[0], "--rank", std::to_string(gpu[r]).c_str(), static_cast<char*>(nullptr));
      _exit(99);
    }
    close(p[1]), out[r] = p[0];
  }
  char said[2][1024] = {};  // each rank's verdict line: it writes once, as it exits
  for (int r = 0; r < 2; ++r) {
    if (read(out[r], said[r], sizeof said[r] - 1) > 0) said[r][std::strcspn(said[r], "\n")] = 0;
    if (waitpid(pid[r], &status[r], 0) != pid[r]) return 99;
  }
  // As the suite's launcher decides: a rank's death by a signal first, then a rank's FAIL, else rank 0's PASS.
  for (int r = 0; r < 2; ++r)
    if (WIFSIGNALED(status[r]))
      return std::printf("VERDICT: CRASH hip_set_access_sizes rank %d (GPU %d) was killed by signal %d (%s)\n", r,
                         gpu[r], WTERMSIG(status[r]), strsignal(WTERMSIG(status[r]))),
             3;
  for (int r = 0; r < 2; ++r)
    if (WEXITSTATUS(status[r]) != 0)
      return std::printf(
                 "%s (rank %d exited with status %d)\n",
                 std::strncmp(said[r], "VERDICT: ", 9) ? "VERDICT: FAIL hip_set_access_sizes no verdict" : said[r], r,
                 WEXITSTATUS(status[r])),
             WEXITSTATUS(status[r]) == 99 ? 99 : 1;
  return std::printf("%s\n", said[0]), 0;
}

// Every process leaves without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}
