// Minimal reproducer from vmem-repro (rocm-systems PRs #8971, #10020): VMem in HOST memory (hipMemCreate with a Host
// location, asked of the runtime: a refusal is a SKIP naming it) exported as a dma-buf fd; a second process imports it
// and maps it twice, granted to its own GPU and to the owner's (the same GPU twice on a one-GPU node), and each GPU
// reads every word of the owner's pattern. First ROCr must say the memory is system memory: CLR once routed a Host
// location to the device allocator (PR #10020). Related, a different path: #10232 (legacy IPC of system memory).
// suite case: repro_hip_vmem_access.host-location
// build: hipcc -O2 -std=c++17 -o hip_host_location hip_host_location.hip
// run:   ./hip_host_location [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
// exit:  0 PASS, 1 FAIL, 3 CRASH (the peer died by a signal), 77 SKIP, 99 the program itself broke (no deadline:
//        the suite's case kills a hung peer and says HANG)
#include <dlfcn.h>
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
// hipMemLocationTypeHost where the headers name it (HIP 7.2's do, 6.4.3's do not), else Invalid: nothing to ask with.
template <class E>
constexpr auto host_location(int) -> decltype(E::hipMemLocationTypeHost) {
  return E::hipMemLocationTypeHost;
}
template <class E>
constexpr E host_location(long) {
  return E(0);  // Invalid: nothing to ask with
}

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
  HIP_CHECK(hipMemcpy(&got, bad, sizeof got, hipMemcpyDeviceToHost));  // `bad` stays: the process ends by _exit
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

// Where ROCr says the memory mapped at `va` lives: the location of the pool its handle was made from (0 CPU: system
// memory, 1 GPU), -1 where it cannot say. Looked up at run time (libamdhip64 loads libhsa-runtime64): no HSA header.
// hsa_amd_vmem_alloc_handle_t and hsa_amd_memory_pool_t are structs of one uint64_t (long here, passed alike);
// HSA_STATUS_SUCCESS is 0, HSA_AMD_MEMORY_POOL_INFO_LOCATION 17. The retain's reference is kept: nothing is freed here.
static int pool_location(void* va) {
  const auto retain = reinterpret_cast<int (*)(long*, void*)>(dlsym(RTLD_DEFAULT, "hsa_amd_vmem_retain_alloc_handle"));
  const auto props = reinterpret_cast<int (*)(long, long*, int*)>(
      dlsym(RTLD_DEFAULT, "hsa_amd_vmem_get_alloc_properties_from_handle"));
  const auto info = reinterpret_cast<int (*)(long, int, void*)>(dlsym(RTLD_DEFAULT, "hsa_amd_memory_pool_get_info"));
  long h = 0, pool = 0;
  int type = 0, location = -1;
  if (!retain || !props || !info || retain(&h, va) != 0) return -1;
  return props(h, &pool, &type) == 0 && info(pool, 17, &location) == 0 ? location : -1;
}

