// Minimal reproducer from vmem-repro (rocm-systems#2667): a power-of-two VMem allocator maps a block of one granule,
// then one of two granules behind it, in one reservation, and grants access to the second block alone:
// hipMemSetAccess(base + granule, 2 granules). ROCm 7.0 to 7.2 compare the size with running sums of the
// reservation's mapping sizes, walked in an order that depends on where the runtime's objects lie, and refuse it
// (hipErrorInvalidValue) in some reservations and not others (rocm-systems PR #6977: "non-deterministic"), so 8
// reservations are tried, all alive at once. Up to 6.4 it works, and so it does once a release carries rocm-systems
// PR #2451, which walks the mappings from the one at the VA.
// Variant HOLE: blocks 0 and 2 of a three-granule reservation mapped, the middle one left unmapped, and access set
// from the base over all three: refused on every ROCm release, a FAIL (why the allocator renews memory at reuse time
// instead of leaving holes).
// The suite's case runs this in one process per --devices entry at once; here the GPUs go one after the other.
// suite case: repro_pow2_remap.set-access-subrange
// variant HOLE: repro_pow2_remap.set-access-hole
// build: hipcc -O2 -std=c++17 -o hip_pow2_set_access hip_pow2_set_access.hip
// run:   ./hip_pow2_set_access [GPU_A GPU_B]            (default 0 1, or 0 0 on a one-GPU node)
// exit:  0 PASS, 1 FAIL, 3 CRASH (a signal, as from a GPU memory fault that aborts the process), 77 SKIP, 99 the
//        program itself broke (no deadline: the suite's case kills a hung rank and says HANG)
#include <hip/hip_runtime.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

