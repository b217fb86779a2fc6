#include "harness/json.h"

#include <cmath>
#include <cstdio>

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
}  // namespace

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
          out += "\xef\xbf\xbd";
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
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  out_ += "}";
  first_.pop_back();
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
JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  out_ += json_quote(k) + ":";
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
    if (!value(out, 0)) return err();
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
  bool string(std::string* s) {
    if (i_ >= t_.size() || t_[i_] != '"') return false;
    ++i_;
    while (i_ < t_.size() && t_[i_] != '"') {
      char c = t_[i_++];
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        *s += c;
        continue;
      }
      if (i_ >= t_.size()) return false;
      char e = t_[i_++];
      switch (e) {
        case '"':
          *s += '"';
          break;
        case '\\':
          *s += '\\';
          break;
        case '/':
          *s += '/';
          break;
        case 'n':
          *s += '\n';
          break;
        case 't':
          *s += '\t';
          break;
        case 'r':
          *s += '\r';
          break;
        case 'b':
          *s += '\b';
          break;
        case 'f':
          *s += '\f';
          break;
        case 'u': {
          int64_t cp = 0;
          if (i_ + 4 > t_.size()) return false;
          for (int k = 0; k < 4; ++k) {
            char h = t_[i_++];
            int d = isdigit(static_cast<unsigned char>(h)) ? h - '0'
                    : (h >= 'a' && h <= 'f')               ? h - 'a' + 10
                    : (h >= 'A' && h <= 'F')               ? h - 'A' + 10
                                                           : -1;
            if (d < 0) return false;
            cp = cp * 16 + d;
          }
          if (cp >= 0x80) return false;  // the suite writes ASCII escapes only
          *s += char(cp);
          break;
        }
        default:
          return false;
      }
    }
    if (i_ >= t_.size()) return false;
    ++i_;
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
      for (;;) {
        ws();
        std::string k;
        if (!string(&k)) return false;
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
    size_t start = i_;
    while (i_ < t_.size() && (isdigit(static_cast<unsigned char>(t_[i_])) || t_[i_] == '-' || t_[i_] == '+' ||
                              t_[i_] == '.' || t_[i_] == 'e' || t_[i_] == 'E'))
      ++i_;
    v->type = JsonValue::Number;
    return i_ > start && parse_double(t_.substr(start, i_ - start), &v->num);
  }

  std::string_view t_;
  size_t i_ = 0;
};

}  // namespace

Status parse_json(std::string_view text, JsonValue* out) {
  JsonValue v;
  VMR_TRY(Parser(text).parse(&v));
  *out = std::move(v);
  return Status::pass();
}

}  // namespace vmr
