#include "amd/driver_versions.h"

#include <fcntl.h>
#include <linux/types.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fstream>

#include "harness/scope_guard.h"

// The kernel's own declarations, where this build has them, to check ours against (below).
#if __has_include(<drm/drm.h>)
#include <drm/drm.h>
#define VMR_HAVE_DRM_UAPI 1
#endif
// kfd_ioctl.h includes <drm/drm.h>, which Debian 12 does not install: both, or neither.
#if __has_include(<drm/drm.h>) && __has_include(<linux/kfd_ioctl.h>)
#include <linux/kfd_ioctl.h>  // after <linux/types.h> (above): Debian 12's uses __u32 without including it
#define VMR_HAVE_KFD_UAPI 1
#endif

namespace vmr_amd {

namespace {

// The two ioctls' argument structs, declared here because a reproducer links no libdrm and Debian 12's
// linux-libc-dev has no <drm/drm.h>. Both are fixed kernel ABI: include/uapi/drm/drm.h `struct drm_version` and
// DRM_IOCTL_VERSION = DRM_IOWR(0x00, struct drm_version) with DRM_IOCTL_BASE 'd'; include/uapi/linux/kfd_ioctl.h
// `struct kfd_ioctl_get_version_args` and AMDKFD_IOC_GET_VERSION = AMDKFD_IOR(0x01, ...) with AMDKFD_IOCTL_BASE 'K'
// (read in Debian sid's and experimental's linux-libc-dev and Debian 12's kfd_ioctl.h). Where a build has the real
// headers, the numbers are checked against them below.
struct DrmVersionArgs {
  int version_major;
  int version_minor;
  int version_patchlevel;
  size_t name_len;  // __kernel_size_t: unsigned long on Linux, as size_t
  char* name;
  size_t date_len;
  char* date;
  size_t desc_len;
  char* desc;
};
struct KfdVersionArgs {
  uint32_t major_version;
  uint32_t minor_version;
};
constexpr unsigned long kDrmIoctlVersion = _IOWR('d', 0x00, DrmVersionArgs);
constexpr unsigned long kKfdIocGetVersion = _IOR('K', 0x01, KfdVersionArgs);

}  // namespace

#ifdef VMR_HAVE_DRM_UAPI
static_assert(sizeof(drm_version) == sizeof(DrmVersionArgs) && DRM_IOCTL_VERSION == kDrmIoctlVersion,
              "struct drm_version differs from the kernel's");
#endif
#ifdef VMR_HAVE_KFD_UAPI
static_assert(sizeof(kfd_ioctl_get_version_args) == sizeof(KfdVersionArgs) &&
                  AMDKFD_IOC_GET_VERSION == kKfdIocGetVersion,
              "struct kfd_ioctl_get_version_args differs from the kernel's");
#endif

namespace {

std::string errno_clause(const std::string& what, int err) { return what + ": " + std::strerror(err); }

std::string unavailable(const std::string& why) { return "unavailable (" + why + ")"; }

// The device node opened for an ioctl and nothing else: read-write as KFD requires (kfd_open refuses a read-only
// open), close-on-exec so no rank process inherits it; -1 with *why where it cannot be opened.
int open_node(const std::string& path, std::string* why) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) *why = errno_clause("open " + path, errno);
  return fd;
}

}  // namespace

std::string kfd_ioctl_version(const std::string& kfd_device) {
  std::string why;
  const int fd = open_node(kfd_device, &why);
  if (fd < 0) return unavailable(why);
  vmr::ScopeExit close_it([&] { ::close(fd); });
  KfdVersionArgs args{};
  if (::ioctl(fd, kKfdIocGetVersion, &args) != 0)
    return unavailable(errno_clause("AMDKFD_IOC_GET_VERSION on " + kfd_device, errno));
  return std::to_string(args.major_version) + "." + std::to_string(args.minor_version);
}

std::string render_node_of(const std::string& kfd_root, uint32_t location_id, uint32_t domain, std::string* why_not) {
  for (int node = 0; node < 256; ++node) {
    std::ifstream f(kfd_root + "/topology/nodes/" + std::to_string(node) + "/properties");
    if (!f) {
      *why_not = node == 0 ? "no " + kfd_root + "/topology" : "no KFD topology node at this PCI location";
      return "";
    }
    std::string k;
    uint64_t v = 0, loc = ~0ull, dom = 0;
    int64_t minor = -1;
    while (f >> k >> v) {
      if (k == "location_id") loc = v;
      if (k == "domain") dom = v;
      if (k == "drm_render_minor") minor = int64_t(v);
    }
    if (loc != location_id || dom != domain) continue;
    if (minor <= 0) {  // libhsakmt too takes 0 for "no render node" (topology.c:708)
      *why_not = "KFD topology node " + std::to_string(node) + " has no drm_render_minor";
      return "";
    }
    return "/dev/dri/renderD" + std::to_string(minor);
  }
  *why_not = "no KFD topology node at this PCI location";
  return "";
}

DrmVersion drm_version_from_answer(const std::string& node, int major, int minor, int patch, const std::string& name) {
  DrmVersion v;
  v.node = node;
  if (name != "amdgpu") {
    v.why = node + " is driven by " + (name.empty() ? std::string("an unnamed driver") : "\"" + name + "\"") +
            ", not amdgpu";
    return v;
  }
  v.known = true;
  v.major = major, v.minor = minor, v.patch = patch;
  return v;
}

DrmVersion amdgpu_drm_version(const std::string& node) {
  DrmVersion v;
  v.node = node;
  const int fd = open_node(node, &v.why);
  if (fd < 0) return v;
  vmr::ScopeExit close_it([&] { ::close(fd); });
  char name[64] = {};
  DrmVersionArgs args{};
  args.name = name;
  args.name_len = sizeof name - 1;  // the kernel copies at most name_len bytes and may not end them with a NUL
  if (::ioctl(fd, kDrmIoctlVersion, &args) != 0) {
    v.why = errno_clause("DRM_IOCTL_VERSION on " + node, errno);
    return v;
  }
  // name_len comes back as the name's full length, which may exceed the buffer: only what was copied is read.
  const size_t copied = args.name_len < sizeof name - 1 ? args.name_len : sizeof name - 1;
  return drm_version_from_answer(node, args.version_major, args.version_minor, args.version_patchlevel,
                                 std::string(name, strnlen(name, copied)));
}

std::string drm_version_fact(const DrmVersion& v) {
  if (!v.known) return unavailable(v.why.empty() ? "not asked" : v.why);
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

bool older_than_timeline_va(const DrmVersion& v) {
  return v.known &&
         (v.major < kDrmTimelineVaMajor || (v.major == kDrmTimelineVaMajor && v.minor < kDrmTimelineVaMinor));
}

std::string drm_hang_context(const DrmVersion& v) {
  if (!v.known) return "amdgpu DRM interface " + drm_version_fact(v);
  std::string s = "amdgpu DRM interface " + drm_version_fact(v) + " (" + v.node + ")";
  if (older_than_timeline_va(v))
    s += ", older than 3.64: from ROCm 7.14 hipMemSetAccess waits forever in DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT there "
         "(rocm-systems#9820)";
  return s;
}

}  // namespace vmr_amd
