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

// What XML 1.0 refuses never reaches the file, whatever a record's detail or a node's name holds: U+FFFE and U+FFFF
// (well-formed UTF-8, no XML characters), C0 controls, a UTF-8-encoded surrogate, invalid bytes. Each is a visible
// stand-in (\xNN, U+FFFD) and the text around it stays; tab, LF and CR too (\x09 ...): a message is one line.
TEST(Junit, NoCharacterXmlRefusesReachesTheFile) {
  const std::string fffe = "\xef\xbf\xbe", ffff = "\xef\xbf\xbf", fffd = "\xef\xbf\xbd";
  const std::string hostile = "a" + fffe + "b" + ffff + "c\x01" + "d\xed\xa0\x80" + "e\xff" + "f\x1b" + "g";
  JunitSuite s{"node" + ffff, {{"fleet.n" + fffe, "read", JunitCase::Outcome::Failure, hostile, hostile}}};
  const std::string x = vmr_tools::junit_xml("vmem-repro", {s});
  const std::string want = "a" + fffd + "b" + fffd + "c\\x01d" + fffd + fffd + fffd + "e" + fffd + "f\\x1bg";
  EXPECT_NE(x.find("<failure message=\"" + want + "\">" + want + "</failure>"), std::string::npos) << x;
  EXPECT_NE(x.find("<testsuite name=\"node" + fffd + "\""), std::string::npos) << x;
  EXPECT_NE(x.find("classname=\"fleet.n" + fffd + "\""), std::string::npos) << x;
  EXPECT_EQ(x.find(fffe), std::string::npos) << x;
  EXPECT_EQ(x.find(ffff), std::string::npos) << x;
  // U+FFFD itself and the last characters before the gap (U+D7FF) and after it (U+E000) are XML characters: kept.
  const std::string kept = fffd + "\xed\x9f\xbf\xee\x80\x80";
  EXPECT_NE(vmr_tools::junit_xml(kept, {}).find("name=\"" + kept + "\""), std::string::npos);
}
