// Writing a file the suite was asked for (a binary's --json record, every tool's --markdown, --junit, --prom, ...):
// one writer for all of them. A regular file (or a path not there yet) is written to a fresh private file beside it
// (mkstemp: O_EXCL, so no planted symlink is followed), synced, then renamed over the path: concurrent runs with one
// path each write their own temporary file, the last rename wins whole, a reader never sees half a file, and a write
// that fails leaves the old file whole. Anything else that is there (a symlink, a device such as /dev/stdout or
// /dev/full, a FIFO) cannot be replaced by a rename without destroying it: it is written in place, through it. Any
// write error is reported. As root, a symlink in a folder another user can write (not root's, or group- or
// world-writable: /tmp too) is never followed (O_NOFOLLOW): it is refused, as a usage error before a run and as a
// write error after.
#pragma once

#include <string>
#include <string_view>

#include "harness/status.h"

namespace vmr {

// A binary's check before its run: usage status naming why `path` cannot take the --json record: it names a
// directory (or a symlink to one), its folder is missing, not writable or takes no file (a temporary one is made and
// removed there: /proc, a read-only mount), or it is a node (a device, a FIFO, a symlink's target) that cannot be
// opened for writing.
Status check_output_path(const std::string& path);

// Writes `text` to `path` as above. Harness status "cannot write PATH: ..." naming the failing step and errno
// (ENOSPC, EFBIG, EIO) otherwise; the temporary file is removed on every path.
Status write_output_file(const std::string& path, std::string_view text);

}  // namespace vmr
