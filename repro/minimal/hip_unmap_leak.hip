// Minimal reproducer from vmem-repro (rocm-systems PR #4363): create / map / set access / unmap / release cycles,
// each cycle in a VA of its own that stays reserved, as an allocator that keeps its VA does; device memory
// (hipMemGetInfo) and open fds are counted before and after. From rocm-systems PR #801 (7.2) every map also makes a
// CPU mapping of the buffer at the VA that unmap never removes, so the memory comes back only when the VA is freed
// (rocm-systems#6021): "device memory not returned"; fixed by #4363, which no 7.2.x release carries. In 6.4.0 and
// 6.4.1 hipMemRelease did not free the memory either (ROCm/hip#3781).
// One process: the suite's two ranks run these cycles each on its own GPU, and on `--devices 0,0` each counts the
// other's leftovers too; the suite also asks ROCr (hsa_amd_vmem_get_access) that each unmap really happened.
// suite case: repro_hip_vmem_regressions.unmap-leak
// build: hipcc -O2 -std=c++17 -o hip_unmap_leak hip_unmap_leak.hip
// run:   ./hip_unmap_leak [GPU]        (default 0; it prints the suite's --devices: GPU and the next one, if any)
// exit:  0 PASS, 1 FAIL, 3 CRASH (killed by a signal), 77 SKIP, 99 the program itself broke (/proc/self/fd could
//        not be listed)
#include <dirent.h>
#include <hip/hip_runtime.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

typedef unsigned long long u64;

// No runtime teardown (_exit), as the suite's ranks: a crash there is not the verdict.
#define FAIL(...)                                                                                                  \
  (std::printf("VERDICT: FAIL hip_unmap_leak "), std::printf(__VA_ARGS__), std::printf("\n"), std::fflush(stdout), \
   _exit(1))
static void check(hipError_t e, const char* call) {  // names the function: "hipMemUnmap returned ..."
  if (e != hipSuccess) FAIL("%.*s returned %s", int(std::strcspn(call, "(")), call, hipGetErrorName(e));
}
#define HIP_CHECK(call) check((call), #call)

// A crash inside the runtime (ROCr aborts the process on a GPU memory fault) is the suite's CRASH: exit 3.
static void crashed(int sig) {
  char line[96];  // write, not stdio: the crash may have come inside printf or malloc
  const int n = std::snprintf(line, sizeof line, "VERDICT: CRASH hip_unmap_leak killed by signal %d\n", sig);
  if (write(1, line, n) != n) _exit(3);  // nothing else can be done if it fails
  _exit(3);
}

static const int kCycles = 16;  // of 64 MiB each: the suite's kLeakCycles and kLeakBytes

// Fills [p, p + n) with cycle `seed`'s pattern, or with `bad` counts the words that differ (bad[0]) and finds the
// first (bad[1]).
__global__ void k_pattern(u64* p, size_t n, u64 seed, u64* bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (!bad)
      p[i] = (i + 1) * 0x9e3779b97f4a7c15ull + seed;
    else if (p[i] != (i + 1) * 0x9e3779b97f4a7c15ull + seed)
      atomicAdd(&bad[0], 1ull), atomicMin(&bad[1], u64(i));
}

// The fds this process holds, from /proc/self/fd, the directory's own not counted; -1 if it cannot be listed.
static long open_fds() {
  DIR* d = opendir("/proc/self/fd");
  if (!d) return -1;
  long n = -1;
  while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

// Pinned memory on `device`, exportable by fd; *size: the suite's 64 MiB rounded up to its minimum granularity.
static hipMemAllocationProp fd_prop(int device, size_t* size) {
  hipMemAllocationProp prop{};
  // requestedHandleType: in every header (7.2's union has both names)
  prop.type = hipMemAllocationTypePinned, prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;
  prop.location.type = hipMemLocationTypeDevice, prop.location.id = device;
  size_t g = 0;
  HIP_CHECK(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum));
  *size = ((size_t(64) << 20) + g - 1) / g * g;
  return prop;
}

// hipDeviceAttributeVirtualMemoryManagementSupported (89): the suite SKIPs on 0, unless HIP_VMEM_MANAGE_SUPPORT is
// off, which zeroes only the attribute (hipMemCreate still works): the suite then asks ROCr, this file just runs.
static bool vmm(int device) {
  const char* off = std::getenv("HIP_VMEM_MANAGE_SUPPORT");
  int on = off && std::strcmp(off, "true") && !std::atoi(off);  // clr: only "true" or a non-zero number is on
  return on || (hipDeviceGetAttribute(&on, static_cast<hipDeviceAttribute_t>(89), device) == hipSuccess && on);
}

