// The control channel between ranks: one SOCK_SEQPACKET socketpair per pair of ranks (a full mesh), so every
// message keeps its boundaries, fds travel with SCM_RIGHTS, and a peer that dies is an EOF at once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/deadline.h"
#include "harness/scope_guard.h"
#include "harness/status.h"

namespace vmr {

enum class MsgKind : uint16_t { Barrier = 1, Gather = 2, Fds = 3, Data = 4 };
const char* msg_kind_name(MsgKind kind);

constexpr size_t kMaxPayload = 60 * 1024;
constexpr size_t kMaxFdsPerMessage = 16;

struct Message {
  MsgKind kind = MsgKind::Data;
  std::string payload;
  std::vector<UniqueFd> fds;
};

// One message on a connected SEQPACKET socket. `who` names the peer in error texts ("rank 1").
// Errors: Hang when the deadline passes, Fail when the peer has left (EOF, EPIPE), Harness otherwise.
Status send_message(int sock, MsgKind kind, std::string_view payload, const int* fds, size_t nfds, Deadline deadline,
                    std::string_view who);
// Receives one message and at most max_fds fds (closed-on-exec). More fds than that, truncated control
// data or a truncated payload is a Harness error, and every fd that did arrive is closed.
Status recv_message(int sock, size_t max_fds, Deadline deadline, std::string_view who, Message* out);

// Creates a connected, close-on-exec SEQPACKET pair.
Status make_socket_pair(UniqueFd* a, UniqueFd* b);

class Mesh {
 public:
  // peers[j] is the socket to rank j; peers[self] is unused (-1).
  Mesh(int self, std::vector<UniqueFd> peers, Deadline deadline)
      : self_(self), peers_(std::move(peers)), deadline_(deadline) {}

  int size() const { return int(peers_.size()); }
  // Each case of a rank life has its own deadline, set when the case starts.
  void set_deadline(Deadline d) { deadline_ = d; }

  Status send(int peer, MsgKind kind, std::string_view payload, const int* fds = nullptr, size_t nfds = 0);
  // Receives the next message from `peer`, which must be of `kind` (else a Harness protocol error).
  Status recv(int peer, MsgKind kind, size_t max_fds, Message* out);

  Status barrier(std::string_view label);
  Status all_gather(std::string_view mine, std::vector<std::string>* all);
  Status send_fds(int peer, const std::vector<int>& fds, std::string_view payload = {});
  Status recv_fds(int peer, size_t count, std::vector<UniqueFd>* fds, std::string* payload = nullptr);
  // The export/import step every reproducer shares: sends `fd` with `note` to every other rank, then receives
  // each other rank's fd and note in rank order and hands them to `take`. The received fd is closed when `take`
  // returns (whatever it mapped keeps the memory alive).
  using TakeFd = std::function<Status(int peer, int fd, const std::string& note)>;
  Status share_fd(int fd, std::string_view note, const TakeFd& take);

 private:
  std::string who(int peer) const { return "rank " + std::to_string(peer); }
  int self_;
  std::vector<UniqueFd> peers_;
  Deadline deadline_;
};

}  // namespace vmr
