// Minimal reproducer from vmem-repro (ROCm/iris#418): a second process imports hipMemCreate memory through a
// dma-buf fd and adds into it with system-scope atomics. hipMemCreate takes the GPU's coarse-grained pool whatever
// the type (Pinned, or Uncached with -DUNCACHED), and on some nodes the peer's atomics end in a GPU memory access
// fault; the HSA API's fine-grained pool works (hsa_fine_atomics.hip).
// One direction at system scope; the suite's case also adds the other way at once, then at device scope. VMM
// support is asked of GPU 0 only (the suite asks each rank's GPU).
// suite case: repro_hip_vmem_pinned.atomics
// variant UNCACHED: repro_hip_vmem_uncached.atomics
// build: hipcc -O2 -std=c++17 -o hip_vmem_atomics hip_vmem_atomics.hip
// run:   ./hip_vmem_atomics [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
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
    std::printf("VERDICT: FAIL hip_vmem_atomics %s returned %s\n", call, hipGetErrorName(e)), std::fflush(stdout),
        _exit(1);
}
#define HIP_CHECK(call) check((call), #call)

#ifdef UNCACHED
static const hipMemAllocationType kType = static_cast<hipMemAllocationType>(0x40000000);  // accepted from HIP 7.0.2
#else
static const hipMemAllocationType kType = hipMemAllocationTypePinned;
#endif
static const size_t kCounters = 1024, kAdds = 64;  // adds per thread: 264 x 256 threads x 64 spread over 1024

__global__ void k_add(unsigned long long* c, size_t n, unsigned long long adds) {
  unsigned long long t = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned long long k = 0; k < adds; ++k) atomicAdd_system(&c[(t + k) % n], 1ull);
}
__global__ void k_copy(unsigned long long* dst, const unsigned long long* src, size_t n) {
  __threadfence_system();  // the peer's adds must be visible to these reads
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) dst[i] = src[i];
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

static hipMemAllocationProp fd_prop(int device, hipMemAllocationType type) {
  hipMemAllocationProp prop{};
  prop.type = type;
  prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;  // in every header (7.2's union has both names)
  prop.location.type = hipMemLocationTypeDevice;
  prop.location.id = device;
  return prop;
}

static size_t buffer_size(int device) {
  hipMemAllocationProp prop = fd_prop(device, hipMemAllocationTypePinned);  // before 7.0.2 it refuses Uncached
  size_t g = 0;
  HIP_CHECK(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum));
  return (kCounters * sizeof(unsigned long long) + g - 1) / g * g;
}

// The peer: receive the fd, import, map, add into the owner's counters at system scope.
static int peer(int sock, int owner_device, int device, int version) {
  int fd = pass_fd(sock, -1);
  if (fd < 0) return 99;
  HIP_CHECK(hipSetDevice(device));
  // Up to HIP 7.0 the import reads *(int*)osHandle; from 7.1 it takes the fd itself, as CUDA does.
  void *by_value = reinterpret_cast<void*>(size_t(fd)), *os_handle = version < 70100000 ? &fd : by_value;
  hipMemGenericAllocationHandle_t h;
  hipError_t imported = hipMemImportFromShareableHandle(&h, os_handle, hipMemHandleTypePosixFileDescriptor);
  // Below 7.1 a refused import is retried by value for a 7.0.2 backport; on a runtime without it that retry reads
  // the fd as an address and may crash the peer where the suite (deciding by its install's .info/version) says FAIL.
  if (imported != hipSuccess && version < 70100000)  // a 7.0.2 backport that takes the fd by value (same version);
    imported = ((void)hipGetLastError(),             // its refusal is no error of the launch below
                hipMemImportFromShareableHandle(&h, by_value, hipMemHandleTypePosixFileDescriptor));
  check(imported, "hipMemImportFromShareableHandle");
  unsigned long long* counters = map_here(h, buffer_size(owner_device), device);
  k_add<<<264, 256>>>(counters, kCounters, kAdds);
  HIP_CHECK(hipGetLastError());  // a launch refused (no code object for this GPU) is not lost atomics
  HIP_CHECK(hipDeviceSynchronize());
  return write(sock, "d", 1) == 1 ? 0 : 99;
}

