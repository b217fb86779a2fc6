// The one way outside text (node names, case names, facts, details, reasons) reaches the HTML pages the suite
// writes: fleet.html (tools/fleet_html.cpp) and a triage's report.html (tools/report_html.cpp). Each page is one
// self-contained file a browser opens from a shared folder or a CI artifact: no script, no style sheet, font or image
// from anywhere, and a Content-Security-Policy that forbids the browser every load, so a record's text can neither
// run nor fetch anything even if an escape were missed. Colours are the verdicts' (one legend for both pages).
#pragma once

#include <string>

#include "harness/status.h"

namespace vmr_tools {

// `s` as HTML text on one line (one_line's: control bytes as \xNN, valid UTF-8) with & < > " ' as entities: safe as
// an element's content and inside a double- or single-quoted attribute value (a title, a data- attribute).
std::string html_text(const std::string& s);

// The CSS class of a verdict's colour ("v-PASS", "v-CRASH"); "v-none" for a cell with no run behind it ("-", "?",
// "not run") and "v-silent" for a node that did not answer are the pages' own.
std::string verdict_class(vmr::Verdict v);
// The class of a verdict's name as a summary or matrix shows it ("PASS", "-", "?"): verdict_class, or "v-none".
std::string verdict_class_of_name(const std::string& name);

// A <div class="legend"> of every colour a page uses and what it means, CHANGED's outline and "did not answer"
// (with_silent: the fleet's) included.
std::string verdict_legend(bool with_silent);

// The whole page: doctype, UTF-8, the policy that forbids every load, `title` (escaped here), the pages' one style
// sheet, inline, and `body` (HTML already, its outside text escaped by html_text).
std::string html_page(const std::string& title, const std::string& body);

}  // namespace vmr_tools
