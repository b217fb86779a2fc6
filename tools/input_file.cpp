#include "input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "harness/scope_guard.h"

namespace vmr_tools {

using namespace vmr;

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISLNK(mode)) return "a symlink";
  return "not a plain file";
}

Status refused(const std::string& named, const std::string& why) {
  return {Verdict::Usage, "cannot read " + named + ": " + why};
}

Status not_regular(const std::string& named, mode_t mode) {
  return refused(named, std::string("it is ") + kind_of(mode) + ", not a regular file");
}

Status over_cap(const std::string& named) {
  return refused(named, "it holds more than the " + std::to_string(kMaxInputBytes >> 20) + " MiB an input file may");
}

Status failed(const std::string& named) { return Status::harness(errno_text("cannot read " + named)); }

// The regular file at `path`, whole. `follow` false: a symlink there is refused (the caller resolved it already).
Status read_regular(const std::string& path, bool follow, const std::string& named, std::string* out) {
  struct stat st {};
  // Its type before it is opened: opening a FIFO without a writer blocks, and opening a device may act by itself.
  if ((follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) return failed(named);
  if (!S_ISREG(st.st_mode)) return not_regular(named, st.st_mode);
  // O_NONBLOCK and O_NOFOLLOW: what was swapped in since the check neither blocks the open nor leads elsewhere.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW)));
  if (!fd.valid()) return failed(named);
  if (::fstat(fd.get(), &st) != 0) return failed(named);
  if (!S_ISREG(st.st_mode)) return not_regular(named, st.st_mode);
  if (st.st_size > kMaxInputBytes) return over_cap(named);
  std::string text;
  text.reserve(size_t(st.st_size));
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failed(named);
    if (n == 0) break;
    text.append(buf, size_t(n));
    // Bounded as it is read too: a file that grows meanwhile, or one whose size says nothing (/proc's say 0).
    if (int64_t(text.size()) > kMaxInputBytes) return over_cap(named);
  }
  *out = std::move(text);
  return Status::pass();
}

}  // namespace

std::string real_path(const std::string& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (!resolved) return "";
  std::string out = resolved;
  std::free(resolved);
  return out;
}

Status read_input_file(const std::string& path, std::string* out, const std::string& named) {
  return read_regular(path, true, named.empty() ? path : named, out);
}

Status read_folder_file(const std::string& dir, const std::string& name, std::string* out) {
  const std::string path = dir + "/" + name;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return failed(path);
  if (!S_ISLNK(st.st_mode)) return read_regular(path, false, path, out);
  // A symlink (a folder gathered with `cp -s`): read where it leads only if that is inside the folder.
  const std::string folder = real_path(dir);
  if (folder.empty()) return failed(dir);
  const std::string target = real_path(path);
  if (target.empty()) return refused(path, "it is a symlink that leads nowhere (" + errno_text("realpath") + ")");
  const std::string inside = folder == "/" ? folder : folder + "/";
  if (target.compare(0, inside.size(), inside) != 0)
    return refused(path, "it is a symlink to " + target + ", outside the folder " + dir);
  return read_regular(target, false, path, out);
}

}  // namespace vmr_tools
