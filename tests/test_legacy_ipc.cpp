// The run-time lock of gpu/legacy_ipc.h: a legacy IPC export goes ahead only when no answer of the runtime says VMem
// or not capable and at least one positively says plain memory; every refusal is HARNESS naming both answers.
#include <gtest/gtest.h>

#include "gpu/legacy_ipc.h"

using namespace vmr_gpu;

namespace {
IpcPointerFacts facts(VmemAnswer vmem, IpcCapable capable) {
  return {vmem, "retain said " + std::to_string(int(vmem)), capable, "capable said " + std::to_string(int(capable))};
}
}  // namespace

TEST(LegacyIpcGuard, PlainMemoryIsExported) {
  EXPECT_TRUE(legacy_ipc_export_check(facts(VmemAnswer::NotVmem, IpcCapable::Yes), "cudaIpcGetMemHandle").ok());
  // One positive answer is enough where the other query cannot answer (an older runtime without the attribute).
  EXPECT_TRUE(legacy_ipc_export_check(facts(VmemAnswer::NotVmem, IpcCapable::Unknown), "x").ok());
  EXPECT_TRUE(legacy_ipc_export_check(facts(VmemAnswer::Unknown, IpcCapable::Yes), "x").ok());
}

TEST(LegacyIpcGuard, AVmemAddressIsRefusedWhateverTheAttributeSays) {
  for (IpcCapable capable : {IpcCapable::Yes, IpcCapable::No, IpcCapable::Unknown}) {
    const vmr::Status s = legacy_ipc_export_check(facts(VmemAnswer::IsVmem, capable), "hipIpcGetMemHandle");
    EXPECT_EQ(s.verdict, vmr::Verdict::Harness);
    EXPECT_NE(s.detail.find("hipIpcGetMemHandle refused before the call: it is a VMem mapping"), std::string::npos)
        << s.detail;
    EXPECT_NE(s.detail.find("retain said 0; capable said"), std::string::npos) << "both answers named: " << s.detail;
    EXPECT_NE(s.detail.find("rocm-systems#4263"), std::string::npos) << s.detail;
  }
}

TEST(LegacyIpcGuard, NotCapableOrNoAnswerIsRefused) {
  const vmr::Status no = legacy_ipc_export_check(facts(VmemAnswer::NotVmem, IpcCapable::No), "cudaIpcGetMemHandle");
  EXPECT_EQ(no.verdict, vmr::Verdict::Harness);
  EXPECT_NE(no.detail.find("not legacy-IPC capable"), std::string::npos) << no.detail;
  const vmr::Status unknown = legacy_ipc_export_check(facts(VmemAnswer::Unknown, IpcCapable::Unknown), "x");
  EXPECT_EQ(unknown.verdict, vmr::Verdict::Harness);
  EXPECT_NE(unknown.detail.find("could not say it is plain memory"), std::string::npos) << unknown.detail;
}
