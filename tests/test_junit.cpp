// The one JUnit writer of the tools: counts from the cases, every outcome in its element, everything escaped.
#include <gtest/gtest.h>

#include "junit.h"

using vmr_tools::JunitCase;
using vmr_tools::JunitSuite;

TEST(Junit, CountsEachOutcomeAndEscapes) {
  JunitSuite a{"n1",
               {{"fleet.n1.repro_x", "read[0->1]", JunitCase::Outcome::Pass, "", ""},
                {"fleet.n1.repro_x", "atomics", JunitCase::Outcome::Failure, "FAIL, expected PASS", "a < b & \"c\""},
                {"fleet.n1.repro_x", "uncached", JunitCase::Outcome::Skipped, "no GPU", ""}}};
  JunitSuite b{"n2", {{"fleet.n2", "answered", JunitCase::Outcome::Error, "no folder\nfor n2", ""}}};
  const std::string x = vmr_tools::junit_xml("vmem-repro fleet", {a, b});
  EXPECT_NE(x.find("<testsuites name=\"vmem-repro fleet\" tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\">"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<testsuite name=\"n1\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\">"), std::string::npos)
      << x;
  EXPECT_NE(x.find("<testsuite name=\"n2\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">"), std::string::npos)
      << x;
  EXPECT_NE(x.find("name=\"read[0-&gt;1]\"></testcase>"), std::string::npos) << x;
  EXPECT_NE(x.find("<failure message=\"FAIL, expected PASS\">a &lt; b &amp; &quot;c&quot;</failure>"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<skipped message=\"no GPU\"/>"), std::string::npos) << x;
  EXPECT_NE(x.find("<error message=\"no folder"), std::string::npos) << x;
  EXPECT_EQ(x.find("\nfor n2"), std::string::npos) << "a newline in a message must not reach the XML raw: " << x;
}