static int run(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "--peer") == 0)
    return peer(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  int count = 0, version = 0, vmm = 0;  // VMM support: hipDeviceAttributeVirtualMemoryManagementSupported, 89
  if (hipGetDeviceCount(&count) != hipSuccess || count == 0 || hipRuntimeGetVersion(&version) != hipSuccess ||
      version < 60200000 || hipDeviceGetAttribute(&vmm, static_cast<hipDeviceAttribute_t>(89), 0) || !vmm)
    return std::printf("VERDICT: SKIP hip_vmem_atomics no AMD GPU, HIP %d < 6.2 (no fd export) or no VMM\n", version),
           77;
  const int owner = argc == 3 ? std::atoi(argv[1]) : 0, other = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  std::printf("devices: %d,%d\n", owner, other);  // the suite's --devices for the same run
  // Owner: create, map, zero, export.
  HIP_CHECK(hipSetDevice(owner));
  const size_t size = buffer_size(owner);
  hipMemAllocationProp prop = fd_prop(owner, kType);
  hipMemGenericAllocationHandle_t h;
  const hipError_t created = hipMemCreate(&h, size, &prop, 0);
  if (created == hipErrorInvalidValue && kType != hipMemAllocationTypePinned)
    return std::printf("VERDICT: SKIP hip_vmem_atomics hipMemCreate refuses Uncached (HIP before 7.0.2)\n"), 77;
  HIP_CHECK(created);
  unsigned long long* counters = map_here(h, size, owner);
  // Zeroed by a kernel from ordinary device memory: hipMemset and hipMemcpy silently skip VMem VAs.
  unsigned long long *bounce = nullptr, got[kCounters];
  HIP_CHECK(hipMalloc(&bounce, sizeof got));
  HIP_CHECK(hipMemset(bounce, 0, sizeof got));
  k_copy<<<4, 256>>>(counters, bounce, kCounters);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  int fd = -1;
  HIP_CHECK(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 99;
  const pid_t peer_pid = fork();  // the peer execs this program again: a forked HIP runtime is not usable
  if (peer_pid == 0) {
    close(sv[0]);
    char a[4][16];
    std::snprintf(a[0], 16, "%d", sv[1]), std::snprintf(a[1], 16, "%d", owner), std::snprintf(a[2], 16, "%d", other);
    std::snprintf(a[3], 16, "%d", version);
    execl("/proc/self/exe", argv[0], "--peer", a[0], a[1], a[2], a[3], static_cast<char*>(nullptr));
    _exit(99);
  }
  close(sv[1]);  // so that a peer that dies ends the read below
  if (peer_pid < 0 || pass_fd(sv[0], fd) != 0) return 99;
  char done = 0;
  const bool finished = read(sv[0], &done, 1) == 1;
  int status = 0;
  waitpid(peer_pid, &status, 0);
  if (WIFSIGNALED(status))
    return std::printf("VERDICT: CRASH hip_vmem_atomics the peer (GPU %d) was killed by signal %d (%s)\n", other,
                       WTERMSIG(status), strsignal(WTERMSIG(status))),
           3;
  if (!finished || WEXITSTATUS(status) != 0)
    return std::printf("VERDICT: FAIL hip_vmem_atomics the peer exited %d (its line above says why)\n",
                       WEXITSTATUS(status)),
           WEXITSTATUS(status) == 99 ? 99 : 1;
  // Read back the same way, through a kernel into ordinary device memory.
  k_copy<<<4, 256>>>(bounce, counters, kCounters);
  HIP_CHECK(hipMemcpy(got, bounce, sizeof got, hipMemcpyDeviceToHost));
  const unsigned long long expect = 264ull * 256 * kAdds / kCounters;
  for (size_t i = 0; i < kCounters; ++i)
    if (got[i] != expect)
      return std::printf("VERDICT: FAIL hip_vmem_atomics system-scope atomics: counter %zu holds %llu, not %llu\n", i,
                         got[i], expect),
             1;
  std::printf("VERDICT: PASS hip_vmem_atomics GPU %d's system-scope atomics into GPU %d's memory: all exact\n", other,
              owner);
  return 0;
}

// Both processes leave without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}
