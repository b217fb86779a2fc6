#include "harness/json.h"

#include <cmath>
#include <cstdio>
#include <set>

#include "harness/text.h"

namespace vmr {

namespace {
// Length of the well-formed UTF-8 sequence at s[i], 0 when the bytes there are not one (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF).
size_t utf8_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xc0) != 0x80) return 0;
  if (c == 0xe0 && b(i + 1) < 0xa0) return 0;   // overlong
  if (c == 0xed && b(i + 1) >= 0xa0) return 0;  // surrogate
  if (c == 0xf0 && b(i + 1) < 0x90) return 0;   // overlong
  if (c == 0xf4 && b(i + 1) >= 0x90) return 0;  // above U+10FFFF
  return n;
}

void append_utf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    *out += char(cp);
  } else if (cp < 0x800) {
    *out += char(0xc0 | (cp >> 6));
    *out += char(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    *out += char(0xe0 | (cp >> 12));
    *out += char(0x80 | ((cp >> 6) & 0x3f));
    *out += char(0x80 | (cp & 0x3f));
  } else {
    *out += char(0xf0 | (cp >> 18));
    *out += char(0x80 | ((cp >> 12) & 0x3f));
    *out += char(0x80 | ((cp >> 6) & 0x3f));
    *out += char(0x80 | (cp & 0x3f));
  }
}

const char kReplacement[] = "\xef\xbf\xbd";  // U+FFFD
}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const size_t n = static_cast<unsigned char>(s[i]) < 0x80 ? 1 : utf8_length(s, i);
    if (n == 0) {
      out += kReplacement;
      continue;
    }
    out.append(s.substr(i, n));
    i += n - 1;
  }
  return out;
}

