#include "harness/open_fds.h"

#include <dirent.h>

namespace vmr {

Status count_open_fds(size_t* n) {
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return Status::harness(errno_text("opendir(/proc/self/fd)"));
  size_t count = 0;
  while (dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') ++count;
  ::closedir(d);
  *n = count - 1;
  return Status::pass();
}

}  // namespace vmr
