// Minimal reproducer from vmem-repro (rocm-systems PR #8440): the importer owns its dma-buf fd and closes it right
// after hipMemImportFromShareableHandle, then reserves, maps and sets access. Since rocm-systems PR #6471 ROCr keeps
// the fd number and imports it only at set-access time, so it meets an fd that is gone: "hipMemSetAccess returned
// hipErrorInvalidValue" (the PR #8440 comment of 2026-08-11, on the official 7.14.0 image), or, where the number
// was reused, other memory, which the pattern check names. Before #6471 and after #8440 the import happens inside
// the call, and KFD's dma-buf import holds its own reference: PASS.
// One direction; the suite's ranks also import each other's memory at once, and compare a checksum too.
// suite case: repro_hip_vmem_regressions.import-close-fd
// build: hipcc -O2 -std=c++17 -o hip_import_close_fd hip_import_close_fd.hip
// run:   ./hip_import_close_fd [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
// exit:  0 PASS, 1 FAIL, 3 CRASH (the peer died by a signal), 77 SKIP, 99 the program itself broke (no deadline:
//        the suite's case kills a hung peer and says HANG)
#include <hip/hip_runtime.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

typedef unsigned long long u64;
static bool g_peer = false;  // the peer's stdout is the socket: the owner puts what it says in its verdict

// A FAIL's detail, in the peer without the prefix; no runtime teardown (_exit), as the suite's ranks.
#define FAIL(...)                                                                                                      \
  (std::printf("%s", g_peer ? "" : "VERDICT: FAIL hip_import_close_fd "), std::printf(__VA_ARGS__), std::printf("\n"), \
   std::fflush(stdout), _exit(1))
static void check(hipError_t e, const char* call) {  // names the function: "hipMemSetAccess returned ..."
  if (e != hipSuccess) FAIL("%.*s returned %s", int(std::strcspn(call, "(")), call, hipGetErrorName(e));
}
#define HIP_CHECK(call) check((call), #call)

// Fills [p, p + n) with the pattern, or with `bad` counts the words that differ (bad[0]) and finds the first (bad[1]).
__global__ void k_pattern(u64* p, size_t n, u64* bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (!bad)
      p[i] = (i + 1) * 0x9e3779b97f4a7c15ull;
    else if (p[i] != (i + 1) * 0x9e3779b97f4a7c15ull)
      atomicAdd(&bad[0], 1ull), atomicMin(&bad[1], u64(i));
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
static u64* map_here(hipMemGenericAllocationHandle_t h, size_t size, int device) {
  void* va = nullptr;
  HIP_CHECK(hipMemAddressReserve(&va, size, 0, nullptr, 0));
  HIP_CHECK(hipMemMap(va, size, 0, h, 0));
  // As the suite's map: CLR up to 7.2 at least answers hipSuccess for a map that did not happen; this finds none.
  hipMemLocation here{hipMemLocationTypeDevice, device};
  unsigned long long flags = 0;
  if (const hipError_t e = hipMemGetAccess(&flags, &here, va))
    FAIL("hipMemMap returned hipSuccess, but hipMemGetAccess finds no mapping there (%s)", hipGetErrorName(e));
  hipMemAccessDesc access{here, hipMemAccessFlagsProtReadWrite};
  HIP_CHECK(hipMemSetAccess(va, size, &access, 1));
  return static_cast<u64*>(va);
}

// Pinned memory on `device`, exportable by fd; *size: the suite's 4 MiB rounded up to its minimum granularity.
static hipMemAllocationProp fd_prop(int device, size_t* size) {
  hipMemAllocationProp prop{};
  // requestedHandleType: in every header (7.2's union has both names)
  prop.type = hipMemAllocationTypePinned, prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;
  prop.location.type = hipMemLocationTypeDevice, prop.location.id = device;
  size_t g = 0;
  HIP_CHECK(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum));
  *size = ((size_t(4) << 20) + g - 1) / g * g;
  return prop;
}

// hipDeviceAttributeVirtualMemoryManagementSupported (89): the suite SKIPs on 0, unless HIP_VMEM_MANAGE_SUPPORT is
// off, which zeroes only the attribute (hipMemCreate still works): the suite then asks ROCr, this file just runs.
static bool vmm(int device) {
  const char* off = std::getenv("HIP_VMEM_MANAGE_SUPPORT");
  int on = off && std::strcmp(off, "true") && !std::atoi(off);  // clr: only "true" or a non-zero number is on
  return on || (hipDeviceGetAttribute(&on, static_cast<hipDeviceAttribute_t>(89), device) == hipSuccess && on);
}