// The verdict line, then the exit code that goes with it. A failed call is a FAIL naming it; the process leaves
// without the runtime's teardown (see main).
#define VERDICT(rc, word, fmt, ...) \
  (std::printf("VERDICT: " word " hip_pow2_set_access " fmt "\n", ##__VA_ARGS__), std::fflush(stdout), (rc))
#define HIP_CHECK(call) \
  if (const hipError_t e = (call)) _exit(VERDICT(1, "FAIL", "%s returned %s", #call, hipGetErrorName(e)))

// Up to ROCm 6.4 a GPU memory fault aborts the process (ROCr prints "Memory access fault" and calls abort()); the
// suite's rank is a child process, so there it reads CRASH, and so it does here. write() only: a signal handler.
static void crashed(int) {
  static const char line[] = "VERDICT: CRASH hip_pow2_set_access this process was killed by a signal\n";
  (void)!write(1, line, sizeof line - 1);
  _exit(3);
}

__global__ void k_fill(unsigned long long* p, size_t n, unsigned long long tag) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = tag << 32 | i;
}
__global__ void k_verify(const unsigned long long* p, size_t n, unsigned long long tag, unsigned long long* bad) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (p[i] != (tag << 32 | i)) atomicAdd(bad, 1ull);
}

static int device = 0;  // the GPU being tried

// Pinned device memory exportable by fd, as every block of the suite's allocator.
static hipMemAllocationProp pinned() {
  hipMemAllocationProp prop{};
  prop.type = hipMemAllocationTypePinned;
  prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;  // in every header (7.2's union has both names)
  prop.location.type = hipMemLocationTypeDevice;
  prop.location.id = device;
  return prop;
}

// New memory of `size` bytes mapped at `va`. A map counts only once the runtime finds it: CLR up to 7.2 answers
// hipSuccess for a map whose HSA map failed.
static void map_new(char* va, size_t size) {
  const hipMemAllocationProp prop = pinned();
  hipMemGenericAllocationHandle_t h;
  HIP_CHECK(hipMemCreate(&h, size, &prop, 0));
  HIP_CHECK(hipMemMap(va, size, 0, h, 0));
  hipMemLocation here{hipMemLocationTypeDevice, device};
  unsigned long long flags = 0;
  const hipError_t found = hipMemGetAccess(&flags, &here, va);
  if (found) _exit(VERDICT(1, "FAIL", "hipMemMap returned hipSuccess; hipMemGetAccess: %s", hipGetErrorName(found)));
}

// Read-write access for this GPU on [va, va + size).
static hipError_t set_access(char* va, size_t size) {
  hipMemAccessDesc access{{hipMemLocationTypeDevice, device}, hipMemAccessFlagsProtReadWrite};
  const hipError_t e = hipMemSetAccess(va, size, &access, 1);
  (void)hipGetLastError();  // a refusal is the answer, not an error of the next launch (7.x keeps it until read)
  return e;
}

// Writes a pattern over the block through a kernel and counts, through another, the words that read back wrong.
static void write_and_check(char* va, size_t size, unsigned long long tag, const char* what) {
  unsigned long long *p = reinterpret_cast<unsigned long long*>(va), *bad = nullptr, got = 0;
  HIP_CHECK(hipMalloc(&bad, sizeof got));
  HIP_CHECK(hipMemset(bad, 0, sizeof got));
  k_fill<<<264, 256>>>(p, size / sizeof got, tag);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  k_verify<<<264, 256>>>(p, size / sizeof got, tag, bad);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(&got, bad, sizeof got, hipMemcpyDeviceToHost));
  if (got) _exit(VERDICT(1, "FAIL", "GPU %d, %s: %llu of %zu words read back wrong", device, what, got, size / 8));
}

static int run(int argc, char** argv) {
  for (int s : {SIGABRT, SIGSEGV, SIGBUS}) signal(s, crashed);
  int count = 0, version = 0, vmm = 0, other_vmm = 0;  // hipDeviceAttributeVirtualMemoryManagementSupported, 89
  const bool any = hipGetDeviceCount(&count) == hipSuccess && count > 0;
  const int a = argc >= 2 ? std::atoi(argv[1]) : 0, b = argc >= 3 ? std::atoi(argv[2]) : argc == 2 ? a : count > 1;
  const auto kVmm = static_cast<hipDeviceAttribute_t>(89);
  if (!any || a >= count || b >= count || hipRuntimeGetVersion(&version) != hipSuccess || version < 60200000 ||
      hipDeviceGetAttribute(&vmm, kVmm, a) || hipDeviceGetAttribute(&other_vmm, kVmm, b) || !vmm || !other_vmm)
    return VERDICT(77, "SKIP", "no GPUs %d and %d, HIP %d before 6.2 (no VMem fd export) or no VMM", a, b, version);
  std::printf("devices: %d,%d\n", a, b);  // the suite's --devices for the same run
  std::fflush(stdout);                    // before anything can crash
  for (int d : {a, b}) {
    device = d;
    HIP_CHECK(hipSetDevice(device));
    hipMemAllocationProp prop = pinned();
    size_t g = 0;  // the minimum granule of that type: a block is one (two for the sub-range's second)
    HIP_CHECK(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum));
#ifdef HOLE
    void* va = nullptr;
    HIP_CHECK(hipMemAddressReserve(&va, 3 * g, 0, nullptr, 0));
    char* base = static_cast<char*>(va);
    map_new(base, g);
    map_new(base + 2 * g, g);  // the middle granule stays unmapped: a hole
    if (const hipError_t e = set_access(base, 3 * g))
      return VERDICT(1, "FAIL",
                     "GPU %d: hipMemSetAccess(base, 3 granules) over a range whose middle granule is "
                     "unmapped: hipMemSetAccess returned %s",
                     device, hipGetErrorName(e));
    // Accepted: then both mapped blocks must really be usable.
    write_and_check(base, g, 0, "block 0 beside the hole (hipMemSetAccess returned hipSuccess)");
    write_and_check(base + 2 * g, g, 2, "block 2 beside the hole (hipMemSetAccess returned hipSuccess)");
#else
    int refused = 0;
    char which[32] = "";
    hipError_t first = hipSuccess;
    for (int t = 1; t <= 8; ++t) {  // all 8 stay alive: the outcome depends on where CLR's objects lie
      void* va = nullptr;
      HIP_CHECK(hipMemAddressReserve(&va, 3 * g, 0, nullptr, 0));
      char* base = static_cast<char*>(va);
      map_new(base, g);
      if (const hipError_t e = set_access(base, g))  // the first block alone, from the base
        return VERDICT(1, "FAIL", "GPU %d: hipMemSetAccess returned %s", device, hipGetErrorName(e));
      map_new(base + g, 2 * g);
      if (const hipError_t e = set_access(base + g, 2 * g)) {
        std::snprintf(which + std::strlen(which), sizeof which - std::strlen(which), "%s%d", refused++ ? "," : "", t);
        first = first ? first : e;
      } else {
        write_and_check(base + g, 2 * g, 7, "the sub-range block");
      }
    }
    if (refused)
      return VERDICT(1, "FAIL",
                     "GPU %d: hipMemSetAccess(base + granule, 2 granules) on the second block refused in "
                     "%d of 8 reservations (%s): hipMemSetAccess returned %s",
                     device, refused, which, hipGetErrorName(first));
#endif
  }
#ifdef HOLE
  return VERDICT(0, "PASS", "hipMemSetAccess accepted a range with an unmapped hole; both mapped blocks read back");
#else
  return VERDICT(0, "PASS",
                 "hipMemSetAccess(base + granule, 2 granules) accepted in each of 8 reservations alive at "
                 "once; every block reads back exactly");
#endif
}

// The process leaves without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}
