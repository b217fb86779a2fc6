// The driver interface facts (amd/driver_versions.h) on a machine with no AMD GPU: every path around the ioctls. A
// device node that is missing, or that is no DRM or KFD device, gives a fact saying why (never a failure); the render
// node comes from a fake KFD topology; the version text, the amdgpu check and the #9820 threshold are decided here.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "amd/driver_versions.h"

using namespace vmr_amd;

namespace {

struct FakeKfd {
  std::string root;
  FakeKfd() {
    char dir[] = "/tmp/vmr-drm-XXXXXX";
    root = ::mkdtemp(dir) ? dir : "";
  }
  ~FakeKfd() {
    if (!root.empty()) (void)std::system(("rm -rf '" + root + "'").c_str());
  }
  void node(int n, const std::string& properties) const {
    const std::string dir = root + "/topology/nodes/" + std::to_string(n);
    (void)std::system(("mkdir -p '" + dir + "'").c_str());
    std::ofstream(dir + "/properties") << properties;
  }
};

}  // namespace

TEST(DriverVersions, NoKfdDeviceIsAFactSayingSo) {
  const std::string fact = kfd_ioctl_version("/nonexistent/kfd");
  EXPECT_EQ(fact, "unavailable (open /nonexistent/kfd: No such file or directory)");
}

TEST(DriverVersions, ANodeThatIsNoKfdSaysTheIoctlFailed) {
  // /dev/null opens read-write and answers every ioctl with ENOTTY: the path after the open.
  EXPECT_EQ(kfd_ioctl_version("/dev/null"),
            "unavailable (AMDKFD_IOC_GET_VERSION on /dev/null: Inappropriate ioctl for device)");
  const DrmVersion v = amdgpu_drm_version("/dev/null");
  EXPECT_FALSE(v.known);
  EXPECT_EQ(drm_version_fact(v), "unavailable (DRM_IOCTL_VERSION on /dev/null: Inappropriate ioctl for device)");
}

TEST(DriverVersions, NoRenderNodeIsAFactSayingSo) {
  const DrmVersion v = amdgpu_drm_version("/nonexistent/renderD128");
  EXPECT_FALSE(v.known);
  EXPECT_EQ(drm_version_fact(v), "unavailable (open /nonexistent/renderD128: No such file or directory)");
  EXPECT_EQ(drm_hang_context(v),
            "amdgpu DRM interface unavailable (open /nonexistent/renderD128: No such file or directory)");
}

TEST(DriverVersions, TheRenderNodeOfAPciLocationFromKfdTopology) {
  FakeKfd k;
  ASSERT_FALSE(k.root.empty());
  std::string why;
  EXPECT_EQ(render_node_of(k.root, 0xc100, 0, &why), "");
  EXPECT_EQ(why, "no " + k.root + "/topology");
  k.node(0, "cpu_cores_count 64\nlocation_id 0\ndomain 0\ndrm_render_minor 0\n");  // the CPU node
  k.node(1, "location_id 49408\ndomain 0\ndrm_render_minor 128\n");                // 0xc100
  k.node(2, "location_id 49408\ndomain 1\ndrm_render_minor 129\n");                // same BDF, another domain
  k.node(3, "location_id 8448\ndomain 0\n");                                       // no render minor
  EXPECT_EQ(render_node_of(k.root, 0xc100, 0, &why), "/dev/dri/renderD128");
  EXPECT_EQ(render_node_of(k.root, 0xc100, 1, &why), "/dev/dri/renderD129");
  EXPECT_EQ(render_node_of(k.root, 0x2100, 0, &why), "");
  EXPECT_EQ(why, "KFD topology node 3 has no drm_render_minor");
  EXPECT_EQ(render_node_of(k.root, 0x4200, 0, &why), "");
  EXPECT_EQ(why, "no KFD topology node at this PCI location");
}

TEST(DriverVersions, OnlyAmdgpusAnswerIsAVersion) {
  const DrmVersion amd = drm_version_from_answer("/dev/dri/renderD128", 3, 61, 0, "amdgpu");
  EXPECT_TRUE(amd.known);
  EXPECT_EQ(drm_version_fact(amd), "3.61.0");
  const DrmVersion other = drm_version_from_answer("/dev/dri/renderD129", 1, 6, 0, "i915");
  EXPECT_FALSE(other.known);
  EXPECT_EQ(drm_version_fact(other), "unavailable (/dev/dri/renderD129 is driven by \"i915\", not amdgpu)");
}

// rocm-systems#9820: GEM_VA timeline output arrived in amdgpu DRM 3.64; older interfaces hang hipMemSetAccess.
TEST(DriverVersions, TheHangContextNamesTheVersionAndNineEightTwentyBelow3_64) {
  const DrmVersion old = drm_version_from_answer("/dev/dri/renderD128", 3, 61, 0, "amdgpu");
  const DrmVersion edge = drm_version_from_answer("/dev/dri/renderD128", 3, 63, 9, "amdgpu");
  const DrmVersion fixed = drm_version_from_answer("/dev/dri/renderD128", 3, 64, 0, "amdgpu");
  const DrmVersion next = drm_version_from_answer("/dev/dri/renderD128", 4, 0, 0, "amdgpu");
  EXPECT_TRUE(older_than_timeline_va(old));
  EXPECT_TRUE(older_than_timeline_va(edge));
  EXPECT_FALSE(older_than_timeline_va(fixed));
  EXPECT_FALSE(older_than_timeline_va(next));
  EXPECT_EQ(drm_hang_context(old),
            "amdgpu DRM interface 3.61.0 (/dev/dri/renderD128), older than 3.64: from ROCm 7.14 hipMemSetAccess waits "
            "forever in DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT there (rocm-systems#9820)");
  EXPECT_EQ(drm_hang_context(fixed), "amdgpu DRM interface 3.64.0 (/dev/dri/renderD128)");
}
