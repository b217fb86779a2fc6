// Minimal reproducer from vmem-repro (rocm-systems PR #11449): ROCr's pointer query, hsa_amd_pointer_info (the call
// CLR and profilers make on device pointers), on a VA mapped from a handle imported from another process's dma-buf
// fd. From rocm-systems PR #6471 an imported handle has no region and the query reads its owner through it: a null
// dereference, SIGSEGV in the importer (CRASH); before #6471 and after #11449 it answers.
// One direction: the suite's two ranks each import the other's memory. hsa_amd_pointer_info is looked up in the HSA
// runtime HIP loaded (the build line links the HIP runtime only). A FAIL of the peer is the peer's own VERDICT line:
// the owner prints none after it.
// suite case: repro_hip_vmem_access.pointer-info-imported
// build: hipcc -O2 -std=c++17 -o hip_pointer_info_imported hip_pointer_info_imported.hip -ldl
// run:   ./hip_pointer_info_imported [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
// exit:  0 PASS, 1 FAIL, 3 CRASH (the peer died by a signal), 77 SKIP, 99 the program itself broke (no deadline:
//        the suite's case kills a hung peer and says HANG)
#include <dlfcn.h>
#include <hip/hip_runtime.h>
#include <hsa/hsa_ext_amd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// Prints the verdict line, "VERDICT: WORD hip_pointer_info_imported DETAIL", and gives the exit code `rc`.
#define VERDICT(rc, word, ...) \
  (std::printf("VERDICT: " word " hip_pointer_info_imported " __VA_ARGS__), std::printf("\n"), rc)
static void check(hipError_t e, const char* call) {
  if (e != hipSuccess) VERDICT(1, "FAIL", "%s returned %s", call, hipGetErrorName(e)), std::fflush(stdout), _exit(1);
}
#define HIP_CHECK(call) check((call), #call)

static const size_t kBytes = size_t(4) << 20;  // the suite's size, rounded up to the granule

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

// Reserve, map, grant this process's device read-write: the VA the pointer query is asked about.
static void* map_here(hipMemGenericAllocationHandle_t h, size_t size, int device) {
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
  return va;
}

// hsa_amd_pointer_info(va): a status other than success is a FAIL naming it; *answer says what it found.
static bool pointer_info(const void* va, const char* whose, char (&answer)[64]) {
  static void* const hsa = dlopen("libhsa-runtime64.so.1", RTLD_NOW | RTLD_NOLOAD);  // the one HIP loaded, if local
  static const auto query =
      reinterpret_cast<decltype(&hsa_amd_pointer_info)>(dlsym(hsa ? hsa : RTLD_DEFAULT, "hsa_amd_pointer_info"));
  if (!query) VERDICT(99, "FAIL", "no hsa_amd_pointer_info in this process"), std::fflush(stdout), _exit(99);
  hsa_amd_pointer_info_t info{};
  info.size = sizeof info;
  const hsa_status_t s = query(va, &info, nullptr, nullptr, nullptr);
  if (s != HSA_STATUS_SUCCESS) return VERDICT(false, "FAIL", "hsa_amd_pointer_info on %s returned 0x%x", whose, s);
  std::snprintf(answer, sizeof answer, "type %d, %zu bytes", int(info.type), info.sizeInBytes);
  return true;
}

static hipMemAllocationProp fd_prop(int device) {
  hipMemAllocationProp prop{};
  prop.type = hipMemAllocationTypePinned;
  prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;  // in every header (7.2's union has both names)
  prop.location.type = hipMemLocationTypeDevice;
  prop.location.id = device;
  return prop;
}

// The peer: receive the fd, import, map, grant its device, then the pointer query on the imported VA.
static int peer(int sock, int device, int version, size_t size) {
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
  char theirs[64];
  if (!pointer_info(map_here(h, size, device), "the imported mapping", theirs)) return 1;
  std::printf("imported mapping: %s\n", theirs);
  return 0;
}

static int run(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "--peer") == 0)
    return peer(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoll(argv[5]));
  // VMM support: hipDeviceAttributeVirtualMemoryManagementSupported (89), on both GPUs as each rank asks
  int count = 0, version = 0, vmm = 0, vmm_peer = 0;
  const bool gpu = hipGetDeviceCount(&count) == hipSuccess && count > 0;
  const int owner = argc == 3 ? std::atoi(argv[1]) : 0, other = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  const auto attr = static_cast<hipDeviceAttribute_t>(89);
  if (!gpu || hipRuntimeGetVersion(&version) || version < 60200000 || hipDeviceGetAttribute(&vmm, attr, owner) ||
      hipDeviceGetAttribute(&vmm_peer, attr, other) || !vmm || !vmm_peer)
    return VERDICT(77, "SKIP", "no AMD GPU, HIP %d before 6.2 (no VMem export by fd) or no VMM", version);
  std::printf("devices: %d,%d\n", owner, other);  // the suite's --devices for the same run
  // Owner: create, map, grant, export, and the pointer query on its own mapping (the control).
  HIP_CHECK(hipSetDevice(owner));
  hipMemAllocationProp prop = fd_prop(owner);
  size_t g = 0;
  HIP_CHECK(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum));
  const size_t size = (kBytes + g - 1) / g * g;
  hipMemGenericAllocationHandle_t h;
  HIP_CHECK(hipMemCreate(&h, size, &prop, 0));
  void* va = map_here(h, size, owner);
  int fd = -1;
  HIP_CHECK(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
  char mine[64];
  if (!pointer_info(va, "the owner's own mapping", mine)) return 1;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 99;
  std::fflush(stdout);            // before the peer writes: its FAIL line, if any, must come last
  const pid_t peer_pid = fork();  // the peer execs this program again: a forked HIP runtime is not usable
  if (peer_pid == 0) {
    close(sv[0]);
    char a[4][24];
    std::snprintf(a[0], 24, "%d", sv[1]), std::snprintf(a[1], 24, "%d", other), std::snprintf(a[2], 24, "%d", version);
    std::snprintf(a[3], 24, "%zu", size);
    execl("/proc/self/exe", argv[0], "--peer", a[0], a[1], a[2], a[3], static_cast<char*>(nullptr));
    _exit(99);
  }
  close(sv[1]);
  if (peer_pid < 0 || pass_fd(sv[0], fd) != 0) return 99;
  int status = 0;
  waitpid(peer_pid, &status, 0);
  const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0, code = WIFEXITED(status) ? WEXITSTATUS(status) : 99;
  const char* name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGABRT ? "SIGABRT" : "a signal";
  if (sig)
    return VERDICT(3, "CRASH", "the peer (GPU %d) was killed by %s (signal %d, %s) in the pointer query", other, name,
                   sig, strsignal(sig));
  if (code == 1) return 1;  // the peer printed its FAIL line
  if (code) return VERDICT(code == 99 ? 99 : 1, "FAIL", "the peer exited with status %d", code);
  return VERDICT(0, "PASS", "hsa_amd_pointer_info answered for the owner's own mapping (%s) and the imported one",
                 mine);
}

// Both processes leave without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}
