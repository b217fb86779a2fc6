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
