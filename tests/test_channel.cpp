#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "fd_count.h"
#include "harness/channel.h"
#include "harness/deadline.h"

using namespace vmr;

namespace {

UniqueFd temp_file() {
  char path[] = "/tmp/vmr-chan-XXXXXX";
  int fd = mkstemp(path);
  unlink(path);
  return UniqueFd(fd);
}

// A deadline ms from now, made as the harness makes its own: an absolute CLOCK_MONOTONIC instant.
Deadline in_ms(int64_t ms) { return Deadline::at_ns(monotonic_ns() + ms * 1000000); }

bool same_file(int a, int b) {
  struct stat sa {
  }, sb{};
  return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace

TEST(Channel, FdArrivesNamesTheSameFileAndIsCloexec) {
  UniqueFd a, b;
  ASSERT_TRUE(make_socket_pair(&a, &b).ok());
  UniqueFd f1 = temp_file(), f2 = temp_file();
  int fds[2] = {f1.get(), f2.get()};
  ASSERT_TRUE(send_message(a.get(), MsgKind::Fds, "two", fds, 2, in_ms(1000), "peer").ok());
  Message m;
  ASSERT_TRUE(recv_message(b.get(), 2, in_ms(1000), "peer", &m).ok());
  EXPECT_EQ(m.kind, MsgKind::Fds);
  EXPECT_EQ(m.payload, "two");
  ASSERT_EQ(m.fds.size(), 2u);
  EXPECT_TRUE(same_file(m.fds[0].get(), f1.get()));
  EXPECT_TRUE(same_file(m.fds[1].get(), f2.get()));
  EXPECT_FALSE(same_file(m.fds[0].get(), f2.get()));
  for (auto& fd : m.fds) {
    EXPECT_NE(fd.get(), f1.get());
    EXPECT_TRUE(fcntl(fd.get(), F_GETFD) & FD_CLOEXEC);
  }
  // Writing through the received fd is seen through the original.
  ASSERT_EQ(pwrite(m.fds[0].get(), "x", 1, 0), 1);
  char c = 0;
  ASSERT_EQ(pread(f1.get(), &c, 1, 0), 1);
  EXPECT_EQ(c, 'x');
}

TEST(Channel, TruncatedControlDataIsAnErrorAndLeaksNothing) {
  UniqueFd a, b;
  ASSERT_TRUE(make_socket_pair(&a, &b).ok());
  UniqueFd f1 = temp_file(), f2 = temp_file(), f3 = temp_file();
  int fds[3] = {f1.get(), f2.get(), f3.get()};
  size_t before = open_fd_count();
  ASSERT_TRUE(send_message(a.get(), MsgKind::Fds, "", fds, 3, in_ms(1000), "peer").ok());
  Message m;
  Status s = recv_message(b.get(), 1, in_ms(1000), "peer", &m);
  EXPECT_EQ(s.verdict, Verdict::Harness);
  EXPECT_NE(s.detail.find("MSG_CTRUNC"), std::string::npos) << s.detail;
  EXPECT_EQ(open_fd_count(), before);
  // No room for fds at all.
  ASSERT_TRUE(send_message(a.get(), MsgKind::Fds, "", fds, 1, in_ms(1000), "peer").ok());
  EXPECT_EQ(recv_message(b.get(), 0, in_ms(1000), "peer", &m).verdict, Verdict::Harness);
  EXPECT_EQ(open_fd_count(), before);
}

TEST(Channel, MalformedMessageIsRejected) {
  UniqueFd a, b;
  ASSERT_TRUE(make_socket_pair(&a, &b).ok());
  const char junk[] = "not a vmem-repro message";
  ASSERT_EQ(send(a.get(), junk, sizeof junk, 0), ssize_t(sizeof junk));
  Message m;
  Status s = recv_message(b.get(), 0, in_ms(1000), "rank 1", &m);
  EXPECT_EQ(s.verdict, Verdict::Harness);
  EXPECT_NE(s.detail.find("rank 1"), std::string::npos);
}

TEST(Channel, DeadPeerIsNoticedAtOnce) {
  UniqueFd a, b;
  ASSERT_TRUE(make_socket_pair(&a, &b).ok());
  a.reset();
  Message m;
  int64_t t0 = monotonic_ns();
  Status s = recv_message(b.get(), 0, in_ms(5000), "rank 1", &m);
  EXPECT_LT(monotonic_ns() - t0, 1000000000);
  EXPECT_EQ(s.verdict, Verdict::Fail);
  EXPECT_NE(s.detail.find("rank 1 left"), std::string::npos) << s.detail;
  EXPECT_EQ(send_message(b.get(), MsgKind::Data, "x", nullptr, 0, in_ms(1000), "rank 1").verdict, Verdict::Fail);
}

TEST(Channel, WaitsHonourTheDeadline) {
  UniqueFd a, b;
  ASSERT_TRUE(make_socket_pair(&a, &b).ok());
  Message m;
  int64_t t0 = monotonic_ns();
  Status s = recv_message(b.get(), 0, in_ms(100), "rank 1", &m);
  int64_t waited = monotonic_ns() - t0;
  EXPECT_EQ(s.verdict, Verdict::Hang);
  EXPECT_GE(waited, 100000000);
  EXPECT_LT(waited, 2000000000);
}

TEST(Mesh, BarrierAndAllGatherAcrossEightRanks) {
  const int n = 8;
  std::vector<std::vector<UniqueFd>> ends(n);
  for (auto& row : ends) row.resize(n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) ASSERT_TRUE(make_socket_pair(&ends[i][j], &ends[j][i]).ok());
  std::vector<std::vector<std::string>> gathered(n);
  std::vector<Status> results(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      Mesh mesh(i, std::move(ends[i]), in_ms(5000));
      Status s = mesh.barrier("one");
      if (s.ok()) s = mesh.all_gather("from " + std::to_string(i), &gathered[i]);
      if (s.ok()) s = mesh.barrier("two");
      results[i] = s;
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(results[i].ok()) << i << ": " << results[i].detail;
    ASSERT_EQ(gathered[i].size(), size_t(n));
    for (int j = 0; j < n; ++j) EXPECT_EQ(gathered[i][j], "from " + std::to_string(j));
  }
}

TEST(Mesh, MismatchedBarrierIsAProtocolError) {
  std::vector<std::vector<UniqueFd>> ends(2);
  for (auto& row : ends) row.resize(2);
  ASSERT_TRUE(make_socket_pair(&ends[0][1], &ends[1][0]).ok());
  Status s0, s1;
  std::thread t([&] {
    Mesh m(1, std::move(ends[1]), in_ms(2000));
    s1 = m.barrier("beta");
  });
  Mesh m(0, std::move(ends[0]), in_ms(2000));
  s0 = m.barrier("alpha");
  t.join();
  EXPECT_EQ(s0.verdict, Verdict::Harness);
  EXPECT_NE(s0.detail.find("beta"), std::string::npos) << s0.detail;
}

TEST(Mesh, ShareFdGivesEveryRankEveryOtherRanksFdAndNote) {
  const int n = 3;
  std::vector<std::vector<UniqueFd>> ends(n);
  for (auto& row : ends) row.resize(n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) ASSERT_TRUE(make_socket_pair(&ends[i][j], &ends[j][i]).ok());
  std::vector<UniqueFd> files;
  for (int i = 0; i < n; ++i) files.push_back(temp_file());
  std::vector<std::vector<std::string>> seen(n);
  std::vector<Status> results(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      Mesh mesh(i, std::move(ends[i]), in_ms(5000));
      results[i] =
          mesh.share_fd(files[i].get(), "from " + std::to_string(i), [&](int peer, int fd, const std::string& note) {
            bool same = same_file(fd, files[peer].get());
            seen[i].push_back(std::to_string(peer) + ":" + note + (same ? ":same" : ":other"));
            return Status::pass();
          });
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].detail;
    std::vector<std::string> want;
    for (int j = 0; j < n; ++j)
      if (j != i) want.push_back(std::to_string(j) + ":from " + std::to_string(j) + ":same");
    EXPECT_EQ(seen[i], want);
  }
}

// An export that hands out the number the holder already has (the runtime's own fd, reopened at the same number)
// must leave it open; another number closes the old one.
TEST(UniqueFdReset, TheNumberItHoldsStaysOpenAnotherClosesTheOld) {
  UniqueFd held = temp_file();
  const int n = held.get();
  held.reset(n);
  EXPECT_EQ(held.get(), n);
  EXPECT_NE(fcntl(n, F_GETFD), -1) << "reset to the number it held closed it";
  UniqueFd other = temp_file();
  const int m = other.release();
  held.reset(m);
  EXPECT_EQ(fcntl(n, F_GETFD), -1) << "the old number stays open after reset to another";
  EXPECT_NE(fcntl(m, F_GETFD), -1);
}
