// Minimal reproducer from vmem-repro (rocm-systems#9820, pytorch#192259): one granule of HIP VMem reserved, created,
// mapped and granted to its GPU, then written and read back by kernels. ROCm 7.14's libhsakmt asks amdgpu's GEM_VA
// for a VM timeline point and waits for it; an amdgpu DRM interface older than 3.64 ignores the request, so
// hipMemSetAccess waits forever (DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, wchan drm_syncobj_array_wait_timeout). Here a
// 30 s alarm ends the wait as HANG naming the DRM interface version, read with DRM_IOCTL_VERSION (no libdrm: the
// struct is the kernel's fixed uapi, include/uapi/drm/drm.h). ROCm 7.2 on the same kernel: PASS (pytorch#192259).
// One process; the suite's ranks do the same each on its own GPU, and its HANG quotes the fact hang_context.
// suite case: repro_hip_vmem_regressions.map-one-granule
// build: hipcc -O2 -std=c++17 -o hip_map_one_granule hip_map_one_granule.hip
// run:   ./hip_map_one_granule [GPU]        (default 0; it prints the suite's --devices: GPU and the next one, if any)
// exit:  0 PASS, 1 FAIL, 3 CRASH (killed by a signal), 4 HANG (hipMemSetAccess did not return in 30 s), 77 SKIP
#include <fcntl.h>
#include <hip/hip_runtime.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

typedef unsigned long long u64;

#define FAIL(...)                                                                                  \
  (std::printf("VERDICT: FAIL hip_map_one_granule "), std::printf(__VA_ARGS__), std::printf("\n"), \
   std::fflush(stdout), _exit(1))
static void check(hipError_t e, const char* call) {  // names the function: "hipMemSetAccess returned ..."
  if (e != hipSuccess) FAIL("%.*s returned %s", int(std::strcspn(call, "(")), call, hipGetErrorName(e));
}
#define HIP_CHECK(call) check((call), #call)

// DRM_IOCTL_VERSION's argument: the kernel's struct drm_version (fixed ABI), _IOWR('d', 0x00, ...).
struct drm_version_args {
  int major, minor, patchlevel;
  size_t name_len;
  char* name;
  size_t date_len;
  char* date;
  size_t desc_len;
  char* desc;
};

// "3.61.0 (/dev/dri/renderD128)" for the first render node amdgpu drives (one module: one interface for all), or why
// none answered. Written before the map, so the HANG can print it without calling anything unsafe.
static char g_drm[160] = "unknown (no render node answered as amdgpu)";
static void read_drm_version() {
  for (int minor = 128; minor < 192; ++minor) {
    char path[32], name[16] = {};
    std::snprintf(path, sizeof path, "/dev/dri/renderD%d", minor);
    const int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;
    drm_version_args v{};
    v.name = name, v.name_len = sizeof name - 1;
    const bool ok = ioctl(fd, _IOWR('d', 0x00, drm_version_args), &v) == 0;
    close(fd);
    if (ok && std::strncmp(name, "amdgpu", sizeof name) == 0) {
      const bool old = v.major < 3 || (v.major == 3 && v.minor < 64);
      std::snprintf(g_drm, sizeof g_drm, "%d.%d.%d (%s)%s", v.major, v.minor, v.patchlevel, path,
                    old ? ", older than 3.64" : "");
      return;
    }
  }
}

static void crashed(int sig) {  // write, not stdio: the crash may have come inside printf or malloc
  char line[96];
  const int n = std::snprintf(line, sizeof line, "VERDICT: CRASH hip_map_one_granule killed by signal %d\n", sig);
  if (write(1, line, n) != n) _exit(3);
  _exit(3);
}
static void hung(int) {
  char line[256];
  const int n = std::snprintf(line, sizeof line,
                              "VERDICT: HANG hip_map_one_granule hipMemSetAccess did not return in 30 s; amdgpu DRM "
                              "interface %s (rocm-systems#9820)\n",
                              g_drm);
  if (write(1, line, n) != n) _exit(4);
  _exit(4);
}

