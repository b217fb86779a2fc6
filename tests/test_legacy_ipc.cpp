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

// legacy_ipc_export asks first and makes the IPC call only on memory the answers call plain: a stand-in backend
// counts its IPC calls.
namespace {
class FakeAllocator;
struct FakeBackend {
  using PlainAllocator = FakeAllocator;
  using IpcHandle = int;
  static constexpr const char* kIpcExportCall = "fakeIpcGetMemHandle";
  static IpcPointerFacts answers;
  static const void* asked;
  static IpcPointerFacts ipc_pointer_facts(const void* p) {
    asked = p;
    return answers;
  }
  static int calls;

 private:
  template <class B>
  friend vmr::Status vmr_gpu::legacy_ipc_export(const PlainAllocation<B>&, typename B::IpcHandle*);
  static vmr::Status ipc_get_handle(void*, int* handle) {
    ++calls;
    *handle = 42;
    return vmr::Status::pass();
  }
};
IpcPointerFacts FakeBackend::answers;
const void* FakeBackend::asked = nullptr;
int FakeBackend::calls = 0;
class FakeAllocator {
 public:
  static PlainAllocation<FakeBackend> make(void* p, size_t n) { return PlainAllocation<FakeBackend>(p, n); }
};
}  // namespace

TEST(LegacyIpcGuard, TheExportAsksFirstAndCallsOnlyOnPlainMemory) {
  static char memory[64];
  const PlainAllocation<FakeBackend> token = FakeAllocator::make(memory, sizeof memory);
  int handle = 0;
  FakeBackend::calls = 0;
  FakeBackend::answers = facts(VmemAnswer::IsVmem, IpcCapable::Yes);
  const vmr::Status refused = legacy_ipc_export(token, &handle);
  EXPECT_EQ(refused.verdict, vmr::Verdict::Harness);
  EXPECT_NE(refused.detail.find("fakeIpcGetMemHandle refused before the call"), std::string::npos) << refused.detail;
  EXPECT_EQ(FakeBackend::asked, memory) << "the runtime was asked about the token's pointer";
  EXPECT_EQ(FakeBackend::calls, 0) << "the IPC call was made on a VMem address";
  EXPECT_EQ(handle, 0);
  FakeBackend::answers = facts(VmemAnswer::NotVmem, IpcCapable::Yes);
  EXPECT_TRUE(legacy_ipc_export(token, &handle).ok());
  EXPECT_EQ(FakeBackend::calls, 1);
  EXPECT_EQ(handle, 42);
}
