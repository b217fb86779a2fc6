#include <gtest/gtest.h>

#include "harness/expected.h"

using namespace vmr;

namespace {
const char* kHeader =
    "# title\n\n| binary | case | condition | verdict | labels | evidence |\n| --- | --- | --- | --- | --- | --- |\n";
}

TEST(Expected, BuiltInTableParses) {
  std::vector<ExpectedRow> rows;
  Status s = parse_expected_table(kExpectedTable, &rows);
  ASSERT_TRUE(s.ok()) << s.detail;
  EXPECT_FALSE(rows.empty());
  for (const auto& r : rows) EXPECT_FALSE(r.evidence.empty());
}

TEST(Expected, ConditionalRowsAreTriedInOrder) {
  std::string t = std::string(kHeader) +
                  "| repro_x | atomics | hip_runtime>=7.2.0 & fine_pool=yes | PASS | amd | fixed in PR #4476 |\n"
                  "| repro_x | atomics | * | CRASH | amd,iris#418 | seed 000 |\n";
  std::vector<ExpectedRow> rows;
  ASSERT_TRUE(parse_expected_table(t, &rows).ok());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].labels, (std::vector<std::string>{"amd", "iris#418"}));
  EXPECT_EQ(find_expected(rows, "repro_x", "atomics", {{"hip_runtime", "7.10.1"}, {"fine_pool", "yes"}})->verdict,
            Verdict::Pass);
  EXPECT_EQ(find_expected(rows, "repro_x", "atomics", {{"hip_runtime", "7.1.9"}, {"fine_pool", "yes"}})->verdict,
            Verdict::Crash);
  EXPECT_EQ(find_expected(rows, "repro_x", "atomics", {{"fine_pool", "yes"}})->verdict, Verdict::Crash);
  EXPECT_EQ(find_expected(rows, "repro_x", "read", {}), nullptr);
  EXPECT_TRUE(is_known_crash(rows, "repro_x", "atomics"));
  EXPECT_FALSE(is_known_crash(rows, "repro_x", "read"));
}

TEST(Expected, MalformedTablesAreRejectedWithTheirLine) {
  const std::vector<std::string> bad_rows = {
      "| repro_x | read | * | MAYBE | - | e |\n",                                            // verdict
      "| repro_x | read | * | USAGE | - | e |\n",                                            // not an expected verdict
      "| repro_x | read | * | PASS | - | - |\n",                                             // no evidence
      "| repro_x | read | * | PASS | - |\n",                                                 // cells
      "| repro_x | Read | * | PASS | - | e |\n",                                             // case name
      "| repro_x | read | hip>> | PASS | - | e |\n",                                         // condition
      "| repro_x | read | hip=7 | PASS | - | e |\n",                                         // no '*' row
      "| repro_x | read | * | PASS | - | e |\n| repro_x | read | hip=7 | FAIL | - | e |\n",  // row after '*'
  };
  for (const auto& b : bad_rows) {
    std::vector<ExpectedRow> rows;
    Status s = parse_expected_table(std::string(kHeader) + b, &rows);
    EXPECT_FALSE(s.ok()) << b;
    EXPECT_NE(s.detail.find("line "), std::string::npos) << s.detail;
  }
  std::vector<ExpectedRow> rows;
  EXPECT_FALSE(parse_expected_table("no table here\n", &rows).ok());
  EXPECT_FALSE(parse_expected_table("| a | b | c | d | e | f |\n| - | - | - | - | - | - |\n", &rows).ok());
}

TEST(Expected, VersionComparison) {
  int c = 0;
  ASSERT_TRUE(compare_versions("7.0.10", "7.0.2", &c));
  EXPECT_EQ(c, 1);
  ASSERT_TRUE(compare_versions("6.2", "6.2.0", &c));
  EXPECT_EQ(c, 0);
  EXPECT_FALSE(compare_versions("gfx942", "7", &c));
  EXPECT_FALSE(condition_holds("arch>=gfx90a", {{"arch", "gfx942"}}));
  EXPECT_TRUE(condition_holds("arch=gfx942", {{"arch", "gfx942"}}));
  EXPECT_TRUE(condition_holds("arch!=gfx90a", {{"arch", "gfx942"}}));
}
