// Minimal reproducer from vmem-repro (rocm-systems#10604): many VMem handles under a low RLIMIT_NOFILE. On 7.14.0
// every hipMemCreate holds one /dmabuf: fd until hipMemRelease (rocm-systems#10604, legacy-rocm-build#6661), so the
// stock `ulimit -n` caps VMem: under 1024 the 1015th answers hipErrorOutOfMemory with VRAM free. Here 256 one-granule
// handles are made with RLIMIT_NOFILE at the open fds + 64, so such a runtime fails near the 64th. Up to 7.13
// hipMemCreate opens no fd (and after #7786 it leaves the fd unset until export, inferred): PASS.
// One process: the suite's two ranks do the same each on its own GPU.
// suite case: repro_hip_vmem_regressions.handles-fd-limit
// build: hipcc -O2 -std=c++17 -o hip_handles_fd_limit hip_handles_fd_limit.hip
// run:   ./hip_handles_fd_limit [GPU]        (default 0; it prints the suite's --devices: GPU and the next one, if any)
// exit:  0 PASS, 1 FAIL, 3 CRASH (killed by a signal), 77 SKIP, 99 the program itself broke (/proc/self/fd or
//        RLIMIT_NOFILE could not be read or set)
#include <dirent.h>
#include <hip/hip_runtime.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static void check(hipError_t e, const char* call) {  // names the function: "hipMemCreate returned ..."
  if (e != hipSuccess)
    std::printf("VERDICT: FAIL hip_handles_fd_limit %.*s returned %s\n", int(std::strcspn(call, "(")), call,
                hipGetErrorName(e)),
        std::fflush(stdout), _exit(1);  // no runtime teardown, as the suite's ranks
}
#define HIP_CHECK(call) check((call), #call)

// A crash inside the runtime (ROCr aborts the process on a GPU memory fault) is the suite's CRASH: exit 3.
static void crashed(int sig) {
  char line[96];  // write, not stdio: the crash may have come inside printf or malloc
  const int n = std::snprintf(line, sizeof line, "VERDICT: CRASH hip_handles_fd_limit killed by signal %d\n", sig);
  if (write(1, line, n) != n) _exit(3);  // nothing else can be done if it fails
  _exit(3);
}

static const int kHandles = 256, kFdHeadroom = 64;  // the suite's: one granule each, the limit the open fds + 64

// The fds this process holds, from /proc/self/fd, the directory's own not counted; -1 if it cannot be listed.
static long open_fds() {
  DIR* d = opendir("/proc/self/fd");
  if (!d) return -1;
  long n = -1;
  while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
  closedir(d);
  return n;
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
    return std::printf("VERDICT: SKIP hip_handles_fd_limit no AMD GPU, HIP %d < 6.2 or no VMM\n", version), 77;
  std::printf("devices: %d,%d\n", gpu, next);  // the suite's --devices: its second rank does the same on `next`
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE}) signal(sig, crashed);
  HIP_CHECK(hipSetDevice(gpu));
  // Pinned memory on `gpu`, exportable by fd (requestedHandleType: in every header; 7.2's union has both names).
  hipMemAllocationProp prop{};
  prop.type = hipMemAllocationTypePinned, prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;
  prop.location.type = hipMemLocationTypeDevice, prop.location.id = gpu;
  size_t granule = 0;
  HIP_CHECK(hipMemGetAllocationGranularity(&granule, &prop, hipMemAllocationGranularityMinimum));
  // The limit: the fds open now + 64, or the limit as it is if that is lower.
  const long open = open_fds();
  rlimit old{};
  if (open < 0 || getrlimit(RLIMIT_NOFILE, &old) != 0) return 99;
  rlimit low = old;
  low.rlim_cur = std::min<rlim_t>(old.rlim_cur, rlim_t(open) + kFdHeadroom);
  if (setrlimit(RLIMIT_NOFILE, &low) != 0) return 99;
  static hipMemGenericAllocationHandle_t handles[kHandles];  // kept to the end, never released
  int created = 0;                                           // how many were made before the first refusal, if any
  hipError_t e = hipSuccess;
  for (; created < kHandles; ++created)
    if ((e = hipMemCreate(&handles[created], granule, &prop, 0)) != hipSuccess) break;
  (void)setrlimit(RLIMIT_NOFILE, &old);  // before counting: with every fd slot taken, /proc/self/fd cannot be listed
  const long held = open_fds();
  if (held < 0) return 99;
  if (e != hipSuccess)
    return std::printf(
               "VERDICT: FAIL hip_handles_fd_limit handle %d of %d (%zu bytes each) with RLIMIT_NOFILE %llu "
               "and %ld fds open: hipMemCreate returned %s (open fds %ld -> %ld)\n",
               created + 1, kHandles, granule, (unsigned long long)low.rlim_cur, open, hipGetErrorName(e), open, held),
           1;
  std::printf("VERDICT: PASS hip_handles_fd_limit %d handles created under RLIMIT_NOFILE %llu; open fds %ld -> %ld\n",
              kHandles, (unsigned long long)low.rlim_cur, open, held);
  return 0;
}

// No runtime teardown, as the suite's ranks: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}
