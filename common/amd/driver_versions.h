// The kernel driver's interface versions on an AMD node, asked of the device nodes themselves: KFD's ioctl version
// (AMDKFD_IOC_GET_VERSION on /dev/kfd) and the amdgpu DRM interface version of the GPU's render node
// (DRM_IOCTL_VERSION on /dev/dri/renderD<minor>). New ROCm userspace on an older driver is what rocm-systems#9820
// is: from 7.14, hipMemSetAccess waits forever on an amdgpu DRM interface older than 3.64, so a HANG names it.
// Plain C++ with no HIP, HSA or libdrm header (a reproducer's runtime deps are the GPU runtimes and libc): the
// ioctls' fixed-ABI structs are declared in driver_versions.cpp; paths are parameters, so the unit tests ask a
// missing node, /dev/null and a fake KFD topology.
#pragma once

#include <cstdint>
#include <string>

namespace vmr_amd {

constexpr const char* kKfdDevice = "/dev/kfd";

// The fact `kfd_ioctl_version`: "1.17", or "unavailable (<why>)" where /dev/kfd cannot be opened or asked (no
// amdgpu module, no permission: the usual reason HIP sees no device).
std::string kfd_ioctl_version(const std::string& kfd_device = kKfdDevice);

struct DrmVersion {
  bool known = false;
  int major = 0, minor = 0, patch = 0;
  std::string node;  // the render node asked, empty where none was found
  std::string why;   // where !known: why not, one clause
};

// The render node of the GPU at this PCI location: KFD's topology node whose location_id and domain match (the
// same node kfd_property reads) carries drm_render_minor, which libhsakmt opens as /dev/dri/renderD<minor>
// (rocm-systems 1b1610fc projects/rocr-runtime/libhsakmt/src/topology.c:703-714, fmm.c:2314). Empty with *why_not
// where no node matches or the minor is absent.
std::string render_node_of(const std::string& kfd_root, uint32_t location_id, uint32_t domain, std::string* why_not);

// DRM_IOCTL_VERSION on `node`. Known only where the driver answering is amdgpu: another driver's version is no
// answer about amdgpu.
DrmVersion amdgpu_drm_version(const std::string& node);
// The same from the ioctl's answer (what amdgpu_drm_version does after the ioctl; the tests call it directly).
DrmVersion drm_version_from_answer(const std::string& node, int major, int minor, int patch, const std::string& name);

// The fact `amdgpu_drm_version`: "3.61.0", or "unavailable (<why>)"; the expected table's conditions compare it as
// a version, and an unavailable one matches no ordering term.
std::string drm_version_fact(const DrmVersion& v);

// rocm-systems#9820 (open, 2026-08; pytorch#192259): GEM_VA timeline output arrived in amdgpu DRM 3.64.
constexpr int kDrmTimelineVaMajor = 3, kDrmTimelineVaMinor = 64;
bool older_than_timeline_va(const DrmVersion& v);

// The fact `hang_context` (harness/rank_record.h: a HANG's reason quotes it): the DRM interface the rank ran on, and
// where it is older than 3.64 what #9820 says happens there.
std::string drm_hang_context(const DrmVersion& v);

}  // namespace vmr_amd
