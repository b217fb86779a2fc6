// Writing the --json record without clobbering anything: the path is checked before the run (a device node or a
// directory is refused up front), and the record is written to a fresh private file beside it (mkstemp: O_EXCL, so
// no planted symlink is followed), synced, then renamed over the path. Concurrent runs with one path each write
// their own temporary file: the last rename wins whole, never a mixture. Any write error is reported.
#pragma once

#include <string>
#include <string_view>

#include "harness/status.h"

namespace vmr {

// Usage status naming why `path` cannot take the record: its folder is missing or not writable, or the path exists
// and is neither a regular file nor a symlink (a directory, a device node, a FIFO).
Status check_output_path(const std::string& path);

// Writes `text` to `path` as above. Harness status naming the failing call and errno (ENOSPC, EFBIG, EIO) otherwise;
// the temporary file is removed on every path.
Status write_file_atomically(const std::string& path, std::string_view text);

}  // namespace vmr