// Text from outside (the environment, a rank's output) may hold any bytes: each byte that does not start a
// well-formed UTF-8 sequence becomes U+FFFD, so the record is always valid JSON.
std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else if (c < 0x80) {
          out += char(c);
        } else if (size_t n = utf8_length(s, i)) {
          out.append(s.substr(i, n));
          i += n - 1;
        } else {
          out += kReplacement;
        }
    }
  }
  return out + "\"";
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ",";
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += "{";
  first_.push_back(true);
  keys_.emplace_back();
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  out_ += "}";
  first_.pop_back();
  keys_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += "[";
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  out_ += "]";
  first_.pop_back();
  return *this;
}
// The reader refuses an object with a key twice, so the writer never writes one: a key that repeats in its object
// (a phase a rank ended twice, two names that differ only in invalid bytes, both U+FFFD once quoted) is written as
// "KEY #2", "KEY #3": every value is kept and the record stays readable.
JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  std::string quoted = json_quote(k);
  if (!keys_.empty()) {
    std::set<std::string>& seen = keys_.back();
    for (int n = 2; seen.count(quoted); ++n) quoted = json_quote(std::string(k) + " #" + std::to_string(n));
    seen.insert(quoted);
  }
  out_ += quoted + ":";
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  out_ += json_quote(s);
  return *this;
}
JsonWriter& JsonWriter::value(double d) {
  before_value();
  out_ += std::isfinite(d) ? format_double(d) : "null";
  return *this;
}
JsonWriter& JsonWriter::value(int64_t i) {
  before_value();
  out_ += std::to_string(i);
  return *this;
}
JsonWriter& JsonWriter::value(bool b) {
  before_value();
  out_ += b ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

const JsonValue* JsonValue::get(std::string_view key) const {
  if (type != Object) return nullptr;
  for (const auto& [k, v] : obj)
    if (k == key) return &v;
  return nullptr;
}

std::string JsonValue::get_string(std::string_view key, std::string fallback) const {
  const JsonValue* v = get(key);
  return v && v->type == String ? v->str : fallback;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view t) : t_(t) {}

  Status parse(JsonValue* out) {
    if (!value(out, 0)) return error_.empty() ? err() : Status::harness(error_);
    ws();
    if (i_ != t_.size()) return Status::harness("JSON: trailing data at offset " + std::to_string(i_));
    return Status::pass();
  }

 private:
  Status err() { return Status::harness("JSON: malformed at offset " + std::to_string(i_)); }
  void ws() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\t' || t_[i_] == '\r')) ++i_;
  }
  bool lit(std::string_view w) {
    if (t_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  // A string's text is always valid UTF-8: a byte that does not start a well-formed sequence, and a \u escape of
  // a lone surrogate (Python writes those for undecodable bytes), become U+FFFD, as the writer does.
  bool string(std::string* s) {
    if (i_ >= t_.size() || t_[i_] != '"') return false;
    ++i_;
    while (i_ < t_.size() && t_[i_] != '"') {
      const unsigned char c = static_cast<unsigned char>(t_[i_]);
      if (c < 0x20) return false;
      if (c == '\\') {
        ++i_;
        if (!escape(s)) return false;
      } else if (c < 0x80) {
        *s += char(c);
        ++i_;
      } else if (size_t n = utf8_length(t_, i_)) {
        s->append(t_.substr(i_, n));
        i_ += n;
      } else {
        *s += kReplacement;
        ++i_;
      }
    }
    if (i_ >= t_.size()) return false;
    ++i_;
    return true;
  }
  // The escape after a backslash: the two-character ones, or \uXXXX (a surrogate pair as one code point).
  bool escape(std::string* s) {
    if (i_ >= t_.size()) return false;
    const char e = t_[i_++];
    static const std::string_view kFrom = "\"\\/bfnrt", kTo = "\"\\/\b\f\n\r\t";
    if (size_t k = kFrom.find(e); k != std::string_view::npos) {
      *s += kTo[k];
      return true;
    }
    uint32_t cp = 0;
    if (e != 'u' || !hex4(&cp)) return false;
    if (cp >= 0xd800 && cp <= 0xdbff && t_.substr(i_, 2) == "\\u") {
      size_t back = i_;
      uint32_t low = 0;
      i_ += 2;
      if (hex4(&low) && low >= 0xdc00 && low <= 0xdfff) {
        append_utf8(s, 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00));
        return true;
      }
      i_ = back;  // not its low half: the next escape stands alone
    }
    if (cp >= 0xd800 && cp <= 0xdfff)
      *s += kReplacement;
    else
      append_utf8(s, cp);
    return true;
  }
  bool hex4(uint32_t* cp) {
    if (i_ + 4 > t_.size()) return false;
    for (int k = 0; k < 4; ++k) {
      const char h = t_[i_++];
      const int d = isdigit(static_cast<unsigned char>(h)) ? h - '0'
                    : (h >= 'a' && h <= 'f')               ? h - 'a' + 10
                    : (h >= 'A' && h <= 'F')               ? h - 'A' + 10
                                                           : -1;
      if (d < 0) return false;
      *cp = *cp * 16 + uint32_t(d);
    }
    return true;
  }
  bool value(JsonValue* v, int depth) {
    if (depth > 64) return false;
    ws();
    if (i_ >= t_.size()) return false;
    char c = t_[i_];
    if (c == '{') {
      v->type = JsonValue::Object;
      ++i_;
      ws();
      if (i_ < t_.size() && t_[i_] == '}') return ++i_, true;
      std::set<std::string> keys;
      for (;;) {
        ws();
        const size_t key_at = i_;
        std::string k;
        if (!string(&k)) return false;
        // Refused, not read: Python and jq take the last of two equal keys, a first-wins reader the first, so one
        // record would say PASS to us and CRASH to everyone else.
        if (!keys.insert(k).second) {
          error_ = "JSON: duplicate key \"" + printable(k) + "\" at offset " + std::to_string(key_at);
          return false;
        }
        ws();
        if (i_ >= t_.size() || t_[i_++] != ':') return false;
        JsonValue child;
        if (!value(&child, depth + 1)) return false;
        v->obj.emplace_back(std::move(k), std::move(child));
        ws();
        if (i_ < t_.size() && t_[i_] == ',') {
          ++i_;
          continue;
        }
        if (i_ < t_.size() && t_[i_] == '}') return ++i_, true;
        return false;
      }
    }
    if (c == '[') {
      v->type = JsonValue::Array;
      ++i_;
      ws();
      if (i_ < t_.size() && t_[i_] == ']') return ++i_, true;
      for (;;) {
        JsonValue child;
        if (!value(&child, depth + 1)) return false;
        v->arr.push_back(std::move(child));
        ws();
        if (i_ < t_.size() && t_[i_] == ',') {
          ++i_;
          continue;
        }
        if (i_ < t_.size() && t_[i_] == ']') return ++i_, true;
        return false;
      }
    }
    if (c == '"') {
      v->type = JsonValue::String;
      return string(&v->str);
    }
    if (lit("true")) {
      v->type = JsonValue::Bool;
      v->b = true;
      return true;
    }
    if (lit("false")) {
      v->type = JsonValue::Bool;
      return true;
    }
    if (lit("null")) {
      v->type = JsonValue::Null;
      return true;
    }
    return number(v);
  }
  // RFC 8259's grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?: strtod alone would also take "+1", "01",
  // ".5" and "1.", which no JSON writer emits.
  bool number(JsonValue* v) {
    const size_t start = i_;
    auto digits = [&] {
      const size_t from = i_;
      while (i_ < t_.size() && isdigit(static_cast<unsigned char>(t_[i_]))) ++i_;
      return i_ > from;
    };
    auto next_is = [&](std::string_view chars) { return i_ < t_.size() && chars.find(t_[i_]) != chars.npos; };
    if (next_is("-")) ++i_;
    if (next_is("0"))
      ++i_;
    else if (!digits())
      return false;
    if (next_is(".") && (++i_, !digits())) return false;
    if (next_is("eE")) {
      ++i_;
      if (next_is("+-")) ++i_;
      if (!digits()) return false;
    }
    v->type = JsonValue::Number;
    return parse_double(t_.substr(start, i_ - start), &v->num);
  }

  std::string_view t_;
  size_t i_ = 0;
  std::string error_;  // what refused a well-formed text (a duplicate key); empty: the offset of the malformed byte
};

}  // namespace

Status parse_json(std::string_view text, JsonValue* out) {
  JsonValue v;
  VMR_TRY(Parser(text).parse(&v));
  *out = std::move(v);
  return Status::pass();
}

}  // namespace vmr
