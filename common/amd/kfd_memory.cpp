#include "amd/kfd_memory.h"

#include <dirent.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <vector>

namespace vmr_amd {

namespace {

// The whole of a one-number file as an unsigned value; false where unreadable or not only digits (and blanks).
bool read_number(const std::string& path, unsigned long long* value) {
  std::ifstream f(path);
  std::string text;
  if (!f || !std::getline(f, text)) return false;
  size_t end = text.find_last_not_of(" \t\r");
  if (end == std::string::npos) return false;
  text.resize(end + 1);
  if (text.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  *value = std::strtoull(text.c_str(), nullptr, 10);
  return errno == 0;
}

// The PPid: line of <proc_root>/<pid>/status; -1 where unreadable (the process left, or another PID namespace).
long parent_of(const std::string& proc_root, const std::string& pid) {
  std::ifstream f(proc_root + "/" + pid + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("PPid:", 0) == 0) return std::strtol(line.c_str() + 5, nullptr, 10);
  return -1;
}

}  // namespace

vmr_gpu::ProcessMemorySource kfd_source() {
  return {"KFD per-process VRAM (/sys/class/kfd/kfd/proc/<pid>/vram_<gpu_id>)", false};
}

bool kfd_gpu_id(const std::string& kfd_root, uint32_t node, uint32_t* gpu_id, std::string* why_not) {
  const std::string path = kfd_root + "/topology/nodes/" + std::to_string(node) + "/gpu_id";
  unsigned long long v = 0;
  if (!read_number(path, &v) || v == 0 || v > 0xffffffffull) {
    *why_not = "no KFD gpu_id in " + path;
    return false;
  }
  *gpu_id = uint32_t(v);
  return true;
}

vmr_gpu::MemoryReading kfd_process_vram(const std::string& kfd_root, long pid, uint32_t gpu_id) {
  const std::string path = kfd_root + "/proc/" + std::to_string(pid) + "/vram_" + std::to_string(gpu_id);
  unsigned long long v = 0;
  if (!read_number(path, &v))
    return vmr_gpu::MemoryReading::unknown(path +
                                           " is not readable as a number (a kernel without per-process VRAM, or a "
                                           "PID namespace: KFD names processes by host pid)");
  return vmr_gpu::MemoryReading::of(v);
}

std::string kfd_other_processes(const std::string& kfd_root, const std::string& proc_root, uint32_t gpu_id, long self,
                                long parent) {
  const std::string dir = kfd_root + "/proc";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return "who else holds the GPU is unknown (" + vmr::errno_text("opendir " + dir) + ")";
  std::vector<std::string> others;
  size_t count = 0;
  while (dirent* e = ::readdir(d)) {
    const std::string pid = e->d_name;
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (std::strtol(pid.c_str(), nullptr, 10) == self) continue;
    unsigned long long vram = 0;
    if (!read_number(dir + "/" + pid + "/vram_" + std::to_string(gpu_id), &vram)) continue;  // not on this GPU
    if (parent > 1 && parent_of(proc_root, pid) == parent) continue;                         // a rank of this run
    if (++count <= 3) others.push_back("pid " + pid + " (" + std::to_string(vram >> 20) + " MiB)");
  }
  ::closedir(d);
  if (count == 0) return "";
  std::string text = std::to_string(count) + " other KFD process" + (count > 1 ? "es" : "") + " on this GPU: ";
  for (size_t i = 0; i < others.size(); ++i) text += (i ? ", " : "") + others[i];
  return count > others.size() ? text + ", ..." : text;
}

}  // namespace vmr_amd
