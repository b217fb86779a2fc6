#include "harness/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "harness/scope_guard.h"

namespace vmr {

namespace {

std::string folder_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

}  // namespace

Status check_output_path(const std::string& path) {
  auto refuse = [&](const std::string& why) { return Status{Verdict::Usage, "--json: '" + path + "' " + why}; };
  if (path.empty() || path.back() == '/') return refuse("names a directory, not a file");
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
    return refuse(std::string("is ") + kind_of(st.st_mode) + "; the record goes to a regular file");
  const std::string folder = folder_of(path);
  if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return refuse("is in no existing folder");
  if (::access(folder.c_str(), W_OK | X_OK) != 0) return refuse("cannot be written: " + errno_text(folder));
  return Status::pass();
}

Status write_file_atomically(const std::string& path, std::string_view text) {
  const std::string folder = folder_of(path);
  const std::string base = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  std::string tmp_name = folder + "/." + base + ".XXXXXX";
  std::vector<char> tmpl(tmp_name.begin(), tmp_name.end());
  tmpl.push_back('\0');
  UniqueFd fd(::mkostemp(tmpl.data(), O_CLOEXEC));
  if (!fd.valid()) return Status::harness(errno_text("--json: creating a temporary file beside " + path));
  tmp_name = tmpl.data();
  bool renamed = false;
  ScopeExit remove_tmp([&] {
    if (!renamed) ::unlink(tmp_name.c_str());
  });
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::harness(errno_text("--json: writing " + path));
    done += size_t(n);
  }
  if (::fchmod(fd.get(), 0644) != 0) return Status::harness(errno_text("--json: fchmod " + tmp_name));
  if (::fsync(fd.get()) != 0) return Status::harness(errno_text("--json: fsync " + path));
  if (::close(fd.release()) != 0) return Status::harness(errno_text("--json: closing " + path));
  if (::rename(tmp_name.c_str(), path.c_str()) != 0)
    return Status::harness(errno_text("--json: renaming onto " + path));
  renamed = true;
  return Status::pass();
}

}  // namespace vmr
