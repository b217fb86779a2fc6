// The one way outside text (names, details, facts, a rank's stderr, collect-env's output) reaches the Markdown the
// suite writes: report.md, fleet.md, bug-report.md (scripts/bug-report gets it through check_expected --md-text and
// --md-fence, never by escaping in bash). bug-report.md goes into a public GitHub issue: what a record says must read
// as the text it is there, never as a heading, HTML, a link, a mention or a fence's end.
#pragma once

#include <string>

namespace vmr_tools {

// `s` as literal inline Markdown on one line (one_line's: control bytes as \xNN, valid UTF-8), safe anywhere in a
// line, at its start or in a table cell: no heading, list, quote or code block, no HTML, no link or autolink (a
// GitHub one included), no emphasis, code span or math, no `|` that ends a cell, and no @mention or #issue reference
// on GitHub. Readable as it stands: backslashes and an invisible word joiner, nothing dropped.
std::string md_text(const std::string& s);
// A Markdown code span of `s` on one line, its fence longer than any run of backticks in it (a backtick cannot end it).
std::string md_code(const std::string& s);
// A fenced code block quoting `text` line for line (control bytes but a tab as \xNN, valid UTF-8), ending with a
// newline. Its fence is longer than any run of backticks inside, so no line of the text can close it; `info` (a
// language: "sh", "hip") is kept where it is one word without a backtick, else left out.
std::string md_fence(const std::string& text, const std::string& info = "");

}  // namespace vmr_tools
