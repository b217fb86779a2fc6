#pragma once

#include <dirent.h>

#include <cstddef>

// Open fds of this process, from /proc/self/fd (the directory's own fd excluded).
inline size_t open_fd_count() {
  size_t n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
    return n - 1;
  }
  return 0;
}
