// The one HTML rule for outside text (tools/html.h): the five characters markup is made of become entities, so a
// record's text is text in an element and in a quoted attribute alike, on one line and valid UTF-8. (html_chromium
// opens whole pages in a real browser; these pin the rule itself.)
#include <gtest/gtest.h>

#include "html.h"

using vmr_tools::html_page;
using vmr_tools::html_text;

TEST(Html, PlainTextReadsAsItIs) {
  const std::string plain = "repro_host_shm.atomics CRASH 3/56: 0->5, 2->5 (rank 1 killed by SIGSEGV)";
  EXPECT_EQ(html_text("PASS 56/56 on node-7"), "PASS 56/56 on node-7");
  EXPECT_EQ(html_text(plain), "repro_host_shm.atomics CRASH 3/56: 0-&gt;5, 2-&gt;5 (rank 1 killed by SIGSEGV)");
}

TEST(Html, MarkupCharactersAreEntitiesInTextAndAttributes) {
  EXPECT_EQ(html_text("<script>alert(\"x\")</script>"), "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  EXPECT_EQ(html_text("a & b 'q' &amp;"), "a &amp; b &#39;q&#39; &amp;amp;");
}

TEST(Html, OneLineOfValidUtf8) {
  EXPECT_EQ(html_text("a\nb\x1b[31m"), "a\\x0ab\\x1b[31m");
  EXPECT_EQ(html_text("bad \xff byte"), "bad \xef\xbf\xbd byte");
}

TEST(Html, APageLoadsNothingAndEscapesItsTitle) {
  const std::string page = html_page("n<1>", "<p>x</p>\n");
  EXPECT_NE(page.find("<title>n&lt;1&gt;</title>"), std::string::npos);
  EXPECT_NE(page.find("content=\"default-src 'none'; style-src 'unsafe-inline'\""), std::string::npos);
  for (const char* loads : {"http:", "https:", "//", "src=", "href=", "url(", "<script", "<link"})
    EXPECT_EQ(page.find(loads), std::string::npos) << loads;
}
