// tools/input_file.h, the one reader of every file the tools are given or find: a regular file whole; a FIFO, a
// device, a folder, a symlink out of the folder being read and a file over the cap refused (usage status: bad
// input) before anything is read, naming the file and why; a file that cannot be opened a harness status with
// errno's text; no descriptor left open on any path.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "fd_count.h"
#include "input_file.h"

using namespace vmr;
using namespace vmr_tools;

namespace {

// A fresh folder of its own for each test (removed with what it holds at the end).
struct Scratch {
  std::string dir;
  Scratch() {
    char tmpl[] = "/tmp/vmr-input-file-XXXXXX";
    dir = ::mkdtemp(tmpl);
  }
  ~Scratch() {
    const std::string rm = "rm -rf '" + dir + "'";
    (void)std::system(rm.c_str());
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  }
};

}  // namespace

TEST(InputFile, ARegularFileIsReadWholeThroughASymlinkTheUserNamed) {
  Scratch s;
  const std::string path = s.write("a.json", "{\"x\": 1}\n");
  ASSERT_EQ(::symlink(path.c_str(), (s.dir + "/named").c_str()), 0);
  std::string text;
  Status st = read_input_file(s.dir + "/named", &text);
  ASSERT_TRUE(st.ok()) << st.detail;
  EXPECT_EQ(text, "{\"x\": 1}\n");
}

TEST(InputFile, AFifoADeviceAndAFolderAreRefusedWithoutBlockingOrAnFdLeft) {
  Scratch s;
  const std::string fifo = s.dir + "/zz.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const size_t fds = open_fd_count();
  std::string text = "kept";
  Status st = read_input_file(fifo, &text);
  EXPECT_EQ(st.verdict, Verdict::Usage);
  EXPECT_EQ(st.detail, "cannot read " + fifo + ": it is a FIFO, not a regular file");
  st = read_input_file("/dev/zero", &text, "--table /dev/zero");
  EXPECT_EQ(st.verdict, Verdict::Usage);
  EXPECT_EQ(st.detail, "cannot read --table /dev/zero: it is a character device, not a regular file");
  st = read_input_file(s.dir, &text);
  EXPECT_EQ(st.detail, "cannot read " + s.dir + ": it is a folder, not a regular file");
  EXPECT_EQ(text, "kept");  // nothing read into it
  EXPECT_EQ(open_fd_count(), fds);
}

TEST(InputFile, AFileOverTheCapIsRefusedAndOneAtTheCapIsRead) {
  Scratch s;
  const std::string at_cap = s.dir + "/at-cap.json", over = s.dir + "/over.json";
  ASSERT_EQ(::truncate(s.write("at-cap.json", "").c_str(), kMaxInputBytes), 0);  // sparse: no disk used
  ASSERT_EQ(::truncate(s.write("over.json", "").c_str(), kMaxInputBytes + 1), 0);
  std::string text;
  Status st = read_input_file(over, &text);
  EXPECT_EQ(st.verdict, Verdict::Usage);
  EXPECT_EQ(st.detail, "cannot read " + over + ": it holds more than the 64 MiB an input file may");
  st = read_input_file(at_cap, &text);
  ASSERT_TRUE(st.ok()) << st.detail;
  EXPECT_EQ(int64_t(text.size()), kMaxInputBytes);
}

TEST(InputFile, AFileThatCannotBeOpenedIsAHarnessErrorWithErrnosText) {
  std::string text;
  Status st = read_input_file("/nonexistent/x.json", &text);
  EXPECT_EQ(st.verdict, Verdict::Harness);
  EXPECT_EQ(st.detail, "cannot read /nonexistent/x.json: No such file or directory");
}

TEST(InputFile, AFolderFileIsReadThroughASymlinkOnlyInsideItsFolder) {
  Scratch s;
  ASSERT_EQ(::mkdir((s.dir + "/results").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((s.dir + "/results/kept").c_str(), 0755), 0);
  s.write("results/kept/a", "inside");
  s.write("outside.json", "outside");
  ASSERT_EQ(::symlink("kept/a", (s.dir + "/results/in.json").c_str()), 0);
  ASSERT_EQ(::symlink("../outside.json", (s.dir + "/results/out.json").c_str()), 0);
  ASSERT_EQ(::symlink("/dev/zero", (s.dir + "/results/zero.json").c_str()), 0);
  ASSERT_EQ(::symlink("gone", (s.dir + "/results/dangling.json").c_str()), 0);
  // A sibling whose name begins with the folder's ("results2") is outside it all the same.
  ASSERT_EQ(::mkdir((s.dir + "/results2").c_str(), 0755), 0);
  s.write("results2/b.json", "sibling");
  ASSERT_EQ(::symlink("../results2/b.json", (s.dir + "/results/sibling.json").c_str()), 0);
  const std::string results = s.dir + "/results";
  std::string text;
  Status st = read_folder_file(results, "in.json", &text);
  ASSERT_TRUE(st.ok()) << st.detail;
  EXPECT_EQ(text, "inside");
  st = read_folder_file(results, "out.json", &text);
  EXPECT_EQ(st.verdict, Verdict::Usage);
  EXPECT_EQ(st.detail, "cannot read " + results + "/out.json: it is a symlink to " + real_path(s.dir) +
                           "/outside.json, outside the folder " + results);
  st = read_folder_file(results, "zero.json", &text);
  EXPECT_EQ(st.detail,
            "cannot read " + results + "/zero.json: it is a symlink to /dev/zero, outside the folder " + results);
  st = read_folder_file(results, "sibling.json", &text);
  EXPECT_EQ(st.verdict, Verdict::Usage) << st.detail;
  EXPECT_NE(st.detail.find(", outside the folder " + results), std::string::npos) << st.detail;
  st = read_folder_file(results, "dangling.json", &text);
  EXPECT_EQ(st.verdict, Verdict::Usage);
  EXPECT_EQ(st.detail.rfind("cannot read " + results + "/dangling.json: it is a symlink that leads nowhere", 0), 0u)
      << st.detail;
  EXPECT_EQ(text, "inside");
}

TEST(InputFile, AFolderFileThatIsAFifoIsRefusedAndAPlainOneRead) {
  Scratch s;
  ASSERT_EQ(::mkfifo((s.dir + "/zz.json").c_str(), 0644), 0);
  s.write("a.json", "plain");
  std::string text;
  Status st = read_folder_file(s.dir, "zz.json", &text);
  EXPECT_EQ(st.verdict, Verdict::Usage);
  EXPECT_EQ(st.detail, "cannot read " + s.dir + "/zz.json: it is a FIFO, not a regular file");
  st = read_folder_file(s.dir, "a.json", &text);
  ASSERT_TRUE(st.ok()) << st.detail;
  EXPECT_EQ(text, "plain");
}
