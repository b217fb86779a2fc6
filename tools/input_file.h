// Reading a file the tools were given or found (a run record, a summary.json, the expected table, a plan, a
// manifest, a node list, a saved case list): one reader for all of them, that takes only what such a file can be. A
// FIFO would block the read forever, a device such as /dev/zero would grow the reader's memory without end, and
// opening some devices acts by itself (a watchdog, a tape): each is refused by its type before it is opened, and
// again from the open descriptor (the path may have been swapped in between). A regular file is read up to
// kMaxInputBytes.
#pragma once

#include <cstdint>
#include <string>

#include "harness/status.h"

namespace vmr_tools {

// The largest file read whole. A run record of many ranks with their stderr tails is some KiB, a triage's
// summary.json of every case and pair of a large node a few MiB: 64 MiB is far above any real one, and still a
// bound on the memory a tool takes (scripts/health-check runs it as root on a node that is in production).
constexpr int64_t kMaxInputBytes = int64_t(64) << 20;

// Reads `path` whole into `out` (a symlink is followed: the user named it). Usage status "cannot read NAMED: WHY"
// where the file is refused (not a regular file, over kMaxInputBytes): bad input, never a verdict on a node; harness
// status with errno's text where it cannot be opened or read. `named`: how the message names the file (default:
// `path`).
vmr::Status read_input_file(const std::string& path, std::string* out, const std::string& named = "");

// The same for the file `name` of the folder `dir` (a record of a results folder): a symlink is followed only to a
// file inside `dir` (one pointing out of it, or to nothing, is refused), so a folder gathered from a node can make
// the reader read nothing of this machine's.
vmr::Status read_folder_file(const std::string& dir, const std::string& name, std::string* out);

// `path` with every symlink, `.` and `..` resolved (realpath(3)); "" where it cannot be resolved (not there).
std::string real_path(const std::string& path);

}  // namespace vmr_tools
