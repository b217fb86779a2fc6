// Minimal reproducer from vmem-repro (rocm-systems#10232, PRs #8971/#9359): VMem in HOST memory (hipMemCreate with a
// Host location, HIP 7.2 on; 7.0 and 7.1 lack or ignore it) exported as a dma-buf fd; a second process imports it and
// maps it twice, granted to its own GPU and to the owner's (the same GPU twice on a one-GPU node), and each GPU reads
// every word of the owner's pattern. #10232: an imported system-memory dma-buf was mapped on one GPU only.
// suite case: repro_hip_vmem_access.host-location
// build: hipcc -O2 -std=c++17 -o hip_host_location hip_host_location.hip
// run:   ./hip_host_location [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
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
    std::printf("VERDICT: FAIL hip_host_location %s returned %s\n", call, hipGetErrorName(e)), std::fflush(stdout),
        _exit(1);
}
#define HIP_CHECK(call) check((call), #call)

static constexpr size_t kBytes = size_t(64) << 20;  // a whole number of 4 KiB and 2 MiB granules
static const hipMemLocationType kHost = static_cast<hipMemLocationType>(2);  // hipMemLocationTypeHost from HIP 7.2

__device__ __host__ unsigned long long pattern(size_t i) { return i * 0x9E3779B97F4A7C15ull ^ 0x5a5aull; }
// step 0 fills the pattern; step 1 counts into *bad the words that differ from it.
__global__ void k_words(unsigned long long* p, size_t n, int step, unsigned long long* bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    if (step == 0) p[i] = pattern(i);
    if (step == 1 && p[i] != pattern(i)) atomicAdd(bad, 1ull);
  }
}
// Runs one step of k_words on the current GPU; returns how many words differ.
static unsigned long long differing(unsigned long long* p, int step) {
  unsigned long long *bad = nullptr, got = 0;
  HIP_CHECK(hipMalloc(&bad, sizeof got));
  HIP_CHECK(hipMemset(bad, 0, sizeof got));
  k_words<<<1024, 256>>>(p, kBytes / 8, step, bad);
  HIP_CHECK(hipGetLastError());  // a launch refused (no code object for this GPU) is not a wrong word
  HIP_CHECK(hipMemcpy(&got, bad, sizeof got, hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(bad));
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

// Reserve, map, grant GPU `device` read-write: a VA of the memory for that GPU's kernels.
static unsigned long long* map_for(hipMemGenericAllocationHandle_t h, int device) {
  void* va = nullptr;
  HIP_CHECK(hipMemAddressReserve(&va, kBytes, 0, nullptr, 0));
  HIP_CHECK(hipMemMap(va, kBytes, 0, h, 0));
  hipMemAccessDesc access{{hipMemLocationTypeDevice, device}, hipMemAccessFlagsProtReadWrite};
  HIP_CHECK(hipMemSetAccess(va, kBytes, &access, 1));
  return static_cast<unsigned long long*>(va);
}

// The peer: import, map twice (for its GPU and for the owner's), read every word on each.
static int peer(int sock, int owner, int device, int version) {
  int fd = pass_fd(sock, -1);
  if (fd < 0) return 99;
  HIP_CHECK(hipSetDevice(device));
  // Up to HIP 7.0 the import reads *(int*)osHandle; from 7.1 it takes the fd itself, as CUDA does.
  // Up to HIP 7.0 the import reads *(int*)osHandle; from 7.1 it takes the fd itself, as CUDA does (the suite's
  // case also tries a 7.0.2 backport that takes it by value: hip_vmem_atomics.hip shows how).
  void* os_handle = version < 70100000 ? &fd : reinterpret_cast<void*>(size_t(fd));
  hipMemGenericAllocationHandle_t h;
  const hipError_t imported = hipMemImportFromShareableHandle(&h, os_handle, hipMemHandleTypePosixFileDescriptor);
  check(imported, "hipMemImportFromShareableHandle");
  const int gpus[2] = {device, owner};
  unsigned long long* va[2] = {map_for(h, gpus[0]), map_for(h, gpus[1])};
  for (int k = 0; k < 2; ++k) {
    HIP_CHECK(hipSetDevice(gpus[k]));
    if (const unsigned long long bad = differing(va[k], 1))
      return std::printf("VERDICT: FAIL hip_host_location mapping %d (GPU %d): %llu words differ\n", k, gpus[k], bad),
             1;
  }
  return 0;
}

static int run(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "--peer") == 0)
    return peer(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  int count = 0, version = 0, vmm = 0;  // VMM support: hipDeviceAttributeVirtualMemoryManagementSupported, 89
  if (hipGetDeviceCount(&count) != hipSuccess || count == 0 || hipRuntimeGetVersion(&version) != hipSuccess ||
      version < 70200000 || hipDeviceGetAttribute(&vmm, static_cast<hipDeviceAttribute_t>(89), 0) || !vmm)
    return std::printf("VERDICT: SKIP hip_host_location no AMD GPU, HIP %d < 7.2 (no Host location) or no VMM\n",
                       version),
           77;
  const int owner = argc == 3 ? std::atoi(argv[1]) : 0, other = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  std::printf("devices: %d,%d\n", owner, other);  // the suite's --devices for the same run
  HIP_CHECK(hipSetDevice(owner));
  hipMemAllocationProp prop{};
  prop.type = hipMemAllocationTypePinned;
  prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;
  prop.location.type = kHost;
  prop.location.id = 0;
  hipMemGenericAllocationHandle_t h;
  HIP_CHECK(hipMemCreate(&h, kBytes, &prop, 0));
  differing(map_for(h, owner), 0);  // the owner's GPU fills the pattern
  HIP_CHECK(hipDeviceSynchronize());
  int fd = -1, sv[2];
  HIP_CHECK(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
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
  close(sv[1]);
  if (peer_pid < 0 || pass_fd(sv[0], fd) != 0) return 99;
  int status = 0;
  waitpid(peer_pid, &status, 0);
  if (WIFSIGNALED(status))
    return std::printf("VERDICT: CRASH hip_host_location the peer (GPU %d) was killed by signal %d (%s)\n", other,
                       WTERMSIG(status), strsignal(WTERMSIG(status))),
           3;
  if (WEXITSTATUS(status) != 0)  // its VERDICT line above says why
    return WEXITSTATUS(status) == 99 ? 99 : 1;
  std::printf("VERDICT: PASS hip_host_location host-located VMem read exactly by GPU %d and GPU %d in the peer\n",
              other, owner);
  return 0;
}

// Both processes leave without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}
