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

// Root follows no symlink that sits in a folder another user can write (not root's, or group/world-writable, sticky
// /tmp included): whoever planted the link would choose the file root overwrites. The kernel's protected_symlinks
// covers only sticky world-writable folders, and is off in many containers; a link in root's own folder (a
// /dev/stdout, a link the admin made) is still written through.
bool refuses_links_in(const std::string& folder) {
  if (::geteuid() != 0) return false;
  struct stat st {};
  return ::stat(folder.c_str(), &st) != 0 || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

const char kLinkRefused[] = "is a symlink in a folder other users can write: not followed as root";

// True where `path` is there and is not a regular file: it is written through, never replaced.
bool written_in_place(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

Status cannot_write(const std::string& path, const std::string& step) {
  return Status::harness(errno_text("cannot write " + path + (step.empty() ? "" : ": " + step)));
}

Status write_all(int fd, std::string_view text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::harness("");
    done += size_t(n);
  }
  return Status::pass();
}

Status write_in_place(const std::string& path, std::string_view text) {
  // O_NOFOLLOW, not a check before: a link swapped in after the check is refused too.
  const int no_follow = refuses_links_in(folder_of(path)) ? O_NOFOLLOW : 0;
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | no_follow, 0644));
  struct stat st {};
  // (ELOOP, or EACCES where the kernel refuses O_CREAT on another's link in a sticky folder)
  if (!fd.valid() && no_follow && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    return Status::harness("cannot write " + path + ": it " + kLinkRefused);
  if (!fd.valid()) return cannot_write(path, "");
  if (!write_all(fd.get(), text).ok()) return cannot_write(path, "");
  if (::close(fd.release()) != 0) return cannot_write(path, "");
  return Status::pass();
}

Status write_atomically(const std::string& path, std::string_view text) {
  const std::string folder = folder_of(path);
  const std::string base = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  std::string tmp_name = folder + "/." + base + ".XXXXXX";
  std::vector<char> tmpl(tmp_name.begin(), tmp_name.end());
  tmpl.push_back('\0');
  UniqueFd fd(::mkostemp(tmpl.data(), O_CLOEXEC));
  if (!fd.valid()) return cannot_write(path, "creating a temporary file beside it");
  tmp_name = tmpl.data();
  bool renamed = false;
  ScopeExit remove_tmp([&] {
    if (!renamed) ::unlink(tmp_name.c_str());
  });
  if (!write_all(fd.get(), text).ok()) return cannot_write(path, "writing");
  if (::fchmod(fd.get(), 0644) != 0) return cannot_write(path, "fchmod " + tmp_name);
  if (::fsync(fd.get()) != 0) return cannot_write(path, "fsync");
  if (::close(fd.release()) != 0) return cannot_write(path, "closing");
  if (::rename(tmp_name.c_str(), path.c_str()) != 0) return cannot_write(path, "renaming " + tmp_name + " onto it");
  renamed = true;
  return Status::pass();
}

}  // namespace

Status check_output_path(const std::string& path) {
  auto refuse = [&](const std::string& why) { return Status{Verdict::Usage, "--json: '" + path + "' " + why}; };
  if (path.empty() || path.back() == '/') return refuse("names a directory, not a file");
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {  // written in place: what it leads to counts
    if (S_ISLNK(st.st_mode) && refuses_links_in(folder_of(path))) return refuse(kLinkRefused);
    struct stat target {};
    if (::stat(path.c_str(), &target) != 0) return Status::pass();  // a dangling symlink: its target is created
    if (S_ISDIR(target.st_mode))
      return refuse(S_ISLNK(st.st_mode) ? "is a symlink to a directory" : "is a directory; the record goes to a file");
    if (::access(path.c_str(), W_OK) != 0) return refuse("cannot be written: " + errno_text(path));
    return Status::pass();
  }
  const std::string folder = folder_of(path);
  if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return refuse("is in no existing folder");
  if (::access(folder.c_str(), W_OK | X_OK) != 0) return refuse("cannot be written: " + errno_text(folder));
  // The write makes its temporary file there: made and removed now, so a folder that takes none (/proc, /sys, a
  // read-only mount, where access() answers yes to root) is refused before the run, not after it as its HARNESS.
  std::string probe = folder + "/.vmr-json-probe.XXXXXX";
  UniqueFd fd(::mkostemp(probe.data(), O_CLOEXEC));
  if (!fd.valid()) return refuse("cannot be written: " + errno_text("creating a temporary file in " + folder));
  ::unlink(probe.c_str());
  return Status::pass();
}

Status write_output_file(const std::string& path, std::string_view text) {
  return written_in_place(path) ? write_in_place(path, text) : write_atomically(path, text);
}

}  // namespace vmr