// The peer: receive the fd, import a dup of it, close the dup, then reserve, map, set access and read it all.
static int peer(int sock, size_t size, int device, int version) {
  const int fd = pass_fd(sock, -1);  // held open to the end, as the suite's harness holds the fd it received
  int mine = fd < 0 ? -1 : dup(fd);  // the importer's own fd, as an application that received it holds it
  if (mine < 0 || !(g_peer = dup2(sock, STDOUT_FILENO) >= 0)) return 99;
  HIP_CHECK(hipSetDevice(device));
  // Up to HIP 7.0 the import reads *(int*)osHandle; from 7.1 it takes the fd itself, as CUDA does.
  void* by_value = reinterpret_cast<void*>(size_t(mine));
  hipMemGenericAllocationHandle_t h;
  hipError_t imported = hipMemImportFromShareableHandle(&h, version < 70100000 ? static_cast<void*>(&mine) : by_value,
                                                        hipMemHandleTypePosixFileDescriptor);
  if (imported != hipSuccess && version < 70100000)  // a 7.0.2 backport takes the fd by value (same version)
    imported =
        ((void)hipGetLastError(), hipMemImportFromShareableHandle(&h, by_value, hipMemHandleTypePosixFileDescriptor));
  check(imported, "hipMemImportFromShareableHandle");
  close(mine);  // the bug's trigger: closed right after the import, before reserve, map and set access
  u64* mem = map_here(h, size, device);
  u64 *cells = nullptr, got[2] = {0, ~0ull};
  HIP_CHECK(hipMalloc(&cells, sizeof got));
  HIP_CHECK(hipMemcpy(cells, got, sizeof got, hipMemcpyHostToDevice));
  k_pattern<<<264, 256>>>(mem, size / sizeof(u64), cells);
  HIP_CHECK(hipGetLastError());  // a launch refused (no code object for this GPU) is not a wrong read
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(got, cells, sizeof got, hipMemcpyDeviceToHost));
  if (got[0])
    FAIL("peer read of rank 0: %llu of %zu words differ from its pattern, first at %llu", got[0], size / 8, got[1]);
  return 0;
}

static int run(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "--peer") == 0)
    return peer(std::atoi(argv[2]), std::strtoull(argv[3], nullptr, 10), std::atoi(argv[4]), std::atoi(argv[5]));
  int count = 0, version = 0;
  const bool gpus = hipGetDeviceCount(&count) == hipSuccess && count > 0;
  const int owner = argc == 3 ? std::atoi(argv[1]) : 0, other = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  if (!gpus || hipRuntimeGetVersion(&version) != hipSuccess || version < 60200000 || !vmm(owner) || !vmm(other))
    return std::printf("VERDICT: SKIP hip_import_close_fd no AMD GPU, HIP %d < 6.2 or no VMM\n", version), 77;
  std::printf("devices: %d,%d\n", owner, other);  // the suite's --devices for the same run
  // Owner: create, map, export, fill with the pattern.
  HIP_CHECK(hipSetDevice(owner));
  size_t size = 0;
  hipMemAllocationProp prop = fd_prop(owner, &size);
  hipMemGenericAllocationHandle_t h;
  HIP_CHECK(hipMemCreate(&h, size, &prop, 0));
  u64* mem = map_here(h, size, owner);
  int fd = -1, sv[2], status = 0;
  HIP_CHECK(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
  k_pattern<<<264, 256>>>(mem, size / sizeof(u64), nullptr);  // a kernel: hipMemset/hipMemcpy skip VMem VAs
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 99;
  const pid_t peer_pid = fork();  // the peer execs this program again: a forked HIP runtime is not usable
  if (peer_pid == 0) {
    close(sv[0]);
    char a[4][16];
    std::snprintf(a[0], 16, "%d", sv[1]), std::snprintf(a[1], 16, "%zu", size), std::snprintf(a[2], 16, "%d", other);
    std::snprintf(a[3], 16, "%d", version);
    execl("/proc/self/exe", argv[0], "--peer", a[0], a[1], a[2], a[3], static_cast<char*>(nullptr));
    _exit(99);
  }
  close(sv[1]);         // so that a peer that dies ends the read below
  char said[256] = {};  // the peer's one line (one write) if it failed; nothing (its end) if not
  if (peer_pid < 0 || pass_fd(sv[0], fd) != 0 || read(sv[0], said, sizeof said - 1) < 0) return 99;
  waitpid(peer_pid, &status, 0);
  const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0, code = WEXITSTATUS(status);
  if (sig)
    return std::printf("VERDICT: CRASH hip_import_close_fd the peer (GPU %d) was killed by signal %d (%s)\n", other,
                       sig, strsignal(sig)),
           3;
  if (code != 0)
    return std::printf("VERDICT: FAIL hip_import_close_fd the peer (GPU %d) exited with status %d: %.*s\n", other, code,
                       int(std::strcspn(said, "\n")), said),
           code == 99 ? 99 : 1;
  std::printf("VERDICT: PASS hip_import_close_fd GPU %d closed its fd after the import, and read GPU %d's memory\n",
              other, owner);
  return 0;
}

// Both processes leave without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}
