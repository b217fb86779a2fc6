#include "run_records.h"

#include <dirent.h>

#include <algorithm>
#include <cstdio>

#include "harness/json.h"
#include "harness/text.h"
#include "input_file.h"

namespace vmr_tools {

using namespace vmr;

std::string one_line(const std::string& s) { return valid_utf8(printable(s, 4000)); }

namespace {

// One case of a record: `launch` (what every case of the record shares) with the case's verdict, detail, first
// metric and each rank's info and last stderr lines.
Run case_run(const Run& launch, const JsonValue& c) {
  Run one = launch;
  auto v = verdict_from_name(c.get_string("verdict"));
  if (!v) {
    one.error = "run record " + launch.file + " has a case without a verdict";
    return one;
  }
  one.case_name = c.get_string("case");
  one.verdict = *v;
  one.detail = c.get_string("detail");
  if (const JsonValue* metrics = c.get("metrics"); metrics && !metrics->obj.empty()) {
    const auto& [name, m] = metrics->obj.front();
    one.metric = metric_text({name, m.get("value") ? m.get("value")->num : 0.0, m.get_string("unit")});
    for (const auto& [metric_name, metric] : metrics->obj)
      if (const JsonValue* value = metric.get("value"); value && value->type == JsonValue::Number)
        one.metrics.push_back({metric_name, value->num, metric.get_string("unit")});
  }
  const JsonValue* ranks = c.get("ranks");
  if (ranks && ranks->type == JsonValue::Array)
    for (const auto& rank : ranks->arr) {
      std::map<std::string, std::string> info;
      if (const JsonValue* in = rank.get("info"))
        for (const auto& [k, val] : in->obj)
          if (val.type == JsonValue::String) info.emplace(k, val.str);
      std::vector<std::string> tail;
      if (const JsonValue* t = rank.get("stderr_tail"))
        for (const auto& line : t->arr) tail.push_back(line.str);
      one.rank_info.push_back(std::move(info));
      one.stderr_tails.push_back(std::move(tail));
      Run::RankEnd end;
      if (const JsonValue* code = rank.get("exit_code"); code && code->type == JsonValue::Number)
        end.exit_code = int(code->num);
      const JsonValue* verdict = rank.get("verdict");
      end.reported = verdict && verdict->type == JsonValue::String;
      one.rank_ends.push_back(end);
    }
  // Conditions read the exporter's facts: rank 0 by the suite's convention.
  if (!one.rank_info.empty()) one.facts.insert(one.rank_info[0].begin(), one.rank_info[0].end());
  return one;
}

}  // namespace

std::string metric_text(const vmr::Metric& m) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", m.value);
  return std::string(buf) + " " + m.unit;
}

std::vector<Run> parse_record(const std::string& file, const std::string& text) {
  Run r;
  r.file = file;
  JsonValue run;
  Status st = parse_json(text, &run);
  const JsonValue* cases = run.get("cases");
  if (!st.ok() || !cases || cases->type != JsonValue::Array || cases->arr.empty())
    return {(r.error = "unreadable run record " + file + (st.ok() ? "" : ": " + st.detail), r)};
  r.binary = run.get_string("binary");
  r.backend = run.get_string("backend");
  if (const JsonValue* opts = run.get("options"))
    if (const JsonValue* devs = opts->get("devices"); devs && opts->get_string("device_source") == "--devices") {
      Pair chosen;
      for (const auto& d : devs->arr) chosen.gpus.push_back(int(d.num));
      r.pair = pair_key(chosen);
    }
  if (const JsonValue* env = run.get("environment"))
    for (const auto& [k, val] : env->obj) {
      if (val.type == JsonValue::String) r.facts.emplace(k, val.str);
      if (k == "variables" && val.type == JsonValue::Object)  // HSA_*, HIP_*, ...: they tell nodes apart too
        for (const auto& [name, v] : val.obj)
          if (v.type == JsonValue::String) r.facts.emplace(name, v.str);
    }
  std::vector<Run> out;
  for (const JsonValue& c : cases->arr) out.push_back(case_run(r, c));
  return out;
}

std::vector<Run> read_record(const std::string& dir, const std::string& file) {
  std::string text;
  if (Status st = read_folder_file(dir, file, &text); !st.ok()) {
    Run r;
    r.file = file;
    r.error = st.detail;
    r.refused = st.verdict == Verdict::Usage;
    return {r};
  }
  return parse_record(file, text);
}

std::vector<Run> read_runs(const std::string& dir) {
  std::vector<std::string> files;
  DIR* d = ::opendir(dir.c_str());
  if (!d) {  // never "no records": that would be every planned run's CHANGED, blamed on the node
    Run r;
    r.file = dir;
    r.error = errno_text("cannot list the results folder " + dir);
    r.refused = true;
    return {r};
  }
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 && name != "summary.json")
      files.push_back(name);
  }
  ::closedir(d);
  std::sort(files.begin(), files.end());
  std::vector<Run> runs;
  for (const auto& f : files)
    for (auto& run : read_record(dir, f)) runs.push_back(std::move(run));
  return runs;
}

std::string markup_escape(const std::string& s, const MarkupRules& rules) {
  std::string out;
  const std::string text = valid_utf8(printable(s, rules.max_bytes));
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    // U+FFFE and U+FFFF are well-formed UTF-8 but no XML 1.0 character (its Char production stops at U+FFFD): a
    // parser refuses the whole file. They become U+FFFD as invalid bytes do. Everything else XML refuses is gone
    // already: control bytes are \xNN (printable), surrogates and invalid bytes U+FFFD (valid_utf8).
    if (rules.xml_chars_only && text.compare(i, 2, "\xef\xbf") == 0 && i + 2 < text.size() &&
        (text[i + 2] == '\xbe' || text[i + 2] == '\xbf')) {
      out += "\xef\xbf\xbd";
      i += 2;
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += rules.apostrophe ? "&#39;" : "'";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string xml_escape(const std::string& s) { return markup_escape(s, {2000, false, true}); }

}  // namespace vmr_tools
