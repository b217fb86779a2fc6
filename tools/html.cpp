#include "html.h"

#include "run_records.h"

namespace vmr_tools {

using namespace vmr;

namespace {

// The pages' one style sheet. Each verdict's colour carries its name in the cell too (a reader who cannot tell red
// from green reads the word); CHANGED (differs from expected/verdicts.md) is an outline over any colour, since a
// PASS can be CHANGED as well as a FAIL. The heatmap's cells are fixed-size and its headers sticky, so a 500-node page
// lays out in one pass and stays readable while it scrolls.
constexpr const char kStyle[] = R"css(
body { font: 13px/1.4 system-ui, sans-serif; margin: 12px; color: #111; }
h1 { font-size: 18px; margin: 0 0 6px; } h2 { font-size: 15px; margin: 14px 0 6px; } h3 { font-size: 13px; margin: 10px 0 4px; }
table { border-collapse: collapse; }
td, th { border: 1px solid #fff; padding: 1px 4px; }
th { background: #f2f2f2; font-weight: 600; text-align: left; }
.v-PASS { background: #a5d6a7; } .v-FAIL { background: #ef5350; color: #fff; }
.v-CRASH { background: #8b0000; color: #fff; } .v-HANG { background: #ff9800; }
.v-SKIP { background: #dcdcdc; color: #444; } .v-HARNESS, .v-USAGE { background: #90caf9; }
.v-none { background: #fff; color: #999; } .v-silent { background: #37474f; color: #fff; }
.changed { outline: 3px solid #000; outline-offset: -3px; font-weight: 700; }
.legend span { display: inline-block; padding: 1px 6px; margin: 2px 4px 2px 0; border: 1px solid #ccc; }
.split { display: flex; gap: 16px; align-items: flex-start; }
.map { overflow: auto; max-height: 92vh; flex: 0 1 auto; }
.side { flex: 1 1 320px; min-width: 280px; max-height: 92vh; overflow: auto; }
#heatmap td { text-align: center; font-size: 11px; white-space: nowrap; width: 42px; min-width: 42px; max-width: 42px; overflow: hidden; }
#heatmap thead th { position: sticky; top: 0; z-index: 2; }
#heatmap thead tr.majority th, #heatmap thead tr.majority td { position: sticky; top: var(--head, 0); z-index: 2; }
#heatmap th.case { vertical-align: bottom; height: 190px; padding: 2px 0; }
#heatmap th.case span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; }
#heatmap tbody th { position: sticky; left: 0; z-index: 1; white-space: nowrap; max-width: 260px; overflow: hidden; text-overflow: ellipsis; }
#heatmap tr.differs th { background: #ffe0b2; }
.matrix td { text-align: center; min-width: 90px; }
.rows td { vertical-align: top; } .rows td:nth-child(-n+2) { white-space: nowrap; } .rows td.result { min-width: 30em; }
ul { margin: 2px 0 6px; padding-left: 18px; }
)css";

}  // namespace

// one_line's cap. U+FFFE and U+FFFF stay: an HTML parser reads a noncharacter and goes on, where XML refuses the file.
std::string html_text(const std::string& s) { return markup_escape(s, {4000, true, false}); }

std::string verdict_class(Verdict v) { return std::string("v-") + verdict_name(v); }

std::string verdict_class_of_name(const std::string& name) {
  const auto v = verdict_from_name(name);
  return v ? verdict_class(*v) : "v-none";
}

std::string verdict_legend(bool with_silent) {
  std::string out = "<div class=\"legend\">";
  for (Verdict v :
       {Verdict::Pass, Verdict::Fail, Verdict::Crash, Verdict::Hang, Verdict::Skip, Verdict::Harness, Verdict::Usage})
    out += "<span class=\"" + verdict_class(v) + "\">" + verdict_name(v) + "</span>";
  out += "<span class=\"v-PASS changed\">CHANGED: outlined, differs from expected/verdicts.md</span>";
  if (with_silent) out += "<span class=\"v-silent\">did not answer</span>";
  out += "<span class=\"v-none\">- no run</span> Hover a cell for its runs.</div>\n";
  return out;
}

std::string html_page(const std::string& title, const std::string& body) {
  // default-src 'none': no script runs and nothing loads (a link to anywhere would be text a reader can copy, never
  // a request); only the inline style sheet below is allowed.
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
         "<meta name=\"viewport\" content=\"width=device-width\">\n<title>" +
         html_text(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n" + body + "</body>\n</html>\n";
}

}  // namespace vmr_tools
