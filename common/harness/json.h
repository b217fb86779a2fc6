// Minimal JSON: a writer for --json records and a strict reader for the tools that read them (check_expected, the
// fleet report), which also takes records re-saved by other writers (\uXXXX escapes, surrogate pairs, indentation).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/status.h"

namespace vmr {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(double d);
  JsonWriter& value(int64_t i);
  JsonWriter& value(int i) { return value(int64_t(i)); }
  JsonWriter& value(bool b);
  JsonWriter& null();
  const std::string& str() const { return out_; }

 private:
  void before_value();
  std::string out_;
  std::vector<bool> first_;                  // per open container: no element written yet
  std::vector<std::set<std::string>> keys_;  // per open object: the keys written, quoted (none repeats)
  bool after_key_ = false;
};

std::string json_quote(std::string_view s);
// `s` with each byte that does not start a well-formed UTF-8 sequence replaced by U+FFFD: the rule of json_quote and
// of the reader, for the other reports of outside text (Markdown, XML).
std::string valid_utf8(std::string_view s);

struct JsonValue {
  enum Type { Null, Bool, Number, String, Array, Object } type = Null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<JsonValue> arr;
  std::vector<std::pair<std::string, JsonValue>> obj;

  const JsonValue* get(std::string_view key) const;  // nullptr when absent or not an object
  std::string get_string(std::string_view key, std::string fallback = {}) const;
};

// Refuses anything outside RFC 8259's grammar (NaN, "+1", "\x", raw control bytes, trailing data) and an object
// with a key twice (naming it); every string it gives (keys too) is valid UTF-8: invalid bytes and lone-surrogate
// escapes read as U+FFFD.
Status parse_json(std::string_view text, JsonValue* out);

}  // namespace vmr
