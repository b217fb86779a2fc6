// gpu/legacy_ipc_memory.h over a stand-in backend that counts its runtime calls: the plain allocation is the one maker
// of the token and frees what it allocated once, a peer's mapping closes what it opened once, neither does its job
// twice, and the IPC handle crosses the control channel as hex text unchanged (a garbled text is HARNESS).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/legacy_ipc_memory.h"

using namespace vmr_gpu;

namespace {
struct Handle {
  char reserved[64];
};
struct CountingBackend {
  using PlainAllocator = PlainMemory<CountingBackend>;
  using IpcHandle = Handle;
  static inline char memory[256];
  static inline bool fail = false;
  static inline std::vector<void*> freed, closed;
  static inline const Handle* opened = nullptr;
  static vmr::Status plain_malloc(void** p, size_t) {
    if (fail) return vmr::Status::fail("fakeMalloc returned fakeErrorMemoryAllocation");
    *p = memory;
    return vmr::Status::pass();
  }
  static void plain_free(void* p) { freed.push_back(p); }
  static vmr::Status ipc_open(void** p, const Handle& h) {
    if (fail) return vmr::Status::fail("fakeIpcOpenMemHandle returned fakeErrorInvalidValue");
    opened = &h;
    *p = memory + 64;
    return vmr::Status::pass();
  }
  static void ipc_close(void* p) { closed.push_back(p); }
  static void reset() {
    fail = false;
    freed.clear();
    closed.clear();
    opened = nullptr;
  }
};
}  // namespace

TEST(LegacyIpcMemory, ThePlainAllocationMakesTheTokenAndFreesItOnce) {
  CountingBackend::reset();
  {
    PlainMemory<CountingBackend> plain;
    EXPECT_FALSE(plain.valid());
    EXPECT_EQ(plain.span().words, 0u);
    ASSERT_TRUE(plain.allocate(128).ok());
    ASSERT_TRUE(plain.valid());
    EXPECT_EQ(plain.allocation().ptr(), CountingBackend::memory);
    EXPECT_EQ(plain.allocation().bytes(), 128u);
    EXPECT_EQ(plain.span().words, 128 / sizeof(u64));
    const vmr::Status twice = plain.allocate(64);
    EXPECT_EQ(twice.verdict, vmr::Verdict::Harness) << twice.detail;
    EXPECT_EQ(plain.allocation().bytes(), 128u) << "a second allocate replaced the first";
    EXPECT_TRUE(CountingBackend::freed.empty());
  }
  EXPECT_EQ(CountingBackend::freed, std::vector<void*>{CountingBackend::memory});
}

TEST(LegacyIpcMemory, AFailedAllocationIsTheRuntimesAnswerAndNothingToFree) {
  CountingBackend::reset();
  CountingBackend::fail = true;
  {
    PlainMemory<CountingBackend> plain;
    const vmr::Status s = plain.allocate(128);
    EXPECT_EQ(s.verdict, vmr::Verdict::Fail);
    EXPECT_EQ(s.detail, "fakeMalloc returned fakeErrorMemoryAllocation");
    EXPECT_FALSE(plain.valid());
  }
  EXPECT_TRUE(CountingBackend::freed.empty());
}

TEST(LegacyIpcMemory, APeersMappingClosesWhatItOpenedOnce) {
  CountingBackend::reset();
  const Handle h{};
  {
    IpcMapping<CountingBackend> peer;
    EXPECT_EQ(peer.span().words, 0u);
    ASSERT_TRUE(peer.open(h, 64).ok());
    EXPECT_EQ(CountingBackend::opened, &h);
    EXPECT_EQ(peer.span().p, reinterpret_cast<u64*>(CountingBackend::memory + 64));
    EXPECT_EQ(peer.span().words, 64 / sizeof(u64));
    EXPECT_EQ(peer.open(h, 64).verdict, vmr::Verdict::Harness);
    EXPECT_TRUE(CountingBackend::closed.empty());
  }
  EXPECT_EQ(CountingBackend::closed, std::vector<void*>{CountingBackend::memory + 64});
  CountingBackend::reset();
  CountingBackend::fail = true;
  {
    IpcMapping<CountingBackend> peer;
    EXPECT_EQ(peer.open(h, 64).verdict, vmr::Verdict::Fail);
  }
  EXPECT_TRUE(CountingBackend::closed.empty()) << "a handle that did not open was closed";
}

TEST(LegacyIpcMemory, TheHandleCrossesAsHexTextUnchanged) {
  Handle h{};
  for (size_t i = 0; i < sizeof h.reserved; ++i) h.reserved[i] = static_cast<char>(i * 37 + 200);
  const std::string text = handle_text(h);
  EXPECT_EQ(text.size(), 128u);
  EXPECT_EQ(text.substr(0, 6), "c8ed12") << text;  // 200, 237, 274 % 256: each byte as two digits, high bytes too
  Handle back{};
  ASSERT_TRUE(handle_from_text(text, &back).ok());
  EXPECT_EQ(std::string(back.reserved, sizeof back.reserved), std::string(h.reserved, sizeof h.reserved));
}

TEST(LegacyIpcMemory, AGarbledHandleTextIsTheSuitesBug) {
  Handle h{};
  const std::string good(128, '0');
  const vmr::Status short_text = handle_from_text(good.substr(1), &h);
  EXPECT_EQ(short_text.verdict, vmr::Verdict::Harness);
  EXPECT_EQ(short_text.detail, "suite bug: an IPC handle of 127 hex digits, expected 128");
  const vmr::Status bad_digit = handle_from_text(good.substr(0, 41) + "g" + good.substr(42), &h);
  EXPECT_EQ(bad_digit.verdict, vmr::Verdict::Harness);
  EXPECT_EQ(bad_digit.detail, "suite bug: an IPC handle with a non-hex digit at 40");
  EXPECT_EQ(handle_from_text(good.substr(0, 10) + "A" + good.substr(11), &h).verdict, vmr::Verdict::Harness);
}
