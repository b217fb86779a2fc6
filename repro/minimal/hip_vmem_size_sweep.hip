// Minimal reproducer from vmem-repro (ROCm/iris#532, rocm-systems#4114): hipMemCreate memory past 2^31 and 2^32
// bytes shared with a second process through a dma-buf fd. The peer reads every word, writes probe words either
// side of byte offsets 2^31 and 2^32, which the owner reads back, and adds into counters at the end at system
// scope: an offset kept in 32 bits or a signed int lands a probe elsewhere. iris#532 saw "Memory access fault ...
// Write access to a read-only page" from 768 MiB per rank on MI300X (ROCm 7.2). One size here, the largest of the
// suite's (4 GiB, 2 GiB, 1 GiB, each + one granule) that fits twice in the owner GPU's free memory; the suite's
// case runs each that fits.
// suite case: repro_hip_vmem_pinned.size-sweep
// variant UNCACHED: repro_hip_vmem_uncached.size-sweep
// build: hipcc -O2 -std=c++17 -o hip_vmem_size_sweep hip_vmem_size_sweep.hip
// run:   ./hip_vmem_size_sweep [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
// exit:  0 PASS, 1 FAIL, 3 CRASH (the peer died by a signal), 77 SKIP, 99 the program itself broke (no deadline:
//        the suite's case kills a hung peer and says HANG)
#include <hip/hip_runtime.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

static void check(hipError_t e, const char* call) {  // _exit: no runtime teardown can turn this FAIL into a crash
  if (e != hipSuccess)
    std::printf("VERDICT: FAIL hip_vmem_size_sweep %s returned %s\n", call, hipGetErrorName(e)), std::fflush(stdout),
        _exit(1);
}
#define HIP_CHECK(call) check((call), #call)

#ifndef UNCACHED
#define UNCACHED 0
#endif
// hipMemAllocationTypeUncached is 0x40000000 (accepted from HIP 7.0.2; older headers do not name it)
static const hipMemAllocationType kType = UNCACHED ? hipMemAllocationType(0x40000000) : hipMemAllocationTypePinned;
static constexpr size_t kCounters = 1024, kAdds = 64;  // adds per thread: 264 x 256 threads x 64 over 1024

// The probe words: either side of byte offsets 2^31 and 2^32 (words 2^28 and 2^29).
__device__ __host__ bool is_probe(size_t i) {
  return i + 1 == size_t(1) << 28 || i == size_t(1) << 28 || i + 1 == size_t(1) << 29 || i == size_t(1) << 29;
}
__device__ __host__ unsigned long long pattern(size_t i) { return i * 0x9E3779B97F4A7C15ull ^ 0x5a5aull; }
// step 0 fills the pattern (the counters zeroed); step 1 counts into *bad the words below the counters that differ
// from it; step 2, after the peer, the probes it wrote (~pattern) and the counters it added into that differ.
__global__ void k_words(unsigned long long* p, size_t n, int step, unsigned long long* bad) {
  __threadfence_system();  // the peer's writes and adds must be visible to these reads
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const bool counter = i >= n - kCounters;
    if (step == 0) p[i] = counter ? 0 : pattern(i);
    if (step == 1 && !counter && p[i] != pattern(i)) atomicAdd(bad, 1ull);
    if (step == 2 && counter && p[i] != 264ull * 256 * kAdds / kCounters) atomicAdd(bad, 1ull);
    if (step == 2 && !counter && is_probe(i) && p[i] != ~pattern(i)) atomicAdd(bad, 1ull);
  }
}
__global__ void k_peer(unsigned long long* p, size_t n) {  // the probes, then the adds into the counters
  const unsigned long long t = blockIdx.x * blockDim.x + threadIdx.x;
  for (size_t i = t; i < n - kCounters && i <= size_t(1) << 29; i += size_t(gridDim.x) * blockDim.x)
    if (is_probe(i)) p[i] = ~pattern(i);
  for (unsigned long long k = 0; k < kAdds; ++k) atomicAdd_system(&p[n - kCounters + (t + k) % kCounters], 1ull);
}
// Runs one step of k_words; returns how many words differ.
static unsigned long long differing(unsigned long long* p, size_t n, int step) {
  static unsigned long long *bad = nullptr, got = 0;  // got: overwritten by each read-back
  if (!bad) HIP_CHECK(hipMalloc(&bad, sizeof got));
  HIP_CHECK(hipMemset(bad, 0, sizeof got));
  k_words<<<1024, 256>>>(p, n, step, bad);
  HIP_CHECK(hipGetLastError());  // a launch refused (no code object for this GPU) is not a wrong word
  HIP_CHECK(hipMemcpy(&got, bad, sizeof got, hipMemcpyDeviceToHost));
  return got;
}