// Fills [p, p + n) with the pattern, or with `bad` counts the words that differ (bad[0]) and finds the first (bad[1]).
__global__ void k_pattern(u64* p, size_t n, u64* bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (!bad)
      p[i] = (i + 1) * 0x9e3779b97f4a7c15ull;
    else if (p[i] != (i + 1) * 0x9e3779b97f4a7c15ull)
      atomicAdd(&bad[0], 1ull), atomicMin(&bad[1], u64(i));
}

// hipDeviceAttributeVirtualMemoryManagementSupported (89): the suite SKIPs on 0, unless HIP_VMEM_MANAGE_SUPPORT is
// off, which zeroes only the attribute (hipMemCreate still works): the suite then asks ROCr, this file just runs.
static bool vmm(int device) {
  const char* off = std::getenv("HIP_VMEM_MANAGE_SUPPORT");
  int on = off && std::strcmp(off, "true") && !std::atoi(off);  // clr: only "true" or a non-zero number is on
  return on || (hipDeviceGetAttribute(&on, static_cast<hipDeviceAttribute_t>(89), device) == hipSuccess && on);
}

int main(int argc, char** argv) {
  int count = 0, version = 0;
  const bool gpus = hipGetDeviceCount(&count) == hipSuccess && count > 0;
  const int gpu = argc == 2 ? std::atoi(argv[1]) : 0, next = count > 1 ? (gpu + 1) % count : gpu;
  if (!gpus || hipRuntimeGetVersion(&version) != hipSuccess || version < 60200000 || !vmm(gpu))
    return std::printf("VERDICT: SKIP hip_map_one_granule no AMD GPU, HIP %d < 6.2 or no VMM\n", version), 77;
  read_drm_version();
  std::printf("devices: %d,%d\namdgpu DRM interface: %s\n", gpu, next, g_drm);
  std::fflush(stdout);
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE}) signal(sig, crashed);
  signal(SIGALRM, hung);
  HIP_CHECK(hipSetDevice(gpu));
  hipMemAllocationProp prop{};
  prop.type = hipMemAllocationTypePinned;
  prop.location.type = hipMemLocationTypeDevice, prop.location.id = gpu;
  size_t g = 0;  // the minimum granularity: 4 KiB on AMD, the one page of #9820's reproducer
  HIP_CHECK(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum));
  void* va = nullptr;
  hipMemGenericAllocationHandle_t h;
  HIP_CHECK(hipMemAddressReserve(&va, g, 0, nullptr, 0));
  HIP_CHECK(hipMemCreate(&h, g, &prop, 0));
  HIP_CHECK(hipMemMap(va, g, 0, h, 0));
  hipMemAccessDesc access{{hipMemLocationTypeDevice, gpu}, hipMemAccessFlagsProtReadWrite};
  alarm(30);
  HIP_CHECK(hipMemSetAccess(va, g, &access, 1));
  alarm(0);
  u64* cells = nullptr;
  u64 got[2] = {0, ~0ull};
  HIP_CHECK(hipMalloc(&cells, sizeof got));
  HIP_CHECK(hipMemcpy(cells, got, sizeof got, hipMemcpyHostToDevice));
  k_pattern<<<1, 256>>>(static_cast<u64*>(va), g / sizeof(u64), nullptr);  // kernels: hipMemcpy skips VMem VAs
  k_pattern<<<1, 256>>>(static_cast<u64*>(va), g / sizeof(u64), cells);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(got, cells, sizeof got, hipMemcpyDeviceToHost));
  if (got[0])
    FAIL("%llu of %zu words differ from the pattern after hipMemSetAccess, first at %llu", got[0], g / 8, got[1]);
  std::printf(
      "VERDICT: PASS hip_map_one_granule one granule (%zu B) mapped, granted and read back exactly; amdgpu DRM "
      "interface %s\n",
      g, g_drm);
  std::fflush(stdout);
  _exit(0);  // no runtime teardown, as the suite's ranks
}
