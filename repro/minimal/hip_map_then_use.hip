// Minimal reproducer from vmem-repro (rocm-systems#11693: gfx1201, ROCm 7.2.1 userspace, Linux's in-tree amdgpu;
// clr PR #288's test): a kernel launched right after hipMemMap + hipMemSetAccess on a fresh 64 MiB mapping reads
// zeros and loses some of its stores, in some of 200 such maps (102 of 300 with no delay, 0 of 300 after 2 ms).
// Reported on gfx1201 (gfx1200, the same RDNA4 family, inferred); elsewhere every word must read back exactly.
// As in the suite, two rank processes (one per GPU) do the 200 maps at once, started by this one, which judges as
// the suite's launcher does; the pattern is simpler, and ROCr is not asked whether each unmap happened.
// suite case: repro_hip_vmem_access.map-then-use
// build: hipcc -O2 -std=c++17 -o hip_map_then_use hip_map_then_use.hip
// run:   ./hip_map_then_use [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
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
    std::printf("VERDICT: FAIL hip_map_then_use %.*s returned %s\n", int(std::strcspn(call, "(")), call,
                hipGetErrorName(e)),
        std::fflush(stdout), _exit(1);
}
#define HIP_CHECK(call) check((call), #call)

using u64 = unsigned long long;
static const int kMaps = 200;
static const size_t kMapBytes = size_t(64) << 20;  // rounded up to the granule

__device__ u64 pattern(u64 tag, u64 i) { return (tag << 40) ^ i ^ 0x9e3779b97f4a7c15ull; }  // never 0
__global__ void k_fill(u64* p, size_t n, u64 tag) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = pattern(tag, i);
}
__global__ void k_verify(const u64* p, size_t n, u64 tag, u64* bad) {  // counts the words that differ
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (p[i] != pattern(tag, i)) atomicAdd(bad, 1ull);
}

// Reserve, map, grant this process's device read-write. CLR up to 7.2 at least answers hipSuccess for a map that
// failed below it: hipMemGetAccess then finds no mapping (left so: unmapping it dereferences null up to 6.4).
static u64* map_fresh(hipMemGenericAllocationHandle_t h, size_t size, int device) {
  void* va = nullptr;
  HIP_CHECK(hipMemAddressReserve(&va, size, 0, nullptr, 0));
  HIP_CHECK(hipMemMap(va, size, 0, h, 0));
  hipMemLocation here{hipMemLocationTypeDevice, device};
  u64 flags = 0;
  const hipError_t found = hipMemGetAccess(&flags, &here, va);
  if (found == hipErrorInvalidValue)
    std::puts(
        "VERDICT: FAIL hip_map_then_use hipMemMap returned hipSuccess, but hipMemGetAccess finds no mapping "
        "there: the map did not happen"),
        std::fflush(stdout), _exit(1);
  check(found, "hipMemGetAccess after hipMemMap");
  hipMemAccessDesc access{{hipMemLocationTypeDevice, device}, hipMemAccessFlagsProtReadWrite};
  HIP_CHECK(hipMemSetAccess(va, size, &access, 1));
  return static_cast<u64*>(va);
}

// One rank (a process of its own, as the suite's): 200 fresh maps on `device`, each written by a kernel right after
// set-access and read back by the next kernel, then unmapped and released. Prints its verdict line.
static int use_fresh_maps(int device) {
  HIP_CHECK(hipSetDevice(device));
  hipMemAllocationProp prop{};  // as the suite makes all its memory: exportable by fd (none is exported here)
  prop.type = hipMemAllocationTypePinned;
  prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;  // in every header (7.2's union has both names)
  prop.location.type = hipMemLocationTypeDevice;
  prop.location.id = device;
  size_t g = 0;
  HIP_CHECK(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum));
  const size_t size = (kMapBytes + g - 1) / g * g, words = size / sizeof(u64);
  int bad_maps = 0, first_bad_map = -1;
  u64 bad_words = 0;
  for (int i = 0; i < kMaps; ++i) {
    hipMemGenericAllocationHandle_t h;
    HIP_CHECK(hipMemCreate(&h, size, &prop, 0));
    u64* p = map_fresh(h, size, device);
    k_fill<<<264, 256>>>(p, words, i);  // at once: no delay after the grant
    HIP_CHECK(hipGetLastError());       // a launch refused (no code object for this GPU) is not lost stores
    HIP_CHECK(hipDeviceSynchronize());
    u64 *cell = nullptr, bad = 0;  // counted into ordinary device memory: hipMemcpy silently skips VMem VAs
    HIP_CHECK(hipMalloc(&cell, sizeof bad));
    HIP_CHECK(hipMemcpy(cell, &bad, sizeof bad, hipMemcpyHostToDevice));
    k_verify<<<264, 256>>>(p, words, i, cell);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipMemcpy(&bad, cell, sizeof bad, hipMemcpyDeviceToHost));
    HIP_CHECK(hipFree(cell));
    (void)hipMemUnmap(p, size), (void)hipMemRelease(h), (void)hipMemAddressFree(p, size), (void)hipGetLastError();
    if (bad == 0) continue;
    bad_words += bad;
    if (bad_maps++ == 0) first_bad_map = i;
  }
  if (bad_maps)
    return std::printf(
               "VERDICT: FAIL hip_map_then_use GPU %d: %d of %d fresh maps used at once lost stores: %llu words "
               "differ from what the kernel wrote, first in map %d\n",
               device, bad_maps, kMaps, bad_words, first_bad_map),
           1;
  return std::printf(
             "VERDICT: PASS hip_map_then_use GPU %d: %d fresh maps of %zu MiB, each used right after "
             "set-access, all exact\n",
             device, kMaps, size >> 20),
         0;
}

static int run(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--rank") == 0) return use_fresh_maps(std::atoi(argv[2]));
  int count = 0, version = 0, vmm[2] = {};  // VMM support: hipDeviceAttributeVirtualMemoryManagementSupported, 89
  if (hipGetDeviceCount(&count) != hipSuccess) count = 0;
  const int gpu[2] = {argc == 3 ? std::atoi(argv[1]) : 0, argc == 3 ? std::atoi(argv[2]) : (count > 1)};
  if (count == 0 || hipRuntimeGetVersion(&version) != hipSuccess || version < 60200000 || gpu[0] >= count ||
      gpu[1] >= count || hipDeviceGetAttribute(&vmm[0], static_cast<hipDeviceAttribute_t>(89), gpu[0]) ||
      hipDeviceGetAttribute(&vmm[1], static_cast<hipDeviceAttribute_t>(89), gpu[1]) || !vmm[0] || !vmm[1])
    return std::printf("VERDICT: SKIP hip_map_then_use no such AMD GPUs, HIP %d < 6.2 or no VMM\n", version), 77;
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
      return std::printf("VERDICT: CRASH hip_map_then_use rank %d (GPU %d) was killed by signal %d (%s)\n", r, gpu[r],
                         WTERMSIG(status[r]), strsignal(WTERMSIG(status[r]))),
             3;
  for (int r = 0; r < 2; ++r)
    if (WEXITSTATUS(status[r]) != 0)
      return std::printf("%s (rank %d exited with status %d)\n",
                         std::strncmp(said[r], "VERDICT: ", 9) ? "VERDICT: FAIL hip_map_then_use no verdict" : said[r],
                         r, WEXITSTATUS(status[r])),
             WEXITSTATUS(status[r]) == 99 ? 99 : 1;
  return std::printf("%s\n", said[0]), 0;
}

// Every process leaves without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}