// One byte over the socket, with `fd` attached (SCM_RIGHTS); with fd < 0, receives one and returns it.
static int pass_fd(int sock, int fd) {
  char byte = 'f', control[CMSG_SPACE(sizeof(int))] = {};
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov, msg.msg_iovlen = 1, msg.msg_control = control, msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  if (fd < 0) {
    if (recvmsg(sock, &msg, 0) != 1 || !(c = CMSG_FIRSTHDR(&msg))) return -1;
    std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
  }
  c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

// Reserve, map, grant this process's device read-write: the VA the kernels use.
static unsigned long long* map_here(hipMemGenericAllocationHandle_t h, size_t size, int device) {
  void* va = nullptr;
  HIP_CHECK(hipMemAddressReserve(&va, size, 0, nullptr, 0));
  HIP_CHECK(hipMemMap(va, size, 0, h, 0));
  hipMemAccessDesc access{{hipMemLocationTypeDevice, device}, hipMemAccessFlagsProtReadWrite};
  HIP_CHECK(hipMemSetAccess(va, size, &access, 1));
  return static_cast<unsigned long long*>(va);
}

// How this runtime takes the fd, decided as the suite decides: the pointer form (&fd) importing this process's own
// export, mapped and granted, proves it (a runtime that takes the fd by value reads the pointer as an fd nothing has
// open and refuses it); refused, the fd goes by value (HIP 7.1 on and ROCm 7.0.2.2, which carry rocm-systems PR #759
// and report the same HIP version as 7.0.2.1: no version can tell).
// Imported but not usable says nothing: then the suite's version rule (by value from HIP 7.1).
static bool takes_pointer(int fd, size_t size, int device, void* va = nullptr, int version = 0) {  // scratch
  hipMemGenericAllocationHandle_t back;
  hipMemAccessDesc access{{hipMemLocationTypeDevice, device}, hipMemAccessFlagsProtReadWrite};
  const bool in = hipMemImportFromShareableHandle(&back, &fd, hipMemHandleTypePosixFileDescriptor) == hipSuccess;
  const bool ok = in && hipMemAddressReserve(&va, size, 0, nullptr, 0) == hipSuccess &&
                  hipMemMap(va, size, 0, back, 0) == hipSuccess && hipMemSetAccess(va, size, &access, 1) == hipSuccess;
  // (a refusal is the answer, not an error of a later call)
  return (void)hipGetLastError(), ok || (in && hipRuntimeGetVersion(&version) == hipSuccess && version < 70100000);
}

// The peer: receive the size and the fd, import, map, read every word, write the probes, add into the counters.
static int peer(int sock, int device, int by_pointer, size_t size) {
  int fd = pass_fd(sock, -1);
  if (fd < 0) return 99;
  HIP_CHECK(hipSetDevice(device));
  // The owner's probe said how: a pointer to the fd (up to 7.0.2.1) or the fd itself, as CUDA does (takes_pointer).
  void* os_handle = by_pointer ? static_cast<void*>(&fd) : reinterpret_cast<void*>(size_t(fd));
  hipMemGenericAllocationHandle_t h;
  HIP_CHECK(hipMemImportFromShareableHandle(&h, os_handle, hipMemHandleTypePosixFileDescriptor));
  unsigned long long* p = map_here(h, size, device);
  if (const unsigned long long bad = differing(p, size / 8, 1))
    return std::printf("VERDICT: FAIL hip_vmem_size_sweep %zu bytes: %llu words read differ\n", size, bad), 1;
  k_peer<<<264, 256>>>(p, size / 8);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  return 0;  // the owner checks the probes and counters once this process has exited
}

static int run(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "--peer") == 0)
    return peer(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::strtoull(argv[5], nullptr, 10));
  int count = 0, version = 0, vmm = 0;  // VMM support: hipDeviceAttributeVirtualMemoryManagementSupported, 89
  if (hipGetDeviceCount(&count) != hipSuccess || count == 0 || hipRuntimeGetVersion(&version) != hipSuccess ||
      version < 60200000 || hipDeviceGetAttribute(&vmm, static_cast<hipDeviceAttribute_t>(89), 0) || !vmm)
    return std::printf("VERDICT: SKIP hip_vmem_size_sweep no AMD GPU, no VMM or HIP %d < 6.2\n", version), 77;
  const int owner = argc == 3 ? std::atoi(argv[1]) : 0, other = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  std::printf("devices: %d,%d\n", owner, other);  // the suite's --devices for the same run
  HIP_CHECK(hipSetDevice(owner));
  hipMemAllocationProp prop{};  // Pinned first: before HIP 7.0.2 the granularity query refuses Uncached too
  prop.type = hipMemAllocationTypePinned, prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;
  prop.location.type = hipMemLocationTypeDevice, prop.location.id = owner;
  size_t g = 0, free_bytes = 0, total = 0, size = 0;
  HIP_CHECK(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum));
  HIP_CHECK(hipMemGetInfo(&free_bytes, &total));
  for (size_t gib : {4, 2, 1})  // both ranks may share the GPU: twice the size and 1 GiB of headroom
    if (!size && free_bytes >= 2 * ((gib << 30) + g) + (size_t(1) << 30)) size = (gib << 30) + g;
  if (!size) return std::printf("VERDICT: SKIP hip_vmem_size_sweep %zu bytes free: no size fits\n", free_bytes), 77;
  hipMemGenericAllocationHandle_t h;
  prop.type = kType;  // asked, as the suite asks: a runtime that does not take Uncached refuses it here
  const hipError_t created = hipMemCreate(&h, size, &prop, 0);
  if (created == hipErrorInvalidValue && kType != hipMemAllocationTypePinned)
    return std::printf("VERDICT: SKIP hip_vmem_size_sweep hipMemCreate refuses Uncached: hipErrorInvalidValue\n"), 77;
  HIP_CHECK(created);
  unsigned long long* p = map_here(h, size, owner);
  differing(p, size / 8, 0);  // the fill
  int fd = -1, sv[2];
  HIP_CHECK(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
  const int by_pointer = takes_pointer(fd, size, owner);
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 99;
  const pid_t peer_pid = fork();  // the peer execs this program again: a forked HIP runtime is not usable
  if (peer_pid == 0) {
    close(sv[0]);
    char a[4][24];
    std::snprintf(a[0], 24, "%d", sv[1]), std::snprintf(a[1], 24, "%d", other);
    std::snprintf(a[2], 24, "%d", by_pointer), std::snprintf(a[3], 24, "%zu", size);
    execl("/proc/self/exe", argv[0], "--peer", a[0], a[1], a[2], a[3], static_cast<char*>(nullptr));
    _exit(99);
  }
  close(sv[1]);
  if (peer_pid < 0 || pass_fd(sv[0], fd) != 0) return 99;
  int status = 0;
  waitpid(peer_pid, &status, 0);
  if (WIFSIGNALED(status))
    return std::printf("VERDICT: CRASH hip_vmem_size_sweep the peer died by %s\n", strsignal(WTERMSIG(status))), 3;
  if (WEXITSTATUS(status) != 0) return WEXITSTATUS(status) == 99 ? 99 : 1;  // its VERDICT line above says why
  if (const unsigned long long bad = differing(p, size / 8, 2))
    return std::printf("VERDICT: FAIL hip_vmem_size_sweep %zu bytes: %llu probes or counters differ\n", size, bad), 1;
  std::printf("VERDICT: PASS hip_vmem_size_sweep %zu bytes: every word read, probes and atomics exact\n", size);
  return 0;
}

// Both processes leave without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
// What this short program does not release is the process's until that _exit: the probe's imported handle, mapping
// and VA, each size's handle, mapping, VA and fd.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}
