#include <gtest/gtest.h>

#include "harness/json.h"

using namespace vmr;

TEST(Json, WriterOutputParsesBackExactly) {
  JsonWriter w;
  w.begin_object().key("s").value("quote \" backslash \\ newline \n tab \t bell \x07");
  w.key("n").value(0.1).key("i").value(int64_t(-7)).key("b").value(true).key("z").null();
  w.key("a").begin_array().value(1).begin_object().key("k").value("v").end_object().end_array();
  w.key("e").begin_object().end_object();
  w.end_object();
  JsonValue v;
  ASSERT_TRUE(parse_json(w.str(), &v).ok()) << w.str();
  EXPECT_EQ(v.get_string("s"), "quote \" backslash \\ newline \n tab \t bell \x07");
  EXPECT_EQ(v.get("n")->num, 0.1);
  EXPECT_EQ(v.get("i")->num, -7);
  EXPECT_TRUE(v.get("b")->b);
  EXPECT_EQ(v.get("z")->type, JsonValue::Null);
  ASSERT_EQ(v.get("a")->arr.size(), 2u);
  EXPECT_EQ(v.get("a")->arr[1].get_string("k"), "v");
  EXPECT_EQ(v.get("missing"), nullptr);
}

TEST(Json, MalformedInputIsRejected) {
  JsonValue v;
  for (const char* bad : {"", "{", "{\"a\":}", "[1,]", "{\"a\" 1}", "\"unterminated", "{} extra", "tru", "[1 2]",
                          "{\"a\":1,}", "\"\\x\"", "-", "[\"\x01\"]"})
    EXPECT_FALSE(parse_json(bad, &v).ok()) << bad;
}

// A record re-saved by Python's json.dump (ensure_ascii: every non-ASCII character as \uXXXX, pairs above U+FFFF,
// "\/" from other writers, indentation and CRLF line ends) reads as the suite's own writer would have written it.
TEST(Json, EscapesOfOtherWritersDecodeToUtf8) {
  const char* resaved =
      "{\r\n  \"detail\": \"caf\\u00e9 \\ufffd \\ud83d\\ude00 a\\/b \\u0041\\u00E9\",\r\n"
      "\t\"n\": -1.5e+2, \"z\": 0, \"e\": 1E-2\r\n}\r\n";
  JsonValue v;
  ASSERT_TRUE(parse_json(resaved, &v).ok());
  EXPECT_EQ(v.get_string("detail"), "caf\xc3\xa9 \xef\xbf\xbd \xf0\x9f\x98\x80 a/b A\xc3\xa9");
  EXPECT_EQ(v.get("n")->num, -150);
  EXPECT_EQ(v.get("e")->num, 0.01);
}

// Python writes an undecodable byte it kept as a lone surrogate (surrogateescape) as "\udcff": valid JSON, no
// character; it reads as U+FFFD, and a high half followed by anything but a low half does not swallow it.
TEST(Json, LoneSurrogateEscapesReadAsReplacement) {
  JsonValue v;
  ASSERT_TRUE(parse_json("[\"a\\udcffb\", \"\\ud800\\u0041\", \"\\ud800\"]", &v).ok());
  ASSERT_EQ(v.arr.size(), 3u);
  EXPECT_EQ(v.arr[0].str,
            "a\xef\xbf\xbd"
            "b");
  EXPECT_EQ(v.arr[1].str,
            "\xef\xbf\xbd"
            "A");
  EXPECT_EQ(v.arr[2].str, "\xef\xbf\xbd");
}

// Raw bytes that are not UTF-8 (a record written by a tool that copied them) never reach a report: each reads as
// U+FFFD, in values and keys; well-formed multi-byte text is kept.
TEST(Json, InvalidUtf8ReadsAsReplacement) {
  JsonValue v;
  ASSERT_TRUE(parse_json("{\"k\xff\": \"a\xc3\x28 \xed\xa0\x80 \xe2\x82\xac \xf0\x9f\x98\"}", &v).ok());
  ASSERT_EQ(v.obj.size(), 1u);
  EXPECT_EQ(v.obj[0].first, "k\xef\xbf\xbd");
  EXPECT_EQ(v.obj[0].second.str,
            "a\xef\xbf\xbd( \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xe2\x82\xac \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(valid_utf8("ok \xe2\x82\xac \xff"), "ok \xe2\x82\xac \xef\xbf\xbd");
}

// Escapes and numbers outside the grammar stay refused, though strtod or a lax reader would take them.
TEST(Json, InvalidEscapesAndNumbersAreRejected) {
  JsonValue v;
  for (const char* bad : {"\"\\u12\"", "\"\\u12G4\"", "\"\\U0041\"", "\"\\u\"", "\"\\", "+1", "01", ".5", "1.", "1e",
                          "1e+", "-", "--1", "[1.e5]", "NaN", "Infinity", "-Infinity", "0x10", "[01]"})
    EXPECT_FALSE(parse_json(bad, &v).ok()) << bad;
  for (const char* good : {"0", "-0", "10", "1.25", "1e5", "1E+5", "-2.5e-3", "[0,1]"})
    EXPECT_TRUE(parse_json(good, &v).ok()) << good;
}

// An object with a key twice is refused, naming the key: Python and jq read the last, a first-wins reader the first,
// so {"verdict":"PASS","verdict":"CRASH"} would be PASS to us and CRASH to everyone else. Equal once decoded is
// equal ("\u0076erdict" is "verdict"); the same key in two objects, or at two depths, is no duplicate.
TEST(Json, ADuplicateKeyIsRefusedNamingIt) {
  JsonValue v;
  for (const char* dup : {"{\"verdict\":\"PASS\",\"verdict\":\"CRASH\"}", "{\"verdict\":1,\"\\u0076erdict\":1}",
                          "[{\"a\":{\"verdict\":1,\"b\":2,\"verdict\":1}}]"}) {
    const Status st = parse_json(dup, &v);
    EXPECT_FALSE(st.ok()) << dup;
    EXPECT_NE(st.detail.find("duplicate key \"verdict\""), std::string::npos) << dup << ": " << st.detail;
  }
  const Status st = parse_json("{\"a\":1,\"\\r\":1,\"\\r\":2}", &v);
  EXPECT_NE(st.detail.find("duplicate key \"\\x0d\" at offset 14"), std::string::npos) << st.detail;
  EXPECT_TRUE(parse_json("[{\"verdict\":1},{\"verdict\":2,\"x\":{\"verdict\":3}}]", &v).ok());
}

// The writer never writes what the reader refuses: a key repeated in one object (a phase a rank ended twice, two
// names that differ only in invalid bytes) is kept under "KEY #2"; another object may use the key again.
TEST(Json, TheWriterNeverRepeatsAKeyInAnObject) {
  JsonWriter w;
  w.begin_object().key("run").value(1).key("run").value(2).key("run #2").value(3).key("a\xff").value(4);
  w.key("a\xfe").value(5).key("o").begin_object().key("run").value(6).end_object().end_object();
  JsonValue v;
  ASSERT_TRUE(parse_json(w.str(), &v).ok()) << w.str();
  std::vector<std::string> keys;
  for (const auto& [k, _] : v.obj) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"run", "run #2", "run #2 #2", "a\xef\xbf\xbd", "a\xef\xbf\xbd #2", "o"}));
  EXPECT_EQ(v.get("run #2")->num, 2);
  EXPECT_EQ(v.get("o")->get("run")->num, 6);
}
