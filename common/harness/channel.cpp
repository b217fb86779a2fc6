#include "harness/channel.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstring>

namespace vmr {

namespace {

constexpr uint32_t kMagic = 0x434d5256;  // "VRMC"

struct Header {
  uint32_t magic;
  uint16_t kind;
  uint16_t nfds;
  uint32_t length;
};

// Waits until `events` is ready on sock. POLLHUP counts as ready: the following call reports the EOF.
Status wait_ready(int sock, short events, Deadline deadline, std::string_view who, const char* what) {
  for (;;) {
    pollfd p{sock, events, 0};
    int n = ::poll(&p, 1, deadline.poll_timeout_ms());
    if (n > 0) return Status::pass();
    if (n == 0) return Status::hang("deadline passed while waiting to " + std::string(what) + " " + std::string(who));
    if (errno != EINTR) return Status::harness(errno_text("poll on control channel"));
  }
}

void close_rights(msghdr* mh) {
  for (cmsghdr* c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < n; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      ::close(fd);
    }
  }
}

}  // namespace

const char* msg_kind_name(MsgKind kind) {
  switch (kind) {
    case MsgKind::Barrier:
      return "barrier";
    case MsgKind::Gather:
      return "all-gather";
    case MsgKind::Fds:
      return "fds";
    case MsgKind::Data:
      return "data";
  }
  return "unknown";
}

Status make_socket_pair(UniqueFd* a, UniqueFd* b) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    return Status::harness(errno_text("socketpair(AF_UNIX, SOCK_SEQPACKET)"));
  a->reset(sv[0]);
  b->reset(sv[1]);
  return Status::pass();
}

Status send_message(int sock, MsgKind kind, std::string_view payload, const int* fds, size_t nfds, Deadline deadline,
                    std::string_view who) {
  if (payload.size() > kMaxPayload || nfds > kMaxFdsPerMessage)
    return Status::harness("message to " + std::string(who) + " too large: " + std::to_string(payload.size()) +
                           " bytes, " + std::to_string(nfds) + " fds");
  Header h{kMagic, uint16_t(kind), uint16_t(nfds), uint32_t(payload.size())};
  iovec iov[2] = {{&h, sizeof h}, {const_cast<char*>(payload.data()), payload.size()}};
  alignas(cmsghdr) char control[CMSG_SPACE(kMaxFdsPerMessage * sizeof(int))] = {};
  msghdr mh{};
  mh.msg_iov = iov;
  mh.msg_iovlen = payload.empty() ? 1 : 2;
  if (nfds > 0) {
    mh.msg_control = control;
    mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
    cmsghdr* c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
    std::memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
  }
  for (;;) {
    VMR_TRY(wait_ready(sock, POLLOUT, deadline, who, "send to"));
    ssize_t n = ::sendmsg(sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n == ssize_t(sizeof h + payload.size())) return Status::pass();
    if (n >= 0) return Status::harness("short send to " + std::string(who));
    if (errno == EINTR || errno == EAGAIN) continue;
    if (errno == EPIPE || errno == ECONNRESET)
      return Status::fail(std::string(who) + " left: control channel closed while sending " + msg_kind_name(kind));
    return Status::harness(errno_text("sendmsg to " + std::string(who)));
  }
}

Status recv_message(int sock, size_t max_fds, Deadline deadline, std::string_view who, Message* out) {
  Header h{};
  std::string payload(kMaxPayload + 1, '\0');  // one spare byte turns an oversized payload into MSG_TRUNC
  iovec iov[2] = {{&h, sizeof h}, {payload.data(), payload.size()}};
  alignas(cmsghdr) char control[CMSG_SPACE(kMaxFdsPerMessage * sizeof(int))] = {};
  msghdr mh{};
  mh.msg_iov = iov;
  mh.msg_iovlen = 2;
  mh.msg_control = max_fds ? control : nullptr;
  mh.msg_controllen = max_fds ? CMSG_SPACE(std::min(max_fds, kMaxFdsPerMessage) * sizeof(int)) : 0;
  ssize_t n;
  for (;;) {
    VMR_TRY(wait_ready(sock, POLLIN, deadline, who, "receive from"));
    n = ::recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n >= 0) break;
    if (errno == EINTR || errno == EAGAIN) continue;
    if (errno == ECONNRESET)
      n = 0;
    else
      return Status::harness(errno_text("recvmsg from " + std::string(who)));
    break;
  }
  if (n == 0) return Status::fail(std::string(who) + " left: control channel closed (EOF)");

  std::vector<UniqueFd> fds;
  for (cmsghdr* c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0)) {
      close_rights(&mh);
      return Status::harness("unexpected control message from " + std::string(who));
    }
    size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      fds.emplace_back(fd);
    }
  }
  if (mh.msg_flags & MSG_CTRUNC)
    return Status::harness("control data from " + std::string(who) + " truncated (MSG_CTRUNC): more fds than the " +
                           std::to_string(max_fds) + " expected");
  if (mh.msg_flags & MSG_TRUNC) return Status::harness("message from " + std::string(who) + " truncated (MSG_TRUNC)");
  if (size_t(n) < sizeof h || h.magic != kMagic)
    return Status::harness("malformed message from " + std::string(who) + " (bad header)");
  if (h.length != size_t(n) - sizeof h || h.nfds != fds.size())
    return Status::harness("malformed message from " + std::string(who) + ": header says " + std::to_string(h.length) +
                           " bytes and " + std::to_string(h.nfds) + " fds, got " +
                           std::to_string(size_t(n) - sizeof h) + " bytes and " + std::to_string(fds.size()) + " fds");
  payload.resize(h.length);
  out->kind = MsgKind(h.kind);
  out->payload = std::move(payload);
  out->fds = std::move(fds);
  return Status::pass();
}