// How this runtime takes the fd, decided as the suite decides: the pointer form (&fd) importing this process's own
// export of device memory, mapped and granted, proves it (a runtime that takes the fd by value reads the pointer as
// an fd nothing has open and refuses it); refused, the fd goes by value (HIP 7.1 on and ROCm 7.0.2.2, which carry
// rocm-systems PR #759 and report the same HIP version as 7.0.2.1: no version can tell).
// Imported but not usable says nothing: then the suite's version rule (by value from HIP 7.1).
static bool takes_pointer(int fd, size_t size, int device, hipMemGenericAllocationHandle_t back = {}, void* va = {},
                          int version = 0) {
  hipMemAccessDesc access{{hipMemLocationTypeDevice, device}, hipMemAccessFlagsProtReadWrite};
  const bool in = hipMemImportFromShareableHandle(&back, &fd, hipMemHandleTypePosixFileDescriptor) == hipSuccess;
  const bool ok = in && hipMemAddressReserve(&va, size, 0, nullptr, 0) == hipSuccess &&
                  hipMemMap(va, size, 0, back, 0) == hipSuccess && hipMemSetAccess(va, size, &access, 1) == hipSuccess;
  // (a refusal is the answer, not an error of a later call)
  return (void)hipGetLastError(), ok || (in && hipRuntimeGetVersion(&version) == hipSuccess && version < 70100000);
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
static int peer(int sock, int owner, int device, int by_pointer) {
  int fd = pass_fd(sock, -1);
  if (fd < 0) return 99;
  HIP_CHECK(hipSetDevice(device));
  // The owner's probe said how: a pointer to the fd (up to 7.0.2.1) or the fd itself, as CUDA does (takes_pointer).
  void* os_handle = by_pointer ? static_cast<void*>(&fd) : reinterpret_cast<void*>(size_t(fd));
  hipMemGenericAllocationHandle_t h;
  HIP_CHECK(hipMemImportFromShareableHandle(&h, os_handle, hipMemHandleTypePosixFileDescriptor));
  unsigned long long* va[2] = {map_for(h, device), map_for(h, owner)};
  for (int k = 0; k < 2; ++k) {
    HIP_CHECK(hipSetDevice(k ? owner : device));
    if (const unsigned long long bad = differing(va[k], 1))
      return std::printf("VERDICT: FAIL hip_host_location GPU %d: %llu words differ\n", k ? owner : device, bad), 1;
  }
  return 0;
}

static int run(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "--peer") == 0)
    return peer(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  // A fact of the build, not the runtime's answer. Headers that name the type are HIP 7's (libamdhip64.so.7), so the
  // runtime exports VMem by fd (HIP 6.2 on): no version is asked.
  if (!host_location<hipMemLocationType>(0))
    return std::printf("VERDICT: SKIP hip_host_location the headers name no hipMemLocationTypeHost\n"), 77;
  int count = 0, vmm = 0;  // VMM support: hipDeviceAttributeVirtualMemoryManagementSupported, 89
  if (hipGetDeviceCount(&count) || !count || hipDeviceGetAttribute(&vmm, hipDeviceAttribute_t(89), 0) || !vmm)
    return std::printf("VERDICT: SKIP hip_host_location no AMD GPU or no VMM\n"), 77;
  const int owner = argc == 3 ? std::atoi(argv[1]) : 0, other = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  std::printf("devices: %d,%d\n", owner, other);  // the suite's --devices for the same run
  HIP_CHECK(hipSetDevice(owner));
  hipMemAllocationProp prop{};
  prop.type = hipMemAllocationTypePinned, prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;
  prop.location.type = hipMemLocationTypeDevice, prop.location.id = owner;
  hipMemGenericAllocationHandle_t h;
  int fd = -1, sv[2];
  HIP_CHECK(hipMemCreate(&h, kBytes, &prop, 0));  // device memory for the osHandle probe, as the suite's
  HIP_CHECK(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
  const int by_pointer = takes_pointer(fd, kBytes, owner);
  prop.location.type = host_location<hipMemLocationType>(0), prop.location.id = 0;
  const hipError_t created = hipMemCreate(&h, kBytes, &prop, 0);
  if (created == hipErrorInvalidValue || created == hipErrorNotSupported)  // the runtime refuses the location
    return std::printf("VERDICT: SKIP hip_host_location hipMemCreate(Host): %s\n", hipGetErrorName(created)), 77;
  HIP_CHECK(created);
  unsigned long long* mine = map_for(h, owner);
  const int location = pool_location(mine);  // CLR once routed Host to the device allocator (rocm-systems PR #10020)
  if (location == 1) return std::printf("VERDICT: FAIL hip_host_location Host VMem in a GPU pool (device memory)\n"), 1;
  std::printf("backing: %s\n", location == 0 ? "system memory (ROCr: a CPU pool)" : "not proven (ROCr did not say)");
  differing(mine, 0);  // the owner's GPU fills the pattern (the read-back waits for the kernel)
  HIP_CHECK(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 99;
  const pid_t peer_pid = fork();  // the peer execs this program again: a forked HIP runtime is not usable
  if (peer_pid == 0) {
    close(sv[0]);
    char a[4][16];
    std::snprintf(a[0], 16, "%d", sv[1]), std::snprintf(a[1], 16, "%d", owner), std::snprintf(a[2], 16, "%d", other);
    std::snprintf(a[3], 16, "%d", by_pointer);
    execl("/proc/self/exe", argv[0], "--peer", a[0], a[1], a[2], a[3], static_cast<char*>(nullptr));
    _exit(99);
  }
  close(sv[1]);
  if (peer_pid < 0 || pass_fd(sv[0], fd) != 0) return 99;
  int status = 0;
  waitpid(peer_pid, &status, 0);
  if (WIFSIGNALED(status))
    return std::printf("VERDICT: CRASH hip_host_location the peer died by %s\n", strsignal(WTERMSIG(status))), 3;
  if (WEXITSTATUS(status) != 0) return WEXITSTATUS(status) == 99 ? 99 : 1;  // its VERDICT line above says why
  std::printf("VERDICT: PASS hip_host_location read exactly by GPU %d and GPU %d in the peer\n", other, owner);
  return 0;
}

// Both processes leave without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
// What this short program does not release is the process's until that _exit: the probe's handles, mapping, VA and
// first fd, the Host handle, its mappings and fds, the retained handle and `bad`.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}
