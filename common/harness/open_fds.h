// How many fds this process holds open, from /proc/self/fd: what a leak check counts before and after (the
// reproducers' fd-leak cases, the harness's own tests).
#pragma once

#include <cstddef>

#include "harness/status.h"

namespace vmr {

// The directory's own fd is not counted. HARNESS where /proc/self/fd cannot be listed.
Status count_open_fds(size_t* n);

}  // namespace vmr
