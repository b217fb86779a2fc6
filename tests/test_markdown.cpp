// The one Markdown rule for outside text (tools/markdown.h): each construct a record's text could start is escaped,
// plain text stays as it reads, and a quoted block's fence outlasts any line inside it. (markdown_hostile renders
// whole reports with GitHub's cmark-gfm; these pin the rule itself.)
#include <gtest/gtest.h>

#include "markdown.h"

using vmr_tools::md_code;
using vmr_tools::md_fence;
using vmr_tools::md_text;

namespace {
const std::string kJoiner = "\xe2\x81\xa0";  // U+2060 WORD JOINER
}

TEST(Markdown, PlainTextReadsAsItIs) {
  const std::string plain = "repro_host_shm.atomics on GPU pair 0-1: rank 1 (pid 7) killed by SIGSEGV, 3/4 (a-b)";
  EXPECT_EQ(md_text(plain), plain);
}

TEST(Markdown, EveryInlineConstructIsEscaped) {
  EXPECT_EQ(md_text("<img src=x onerror=alert(1)>"), "\\<img src=x onerror=alert(1)\\>");
  EXPECT_EQ(md_text("[a](http://e) <http://e>"), "\\[a\\](http\\://e) \\<http\\://e\\>");
  EXPECT_EQ(md_text("see www.e.com or WWW.e.com"), "see www\\.e.com or WWW\\.e.com");
  EXPECT_EQ(md_text("*em* _u_ ~~s~~ a_b"), "\\*em\\* \\_u\\_ \\~\\~s\\~\\~ a_b");
  EXPECT_EQ(md_text("`code` $m$ &amp; a|b c\\d"), "\\`code\\` \\$m\\$ \\&amp; a\\|b c\\\\d");
  EXPECT_EQ(md_text("x --> y"), "x --\\> y");  // cannot end the HTML comment it stands in
}

TEST(Markdown, GitHubReferencesGetAWordJoiner) {
  EXPECT_EQ(md_text("@alice a@b.com"), "@" + kJoiner + "alice a@" + kJoiner + "b.com");
  EXPECT_EQ(md_text("see #12"), "see \\#" + kJoiner + "12");
}

TEST(Markdown, NothingStartsABlockWhereTheTextStartsALine) {
  EXPECT_EQ(md_text("# x"), "\\#" + kJoiner + " x");
  EXPECT_EQ(md_text("- item"), "\\- item");
  EXPECT_EQ(md_text("+ item"), "\\+ item");
  EXPECT_EQ(md_text("==="), "\\===");
  EXPECT_EQ(md_text("> quote"), "\\> quote");
  EXPECT_EQ(md_text("1. one"), "1\\. one");
  EXPECT_EQ(md_text("12) twelve"), "12\\) twelve");
  EXPECT_EQ(md_text("    code "), "&#32;   code&#32;");
  EXPECT_EQ(md_text("-"), "\\-");
  EXPECT_EQ(md_text("- - -"), "\\- - -");
  EXPECT_EQ(md_text("a - b + c = 1. d"), "a - b + c = 1. d");  // only a line's start makes them blocks
  EXPECT_EQ(md_text("1.5 s"), "1.5 s");                        // and only a marker a space or the end follows
  EXPECT_EQ(md_text("-1 or -x"), "-1 or -x");
}

TEST(Markdown, OneLineAndValidUtf8) {
  EXPECT_EQ(md_text("x\n# y\r\n```"), "x\\\\x0a\\#" + kJoiner + " y\\\\x0d\\\\x0a\\`\\`\\`");
  EXPECT_EQ(md_text("caf\xff"), "caf\xef\xbf\xbd");
}

TEST(Markdown, AFenceOutlastsEveryLineInside) {
  EXPECT_EQ(md_fence("a\n```\n~~~\nb"), "````\na\n```\n~~~\nb\n````\n");
  EXPECT_EQ(md_fence("x `````` y\n"), "```````\nx `````` y\n```````\n");
  EXPECT_EQ(md_fence("plain\n", "sh"), "```sh\nplain\n```\n");
  EXPECT_EQ(md_fence(""), "```\n```\n");
}

TEST(Markdown, AFenceKeepsTabsButNoOtherControlByte) {
  EXPECT_EQ(md_fence("a\tb\r\x1b[31m\n"), "```\na\tb\\x0d\\x1b[31m\n```\n");
}

TEST(Markdown, AFenceTakesOnlyAOneWordLanguage) {
  EXPECT_EQ(md_fence("x", "hip"), "```hip\nx\n```\n");
  EXPECT_EQ(md_fence("x", "a`b"), "```\nx\n```\n");
  EXPECT_EQ(md_fence("x", "sh evil"), "```\nx\n```\n");
}

TEST(Markdown, ACodeSpanOutlastsItsBackticks) {
  EXPECT_EQ(md_code("a`b"), "``a`b``");
  EXPECT_EQ(md_code("`x"), "`` `x ``");
}