Status Mesh::send(int peer, MsgKind kind, std::string_view payload, const int* fds, size_t nfds) {
  if (peer < 0 || peer >= size() || peer == self_) return Status::harness("send to invalid " + who(peer));
  return send_message(peers_[peer].get(), kind, payload, fds, nfds, deadline_, who(peer));
}

Status Mesh::recv(int peer, MsgKind kind, size_t max_fds, Message* out) {
  if (peer < 0 || peer >= size() || peer == self_) return Status::harness("receive from invalid " + who(peer));
  VMR_TRY(recv_message(peers_[peer].get(), max_fds, deadline_, who(peer), out));
  if (out->kind != kind)
    return Status::harness("protocol: expected " + std::string(msg_kind_name(kind)) + " from " + who(peer) + ", got " +
                           msg_kind_name(out->kind));
  return Status::pass();
}

Status Mesh::barrier(std::string_view label) {
  for (int j = 0; j < size(); ++j)
    if (j != self_) VMR_TRY(send(j, MsgKind::Barrier, label));
  for (int j = 0; j < size(); ++j) {
    if (j == self_) continue;
    Message m;
    Status s = recv(j, MsgKind::Barrier, 0, &m);
    if (!s.ok()) return {s.verdict, s.detail + " (at barrier '" + std::string(label) + "')"};
    if (m.payload != label)
      return Status::harness("protocol: at barrier '" + std::string(label) + "' " + who(j) + " was at barrier '" +
                             m.payload + "'");
  }
  return Status::pass();
}

Status Mesh::all_gather(std::string_view mine, std::vector<std::string>* all) {
  all->assign(size(), {});
  (*all)[self_] = std::string(mine);
  for (int j = 0; j < size(); ++j)
    if (j != self_) VMR_TRY(send(j, MsgKind::Gather, mine));
  for (int j = 0; j < size(); ++j) {
    if (j == self_) continue;
    Message m;
    VMR_TRY(recv(j, MsgKind::Gather, 0, &m));
    (*all)[j] = std::move(m.payload);
  }
  return Status::pass();
}

Status Mesh::send_fds(int peer, const std::vector<int>& fds, std::string_view payload) {
  return send(peer, MsgKind::Fds, payload, fds.data(), fds.size());
}

Status Mesh::recv_fds(int peer, size_t count, std::vector<UniqueFd>* fds, std::string* payload) {
  Message m;
  VMR_TRY(recv(peer, MsgKind::Fds, count, &m));
  if (m.fds.size() != count)
    return Status::harness("protocol: expected " + std::to_string(count) + " fds from " + who(peer) + ", got " +
                           std::to_string(m.fds.size()));
  *fds = std::move(m.fds);
  if (payload) *payload = std::move(m.payload);
  return Status::pass();
}

Status Mesh::share_fd(int fd, std::string_view note, const TakeFd& take) {
  for (int j = 0; j < size(); ++j)
    if (j != self_) VMR_TRY(send_fds(j, {fd}, note));
  for (int j = 0; j < size(); ++j) {
    if (j == self_) continue;
    std::vector<UniqueFd> fds;
    std::string their_note;
    VMR_TRY(recv_fds(j, 1, &fds, &their_note));
    VMR_TRY(take(j, fds[0].get(), their_note));
  }
  return Status::pass();
}

}  // namespace vmr
