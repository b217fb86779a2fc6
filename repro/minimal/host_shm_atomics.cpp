// Minimal reproducer from vmem-repro: two processes share memory through an fd and add into it atomically, the flow
// every GPU case of the suite follows (create, reserve, map, grant, export; receive, import, map, grant, use), on
// the CPU: memfd, mmap and SCM_RIGHTS. If this fails, the node or the toolchain is broken, not the GPU stack.
// suite case: repro_host_shm.atomics
// build: g++ -O2 -std=c++17 -o host_shm_atomics host_shm_atomics.cpp
// run:   ./host_shm_atomics
// exit:  0 PASS, 1 FAIL, 3 CRASH (the peer died by a signal), 4 HANG, 99 the program itself broke
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static const size_t kCounters = 64, kStride = 8;  // one counter per 64-byte line
static const size_t kBytes = kCounters * kStride * sizeof(uint64_t);
static const uint64_t kAdds = 200000;  // per process and counter
static pid_t peer_pid = -1;

static int broke(const char* what) {
  std::printf("VERDICT: HARNESS host_shm_atomics %s: %s\n", what, std::strerror(errno));
  return 99;
}

static void on_deadline(int) {  // the peer never finished: kill it, say HANG
  if (peer_pid > 0) kill(peer_pid, SIGKILL);
  const char line[] = "VERDICT: HANG host_shm_atomics the peer did not finish in 60 s\n";
  (void)!write(1, line, sizeof line - 1);
  _exit(4);
}

// Reserve a VA range, map the shared memory into it, grant read-write: the GPU APIs' reserve, map, set-access.
static uint64_t* reserve_map_grant(int fd) {
  void* va = mmap(nullptr, kBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (va == MAP_FAILED) return nullptr;
  if (mmap(va, kBytes, PROT_NONE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) return nullptr;
  if (mprotect(va, kBytes, PROT_READ | PROT_WRITE) != 0) return nullptr;
  return static_cast<uint64_t*>(va);
}

static void add_all(uint64_t* counters) {
  for (uint64_t i = 0; i < kAdds; ++i)
    for (size_t c = 0; c < kCounters; ++c) __atomic_fetch_add(&counters[c * kStride], 1, __ATOMIC_RELAXED);
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

// The peer: receive the fd (SCM_RIGHTS), import it by mapping, add, say done.
static int peer(int sock) {
  const int fd = pass_fd(sock, -1);
  if (fd < 0) return broke("peer: recvmsg of the fd");
  uint64_t* counters = reserve_map_grant(fd);
  if (!counters) return broke("peer: reserve, map and grant the received fd");
  add_all(counters);
  return write(sock, "d", 1) == 1 ? 0 : broke("peer: write done");
}

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--peer") == 0) return peer(std::atoi(argv[2]));
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return broke("socketpair");
  // Owner: create the memory and map it, zeroed.
  int fd = memfd_create("host_shm_atomics", 0);
  if (fd < 0 || ftruncate(fd, kBytes) != 0) return broke("memfd_create");
  uint64_t* counters = reserve_map_grant(fd);
  if (!counters) return broke("reserve, map and grant the memfd");
  // The peer is this program again, started with fork + execl so it shares nothing but the socket.
  peer_pid = fork();
  if (peer_pid < 0) return broke("fork");
  if (peer_pid == 0) {
    close(sv[0]);
    char sock[16];
    std::snprintf(sock, sizeof sock, "%d", sv[1]);
    execl("/proc/self/exe", argv[0], "--peer", sock, static_cast<char*>(nullptr));
    _exit(99);
  }
  close(sv[1]);
  signal(SIGALRM, on_deadline);
  alarm(60);
  // Export: send the fd over the socket.
  if (pass_fd(sv[0], fd) != 0) return broke("sendmsg of the fd");
  add_all(counters);  // the owner adds at the same time as the peer
  char done = 0;
  const bool finished = read(sv[0], &done, 1) == 1;
  int status = 0;
  if (waitpid(peer_pid, &status, 0) != peer_pid) return broke("waitpid");
  if (WIFSIGNALED(status)) {
    std::printf("VERDICT: CRASH host_shm_atomics the peer was killed by signal %d (%s)\n", WTERMSIG(status),
                strsignal(WTERMSIG(status)));
    return 3;
  }
  if (!finished || WEXITSTATUS(status) != 0) {
    std::printf("VERDICT: FAIL host_shm_atomics the peer exited with status %d before it finished\n",
                WEXITSTATUS(status));
    return WEXITSTATUS(status) == 99 ? 99 : 1;
  }
  for (size_t i = 0; i < kCounters; ++i)
    if (counters[i * kStride] != 2 * kAdds) {
      std::printf("VERDICT: FAIL host_shm_atomics counter %zu holds %llu, expected exactly %llu\n", i,
                  (unsigned long long)counters[i * kStride], (unsigned long long)(2 * kAdds));
      return 1;
    }
  std::printf("VERDICT: PASS host_shm_atomics %zu counters each hold exactly %llu\n", kCounters,
              (unsigned long long)(2 * kAdds));
  return 0;
}
