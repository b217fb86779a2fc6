// Minimal reproducer from vmem-repro (rocm-systems#11185): hipMemSetAccess with a Host location on a handle imported
// from another process's dma-buf fd answers hipErrorInvalidValue on 7.15 nightlies (gfx942, large BAR), while the same
// call on the owner's own handle succeeds; fixed by rocm-systems PR #11380.
// Asked only from HIP 7.2 and of large-BAR GPUs, as the suite: 6.4 reads a Host descriptor as GPU 0 and maps nothing
// for the host (hipamd-6.4.3 hip_vm.cpp:328-338); rocm-systems PR #1620 allowed Host locations on device memory.
// One direction: the suite's two ranks each import the other's memory (the control on a local handle is made on both
// GPUs, here by the owner). A FAIL of the peer is the peer's own VERDICT line: the owner prints none after it.
// suite case: repro_hip_vmem_access.host-access-imported
// build: hipcc -O2 -std=c++17 -o hip_host_access_imported hip_host_access_imported.hip
// run:   ./hip_host_access_imported [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
// exit:  0 PASS, 1 FAIL, 3 CRASH (the peer died by a signal), 77 SKIP, 99 the program itself broke (no deadline:
//        the suite's case kills a hung peer and says HANG)
#include <hip/hip_runtime.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

// Prints the verdict line, "VERDICT: WORD hip_host_access_imported DETAIL", and gives the exit code `rc`.
#define VERDICT(rc, word, ...) \
  (std::printf("VERDICT: " word " hip_host_access_imported " __VA_ARGS__), std::printf("\n"), rc)
static void check(hipError_t e, const char* call) {
  if (e != hipSuccess) VERDICT(1, "FAIL", "%s returned %s", call, hipGetErrorName(e)), std::fflush(stdout), _exit(1);
}
#define HIP_CHECK(call) check((call), #call)

static const size_t kBytes = size_t(4) << 20;  // the suite's size, rounded up to the granule

__host__ __device__ unsigned long long pattern(unsigned long long tag, size_t i) { return tag << 56 ^ i * 0x9e37ull; }
__global__ void k_fill(unsigned long long* p, size_t n, unsigned long long tag) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = pattern(tag, i);
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

// Reserve, map, grant this process's device read-write.
static unsigned long long* map_here(hipMemGenericAllocationHandle_t h, size_t size, int device) {
  void* va = nullptr;
  HIP_CHECK(hipMemAddressReserve(&va, size, 0, nullptr, 0));
  HIP_CHECK(hipMemMap(va, size, 0, h, 0));
  // CLR up to 7.2 at least answers hipSuccess for a map that failed below it: ask, as the suite does.
  hipMemLocation here{hipMemLocationTypeDevice, device};
  unsigned long long flags = 0;
  const hipError_t found = hipMemGetAccess(&flags, &here, va);
  if (found == hipErrorInvalidValue) check(found, "hipMemMap answered hipSuccess, yet no map: hipMemGetAccess");
  check(found, "hipMemGetAccess(after hipMemMap)");
  hipMemAccessDesc access{{hipMemLocationTypeDevice, device}, hipMemAccessFlagsProtReadWrite};
  HIP_CHECK(hipMemSetAccess(va, size, &access, 1));
  return static_cast<unsigned long long*>(va);
}

// Read-write for the host, then the host's own loads: *bad counts the words that differ from `tag`'s pattern. A Host
// location is 2 (hipMemLocationTypeHost in HIP 7.x; the 5.2 and 6.4 headers name none: the number is copied in).
static hipError_t host_reads(unsigned long long* va, size_t size, unsigned long long tag, size_t* bad) {
  hipMemAccessDesc a{};
  const int host = 2;
  static_assert(sizeof a.location.type == sizeof host, "hipMemLocationType is not int-sized");
  std::memcpy(&a.location.type, &host, sizeof host);
  a.flags = hipMemAccessFlagsProtReadWrite;
  const hipError_t e = hipMemSetAccess(va, size, &a, 1);
  *bad = 0;
  for (size_t i = 0; e == hipSuccess && i < size / 8; ++i) *bad += va[i] != pattern(tag, i);
  return e;
}

// The peer: receive the fd, import, map, grant its device, then the host, whose loads must read the owner's pattern.
static int peer(int sock, int owner_device, int device, int version, size_t size) {
  int fd = pass_fd(sock, -1);
  if (fd < 0) return 99;
  HIP_CHECK(hipSetDevice(device));
  // Up to HIP 7.0 the import reads *(int*)osHandle; from 7.1 it takes the fd itself, as CUDA does.
  void* os_handle = version < 70100000 ? static_cast<void*>(&fd) : reinterpret_cast<void*>(size_t(fd));
  hipMemGenericAllocationHandle_t h;
  hipError_t imported = hipMemImportFromShareableHandle(&h, os_handle, hipMemHandleTypePosixFileDescriptor);
  if (imported != hipSuccess && version < 70100000)  // a 7.0.2 backport that takes the fd by value (same version)
    imported =
        ((void)hipGetLastError(),  // its refusal is no error of a later call
         hipMemImportFromShareableHandle(&h, reinterpret_cast<void*>(size_t(fd)), hipMemHandleTypePosixFileDescriptor));
  check(imported, "hipMemImportFromShareableHandle");
  size_t bad = 0;
  unsigned long long* va = map_here(h, size, device);
  close(fd);  // as the suite's peer: the received fd is closed once the import is mapped and granted
  if (hipError_t e = host_reads(va, size, owner_device, &bad))
    return VERDICT(1, "FAIL",
                   "host access to GPU %d's imported handle: hipMemSetAccess returned %s (own handle: hipSuccess)",
                   owner_device, hipGetErrorName(e));
  if (bad) return VERDICT(1, "FAIL", "the host reading GPU %d's imported memory: %zu words differ", owner_device, bad);
  return 0;
}