static int run(int argc, char** argv) {
  int count = 0, version = 0;
  const bool gpus = hipGetDeviceCount(&count) == hipSuccess && count > 0;
  const int gpu = argc == 2 ? std::atoi(argv[1]) : 0, next = count > 1 ? (gpu + 1) % count : gpu;
  if (!gpus || hipRuntimeGetVersion(&version) != hipSuccess || version < 60200000 || !vmm(gpu) || !vmm(next))
    return std::printf("VERDICT: SKIP hip_unmap_leak no AMD GPU, HIP %d < 6.2 or no VMM\n", version), 77;
  std::printf("devices: %d,%d\n", gpu, next);  // the suite's --devices: its second rank does the same on `next`
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE}) signal(sig, crashed);
  HIP_CHECK(hipSetDevice(gpu));
  size_t size = 0, free_before = 0, free_after = 0, total = 0;
  hipMemAllocationProp prop = fd_prop(gpu, &size);
  void* va[kCycles];
  for (void*& v : va) HIP_CHECK(hipMemAddressReserve(&v, size, 0, nullptr, 0));  // every VA stays reserved
  u64* cells = nullptr;
  HIP_CHECK(hipMalloc(&cells, 2 * sizeof(u64)));  // the pattern check's counters, made before the first reading
  const long fds_before = open_fds();
  HIP_CHECK(hipMemGetInfo(&free_before, &total));
  for (int c = 0; c < kCycles; ++c) {
    hipMemGenericAllocationHandle_t h;
    HIP_CHECK(hipMemCreate(&h, size, &prop, 0));
    HIP_CHECK(hipMemMap(va[c], size, 0, h, 0));
    // As the suite's map: CLR up to 7.2 at least answers hipSuccess for a map that did not happen; this finds none.
    hipMemLocation here{hipMemLocationTypeDevice, gpu};
    unsigned long long flags = 0;
    if (const hipError_t e = hipMemGetAccess(&flags, &here, va[c]))
      FAIL("hipMemMap returned hipSuccess, but hipMemGetAccess finds no mapping there (%s)", hipGetErrorName(e));
    hipMemAccessDesc access{here, hipMemAccessFlagsProtReadWrite};
    HIP_CHECK(hipMemSetAccess(va[c], size, &access, 1));
    // Written whole and read back by kernels (hipMemset and hipMemcpy silently skip VMem VAs).
    u64 got[2] = {0, ~0ull};
    HIP_CHECK(hipMemcpy(cells, got, sizeof got, hipMemcpyHostToDevice));
    k_pattern<<<264, 256>>>(static_cast<u64*>(va[c]), size / sizeof(u64), c, nullptr);
    k_pattern<<<264, 256>>>(static_cast<u64*>(va[c]), size / sizeof(u64), c, cells);
    HIP_CHECK(hipGetLastError());  // a launch refused (no code object for this GPU) is not a leak
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipMemcpy(got, cells, sizeof got, hipMemcpyDeviceToHost));
    if (got[0]) FAIL("cycle %d: %llu of %zu words differ from its pattern, first at %llu", c, got[0], size / 8, got[1]);
    HIP_CHECK(hipMemUnmap(va[c], size));  // the VA stays reserved
    (void)hipMemRelease(h);               // unchecked, as the suite's handle owner releases it
    (void)hipGetLastError();              // 7.x would keep its error for the next check
  }
  const long fds_after = open_fds();
  HIP_CHECK(hipMemGetInfo(&free_after, &total));
  if (fds_before < 0 || fds_after < 0) return 99;  // /proc/self/fd could not be listed
  const long long kept = (long long)free_before - (long long)free_after, fds = fds_after - fds_before;
  if (kept >= (long long)(kCycles / 2) * (long long)size)
    FAIL(
        "device memory not returned after hipMemUnmap + hipMemRelease while the VA stays reserved: %d cycles of %zu "
        "MiB left %lld MiB in use",
        kCycles, size >> 20, kept >> 20);
  if (fds >= kCycles / 2)
    FAIL("%d map / unmap / release cycles left %lld more fds open (%ld -> %ld)", kCycles, fds, fds_before, fds_after);
  std::printf(
      "VERDICT: PASS hip_unmap_leak %d create / map / unmap / release cycles of %zu MiB, each VA kept "
      "reserved: device memory back (%lld MiB apart), open fds %ld -> %ld\n",
      kCycles, size >> 20, kept >> 20, fds_before, fds_after);
  return 0;
}

// No runtime teardown, as the suite's ranks: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}
