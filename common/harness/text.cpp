#include "harness/text.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace vmr {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) return parts;
    start = pos + 1;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool parse_int64(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t k = i; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return false;
  std::string copy(s);
  errno = 0;
  long long v = std::strtoll(copy.c_str(), nullptr, 10);
  if (errno == ERANGE) return false;
  *out = v;
  return true;
}

bool parse_int(std::string_view s, int min, int max, int* out) {
  int64_t v;
  if (!parse_int64(s, &v) || v < min || v > max) return false;
  *out = int(v);
  return true;
}

bool parse_double(std::string_view s, double* out) {
  if (s.empty() || s.size() > 64 || isspace(static_cast<unsigned char>(s[0]))) return false;
  std::string copy(s);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno == ERANGE || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

std::string format_double(double v) {
  char buf[64];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::string_view call_name(std::string_view expr) {
  size_t dot = expr.find_last_of('.');
  return dot == std::string_view::npos ? expr : expr.substr(dot + 1);
}

std::string printable(std::string_view s, size_t max_bytes) {
  std::string out;
  const size_t n = std::min(s.size(), max_bytes);
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += char(c);
    }
  }
  if (s.size() > max_bytes) out += "...(" + std::to_string(s.size() - max_bytes) + " more bytes)";
  return out;
}

bool parse_seconds(std::string_view s, double* out) {
  size_t i = 0, digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (digits == 0) return false;
  if (i < s.size() && s[i] == '.') {
    size_t frac = 0;
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) ++frac;
    if (frac == 0) return false;
  }
  return i == s.size() && parse_double(s, out);
}

}  // namespace vmr