static int run(int argc, char** argv) {
  if (argc == 7 && std::strcmp(argv[1], "--peer") == 0)
    return peer(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]), std::atoll(argv[6]));
  // VMM support: hipDeviceAttributeVirtualMemoryManagementSupported (89), on both GPUs as each rank asks
  int count = 0, version = 0, vmm = 0, vmm_peer = 0;
  const bool gpu = hipGetDeviceCount(&count) == hipSuccess && count > 0;
  const int owner = argc == 3 ? std::atoi(argv[1]) : 0, other = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  const auto attr = static_cast<hipDeviceAttribute_t>(89);
  if (!gpu || hipRuntimeGetVersion(&version) || version < 60200000 || hipDeviceGetAttribute(&vmm, attr, owner) ||
      hipDeviceGetAttribute(&vmm_peer, attr, other) || !vmm || !vmm_peer)
    return VERDICT(77, "SKIP", "no AMD GPU, HIP %d before 6.2 (no VMem export by fd) or no VMM", version);
  std::printf("devices: %d,%d\n", owner, other);  // the suite's --devices for the same run
  if (version < 70200000)
    return VERDICT(77, "SKIP", "HIP %d: hipMemSetAccess takes a Host location on device memory from 7.2", version);
  hipDeviceProp_t p{}, q{};
  if (hipGetDeviceProperties(&p, owner) || hipGetDeviceProperties(&q, other) || !p.isLargeBar || !q.isLargeBar)
    return VERDICT(77, "SKIP", "not a large-BAR device (isLargeBar 0): a host read of device memory could fault");
  // The control on each GPU's own handle, as each rank's: a runtime that grants the host nothing cannot show the bug.
  hipMemGenericAllocationHandle_t h;
  size_t size = 0;
  int fd = -1;
  for (int d : {other, owner}) {  // the owner's last: h, size and fd are what it shares
    HIP_CHECK(hipSetDevice(d));
    hipMemAllocationProp prop{};
    prop.type = hipMemAllocationTypePinned;
    prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;  // in every header (7.2's union has both names)
    prop.location.type = hipMemLocationTypeDevice;
    prop.location.id = d;
    size_t g = 0;
    HIP_CHECK(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum));
    size = (kBytes + g - 1) / g * g;
    HIP_CHECK(hipMemCreate(&h, size, &prop, 0));
    unsigned long long* va = map_here(h, size, d);
    // Exported before the fill and the Host grant, as the suite's allocate_exported: an export may change the handle.
    HIP_CHECK(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
    k_fill<<<264, 256>>>(va, size / 8, d);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipDeviceSynchronize());
    size_t bad = 0;
    if (hipError_t e = host_reads(va, size, d, &bad))
      return VERDICT(77, "SKIP", "no host access even on GPU %d's own handle: hipMemSetAccess returned %s", d,
                     hipGetErrorName(e));
    if (bad) return VERDICT(1, "FAIL", "the host reading GPU %d's own memory: %zu words differ", d, bad);
  }
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 99;
  std::fflush(stdout);            // before the peer writes: its FAIL line, if any, must come last
  const pid_t peer_pid = fork();  // the peer execs this program again: a forked HIP runtime is not usable
  if (peer_pid == 0) {
    close(sv[0]);
    char a[5][24];
    std::snprintf(a[0], 24, "%d", sv[1]), std::snprintf(a[1], 24, "%d", owner), std::snprintf(a[2], 24, "%d", other);
    std::snprintf(a[3], 24, "%d", version), std::snprintf(a[4], 24, "%zu", size);
    execl("/proc/self/exe", argv[0], "--peer", a[0], a[1], a[2], a[3], a[4], static_cast<char*>(nullptr));
    _exit(99);
  }
  close(sv[1]);
  if (peer_pid < 0 || pass_fd(sv[0], fd) != 0) return 99;
  int status = 0;
  waitpid(peer_pid, &status, 0);
  const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0, code = WIFEXITED(status) ? WEXITSTATUS(status) : 99;
  if (sig) return VERDICT(3, "CRASH", "the peer (GPU %d) was killed by signal %d (%s)", other, sig, strsignal(sig));
  if (code == 1) return 1;  // the peer printed its FAIL line
  if (code) return VERDICT(code == 99 ? 99 : 1, "FAIL", "the peer exited with status %d", code);
  return VERDICT(0, "PASS", "the host read GPU %d's memory exactly through its own and GPU %d's imported handle", owner,
                 other);
}

// Both processes leave without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}
