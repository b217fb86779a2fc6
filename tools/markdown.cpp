#include "markdown.h"

#include <algorithm>
#include <string_view>

#include "harness/json.h"
#include "run_records.h"

namespace vmr_tools {

namespace {

bool is_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// GitHub links "@name" (a mention: it notifies that user) and "#123" (an issue) in the text it has already rendered,
// where a backslash or an entity such as &#64; is gone: only a character between the sign and the name stops it. A
// WORD JOINER (U+2060) is that character: invisible, no width, no break, and CommonMark renders it as the text it is.
constexpr const char kWordJoiner[] = "\xe2\x81\xa0";

// CommonMark's inline syntax: code spans, emphasis and GFM's strikethrough, links and images, raw HTML and
// autolinks, entities, GFM's table cells, GitHub's math, a heading's #, and the backslash itself. Escaped wherever
// they stand; '>' too, so that the text cannot end an HTML comment it is put in (where no escape is read, "--\>" is
// no "-->").
constexpr std::string_view kAlwaysEscaped = "\\`*~[]<>&|$#";
// Whether a line starting with `t` is a list item ("- x", "+", "1. x", "2)"), a setext underline ("===", "- - -")
// or a rule: the index of the character that makes it one (escaped), else npos. "-1", "1.5" and "a - b" stay.
size_t block_marker(const std::string& t) {
  size_t i = 0;
  while (i < t.size() && i < 9 && is_digit(t[i])) ++i;
  const bool numbered = i > 0;
  if (i == t.size() || (numbered ? t[i] != '.' && t[i] != ')' : t[i] != '-' && t[i] != '+' && t[i] != '='))
    return std::string::npos;
  const bool item = (t[i] != '=') && (i + 1 == t.size() || t[i + 1] == ' ');
  const bool underline = !numbered && t.find_first_not_of(std::string(1, t[i]) + " ") == std::string::npos;
  return item || underline ? i : std::string::npos;
}

// GFM's extended autolinks: "http://e" (any scheme's "://": the colon is escaped) and "www.e" (the dot after www).
bool starts_autolink(const std::string& t, size_t i) {
  if (t[i] == ':') return t.compare(i + 1, 2, "//") == 0;
  if (t[i] != '.' || i < 3) return false;
  std::string www = t.substr(i - 3, 3);
  std::transform(www.begin(), www.end(), www.begin(), [](char c) { return char(c | 0x20); });
  return www == "www";
}

}  // namespace

std::string md_text(const std::string& s) {
  const std::string t = one_line(s);
  const size_t marker = block_marker(t);
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    // A space first or last would be an indented code block, or with another a hard line break: an entity is text.
    if (c == ' ' && (i == 0 || i + 1 == t.size())) {
      out += "&#32;";
      continue;
    }
    // An underscore inside a word (repro_host_shm) can neither open nor close emphasis: left as it reads.
    const bool inside_word = i > 0 && i + 1 < t.size() && is_alnum(t[i - 1]) && is_alnum(t[i + 1]);
    if (kAlwaysEscaped.find(c) != std::string_view::npos || (c == '_' && !inside_word) || i == marker ||
        starts_autolink(t, i))
      out += '\\';
    out += c;
    if (c == '@' || c == '#') out += kWordJoiner;
  }
  return out;
}

std::string md_code(const std::string& s) {
  const std::string t = one_line(s);
  size_t longest = 0, run = 0;
  for (char c : t) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
  const std::string fence(longest + 1, '`');
  const std::string pad = !t.empty() && (t.front() == '`' || t.back() == '`') ? " " : "";
  return fence + pad + t + pad + fence;
}

std::string md_fence(const std::string& text, const std::string& info) {
  // Each line as it is but its control bytes (a CR would end the line inside the block, an ESC drive a terminal).
  std::string body;
  for (char c : vmr::valid_utf8(text)) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      body += std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
    } else {
      body += c;
    }
  }
  if (!body.empty() && body.back() != '\n') body += '\n';
  // Only a line of at least as many backticks closes a backtick fence (a line of tildes never does).
  size_t longest = 0, run = 0;
  for (char c : body) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
  const std::string fence(std::max<size_t>(3, longest + 1), '`');
  const bool one_word = !info.empty() && info.find_first_of("` \t\n") == std::string::npos;
  return fence + (one_word ? md_text(info) : "") + "\n" + body + fence + "\n";
}

}  // namespace vmr_tools
