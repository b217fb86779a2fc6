// The triage's Prometheus textfile (tools/prom.h), read back by a strict little parser of the text format: one
// sample a line, each family's # HELP and # TYPE once and before its samples, no family twice, no series twice. What
// node_exporter itself makes of the file is tests/prom_textfile.sh.
#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/scope_guard.h"
#include "prom.h"
#include "report.h"
#include "run_records.h"

using namespace vmr_tools;

namespace {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;  // unescaped values
  double value = 0;
};

struct Parsed {
  std::vector<Sample> samples;
  std::vector<std::string> families;  // in the order their HELP lines came
  std::map<std::string, std::string> help;
  std::vector<std::string> errors;  // empty: the text is well formed
};

bool metric_name(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '_' || c == ':'; });
}

bool label_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; });
}

bool sample_value(const std::string& s, double* v) {
  if (s == "NaN") return *v = NAN, true;
  if (s == "+Inf" || s == "-Inf") return *v = s[0] == '+' ? INFINITY : -INFINITY, true;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

bool control_byte(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

// A HELP text unescaped (\\ and \n only, as the format has them); false on another escape or a raw control byte,
// which a line-based reader of the file would split or cut at.
bool unescape_help(const std::string& text, std::string* out) {
  for (size_t j = 0; j < text.size(); ++j) {
    if (control_byte(text[j])) return false;
    if (text[j] != '\\') {
      *out += text[j];
      continue;
    }
    if (++j >= text.size() || (text[j] != '\\' && text[j] != 'n')) return false;
    *out += text[j] == 'n' ? '\n' : '\\';
  }
  return true;
}

// `{k="v",...}` at `line[*i]`: the labels, values unescaped (\\ \" \n only), no label twice, no raw control byte.
bool parse_labels(const std::string& line, size_t* i, std::map<std::string, std::string>* labels) {
  ++*i;  // '{'
  while (*i < line.size() && line[*i] != '}') {
    const size_t eq = line.find('=', *i);
    if (eq == std::string::npos || eq + 1 >= line.size() || line[eq + 1] != '"') return false;
    const std::string key = line.substr(*i, eq - *i);
    std::string value;
    size_t j = eq + 2;
    for (; j < line.size() && line[j] != '"'; ++j) {
      if (control_byte(line[j])) return false;
      if (line[j] != '\\') {
        value += line[j];
        continue;
      }
      if (++j >= line.size()) return false;
      if (line[j] == 'n')
        value += '\n';
      else if (line[j] == '\\' || line[j] == '"')
        value += line[j];
      else
        return false;
    }
    if (j >= line.size() || !label_name(key) || !labels->emplace(key, value).second) return false;
    *i = j + 1;
    if (*i < line.size() && line[*i] == ',') ++*i;
  }
  if (*i >= line.size()) return false;
  ++*i;  // '}'
  return true;
}

Parsed parse(const std::string& text) {
  Parsed p;
  std::set<std::string> typed, with_samples, series;
  std::string current;  // the family whose samples may come now
  if (!text.empty() && text.back() != '\n') p.errors.push_back("no newline at the end");
  size_t start = 0;
  for (int n = 1; start < text.size(); ++n) {
    const size_t nl = text.find('\n', start);
    const std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    start = nl == std::string::npos ? text.size() : nl + 1;
    auto bad = [&](const std::string& why) {
      p.errors.push_back("line " + std::to_string(n) + ": " + why + ": " + line);
    };
    if (line.rfind("# HELP ", 0) == 0) {
      const std::string rest = line.substr(7);
      const std::string name = rest.substr(0, rest.find(' '));
      if (!metric_name(name)) bad("bad family name");
      if (p.help.count(name)) bad("HELP twice");
      if (with_samples.count(name)) bad("HELP after samples");
      if (!unescape_help(rest.size() > name.size() ? rest.substr(name.size() + 1) : "", &p.help[name]))
        bad("bad HELP text");
      p.families.push_back(name);
      current = name;
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      const std::string rest = line.substr(7);
      const std::string name = rest.substr(0, rest.find(' '));
      if (rest != name + " gauge") bad("not a gauge");
      if (!typed.insert(name).second) bad("TYPE twice");
      if (name != current || with_samples.count(name)) bad("TYPE not right after its HELP");
      continue;
    }
    if (line.empty() || line[0] == '#') {
      bad("a line that is neither HELP, TYPE nor a sample");
      continue;
    }
    Sample s;
    size_t i = line.find_first_of("{ ");
    s.name = line.substr(0, i);
    if (i != std::string::npos && line[i] == '{' && !parse_labels(line, &i, &s.labels)) {
      bad("bad labels");
      continue;
    }
    if (i == std::string::npos || line[i] != ' ' || !sample_value(line.substr(i + 1), &s.value)) {
      bad("bad value");
      continue;
    }
    if (!metric_name(s.name)) bad("bad metric name");
    if (!p.help.count(s.name) || !typed.count(s.name)) bad("a sample without HELP and TYPE before it");
    if (s.name != current) bad("a sample away from its family");
    std::string key = s.name;
    for (const auto& [k, v] : s.labels) key += "\n" + k + "=" + v;
    if (!series.insert(key).second) bad("a series twice");
    with_samples.insert(s.name);
    p.samples.push_back(std::move(s));
  }
  return p;
}

std::vector<Sample> samples_of(const Parsed& p, const std::string& name) {
  std::vector<Sample> out;
  for (const auto& s : p.samples)
    if (s.name == name) out.push_back(s);
  return out;
}

// The one sample of `name` whose labels include `with`; fails the test unless there is exactly one.
Sample one(const Parsed& p, const std::string& name, const std::map<std::string, std::string>& with) {
  std::vector<Sample> found;
  for (const auto& s : samples_of(p, name))
    if (std::all_of(with.begin(), with.end(), [&](auto& kv) {
          auto it = s.labels.find(kv.first);
          return it != s.labels.end() && it->second == kv.second;
        }))
      found.push_back(s);
  EXPECT_EQ(found.size(), 1u) << name;
  return found.empty() ? Sample{} : found[0];
}

Row row(const std::string& name, const std::string& pair, const std::string& expected, const std::string& observed,
        bool changed, bool not_run = false) {
  Row r;
  r.name = name;
  r.pair = pair_of(pair);
  r.expected = expected;
  r.observed = vmr::verdict_from_name(observed);
  // The verdicts of the cell ("CRASH/FAIL/PASS ~reason"), as the comparison fills `allowed`.
  const std::string names = expected.substr(0, expected.find(' '));
  for (size_t at = 0; at < names.size();) {
    const size_t slash = std::min(names.find('/', at), names.size());
    if (const auto v = vmr::verdict_from_name(names.substr(at, slash - at))) r.allowed.push_back(*v);
    at = slash + 1;
  }
  r.standing = changed ? Standing::WrongVerdict : not_run ? Standing::NotRun : Standing::Ok;
  r.result = changed ? "CHANGED: ..." : not_run ? "not run (...)" : "OK";
  return r;
}

const PromFacts kFacts{12.5, 1, "changed", 1700000000};

// A PASS row of the case on the pair with these metrics.
Row run_with(const std::string& binary, const std::string& case_name, const std::string& pair,
             std::vector<vmr::Metric> metrics) {
  Row r = row(binary + "." + case_name, pair, "PASS", "PASS", false);
  r.metrics = std::move(metrics);
  return r;
}

// `s` with the metrics of `measured` on its rows of the same case and pair (a row of its own where it has none), as
// the comparison puts each record's metrics on its row.
Summary with_metrics(Summary s, const std::vector<Row>& measured) {
  for (const Row& m : measured) {
    auto same =
        std::find_if(s.rows.begin(), s.rows.end(), [&](const Row& r) { return r.name == m.name && r.pair == m.pair; });
    if (same != s.rows.end())
      same->metrics = m.metrics;
    else
      s.rows.push_back(m);
  }
  count_rows(&s);
  return s;
}

}  // namespace

// The parser the other tests trust: it must refuse what node_exporter would refuse or misread.
TEST(PromParser, RefusesMalformedText) {
  const std::string ok = "# HELP a_b x\n# TYPE a_b gauge\na_b{k=\"v\"} 1\n";
  EXPECT_TRUE(parse(ok).errors.empty());
  const char* bad[] = {
      "a_b 1\n",                                                                          // no HELP/TYPE
      "# HELP a_b x\n# TYPE a_b gauge\na_b 1\n# HELP a_b x\n",                            // HELP twice
      "# HELP a_b x\n# TYPE a_b gauge\n# TYPE a_b gauge\na_b 1\n",                        // TYPE twice
      "# HELP a_b x\n# TYPE a_b gauge\na_b 1\n# HELP c x\n# TYPE c gauge\nc 1\na_b 2\n",  // family split
      "# HELP a_b x\n# TYPE a_b gauge\na_b{k=\"v\\t\"} 1\n",                              // unknown escape
      "# HELP a_b x\n# TYPE a_b gauge\na_b{k=\"v\"} 1,5\n",                               // a locale's comma
      "# HELP a_b x\n# TYPE a_b gauge\na_b{k=\"v\"} 1\na_b{k=\"v\"} 2\n",                 // one series twice
      "# HELP A x\n# TYPE A gauge\nA 1\n",                                                // a name outside [a-z_:]
      "# HELP a_b x\n# TYPE a_b gauge\na_b{k=\"v\rw\"} 1\n",                              // a raw CR
      "# HELP a_b x\n# TYPE a_b gauge\na_b{k=\"v\\x0dw\"} 1\n",                           // \x: no escape
      "# HELP a_b x\\\"\n# TYPE a_b gauge\na_b 1\n",                                      // \" in HELP
      "# HELP a_b x\ry\n# TYPE a_b gauge\na_b 1\n",                                       // raw CR in HELP
  };
  for (const char* b : bad) EXPECT_FALSE(parse(b).errors.empty()) << b;
}

// One verdict series per row, valued with the verdict's exit code; a planned run without a record is 99 "none",
// a case not run here (not built, not planned) 77 "none".
TEST(Prom, EveryRowGivesOneVerdictSeriesWithItsExitCode) {
  const Summary s = summary_of({
      row("repro_x.read", "0-1", "PASS", "PASS", false),
      row("repro_x.read", "1-0", "PASS", "FAIL", true),
      row("repro_x.atomics", "0-1", "CRASH/FAIL/PASS ~Memory access fault ~Reason: x", "CRASH", false),
      row("repro_x.hang", "0-1", "HANG", "HANG", false),
      row("repro_x.read", "0-2", "PASS", "SKIP", false, true),
      row("repro_x.read", "1-2", "PASS", "HARNESS", true),
      row("repro_x.read", "2-1", "PASS", "-", true),
      row("repro_x.write", "", "PASS", "-", false, true),
      row("repro_y.read", "0-1", "-", "PASS", true),
  });
  const Parsed p = parse(prom_textfile(s, kFacts));
  ASSERT_TRUE(p.errors.empty()) << p.errors[0];
  ASSERT_EQ(samples_of(p, "vmem_repro_case_verdict").size(), s.rows.size());
  ASSERT_EQ(samples_of(p, "vmem_repro_case_changed").size(), s.rows.size());
  struct Want {
    const char* name;
    const char* pair;
    double value;
    const char* verdict;
    const char* expected;
  };
  const Want want[] = {{"repro_x.read", "0-1", 0, "PASS", "PASS"},
                       {"repro_x.read", "1-0", 1, "FAIL", "PASS"},
                       {"repro_x.atomics", "0-1", 3, "CRASH", "CRASH/FAIL/PASS"},
                       {"repro_x.hang", "0-1", 4, "HANG", "HANG"},
                       {"repro_x.read", "0-2", 77, "SKIP", "PASS"},
                       {"repro_x.read", "1-2", 99, "HARNESS", "PASS"},
                       {"repro_x.read", "2-1", 99, "none", "PASS"},
                       {"repro_x.write", "", 77, "none", "PASS"},
                       {"repro_y.read", "0-1", 0, "PASS", "none"}};
  for (const auto& w : want) {
    Sample v = one(p, "vmem_repro_case_verdict", {{"case", w.name}, {"devices", w.pair}});
    EXPECT_EQ(v.value, w.value) << w.name << " " << w.pair;
    EXPECT_EQ(v.labels["verdict"], w.verdict) << w.name << " " << w.pair;
    EXPECT_EQ(v.labels["expected"], w.expected) << w.name << " " << w.pair;
    EXPECT_EQ(v.labels["binary"], std::string(w.name).substr(0, 7));  // repro_x, repro_y
  }
  for (const Row& r : s.rows)
    EXPECT_EQ(one(p, "vmem_repro_case_changed", {{"case", r.name}, {"devices", pair_key(r.pair)}}).value,
              r.changed() ? 1 : 0)
        << r.name << " " << pair_key(r.pair);
}

// Two rows of one case and pair (two records of one run) are one series, the first row's: a series twice makes
// node_exporter refuse the scrape.
TEST(Prom, OneCaseAndPairIsOneSeries) {
  const Summary s =
      summary_of({row("repro_x.read", "0-1", "PASS", "PASS", false), row("repro_x.read", "0-1", "PASS", "FAIL", true)});
  const Parsed p = parse(prom_textfile(s, kFacts));
  ASSERT_TRUE(p.errors.empty()) << p.errors[0];
  EXPECT_EQ(one(p, "vmem_repro_case_verdict", {{"case", "repro_x.read"}}).value, 0);
}

// A label value holding `"`, `\` and a newline reads back as it was (and a newline cannot start a forged line).
TEST(Prom, LabelValuesAreEscaped) {
  const std::string odd = "repro_x.a\"b\\c\nrepro_x_forged 1";
  const std::string text = prom_textfile(summary_of({row(odd, "0-1", "PASS", "PASS", false)}), kFacts);
  EXPECT_NE(text.find("case=\"repro_x.a\\\"b\\\\c\\nrepro_x_forged 1\""), std::string::npos) << text;
  const Parsed p = parse(text);
  ASSERT_TRUE(p.errors.empty()) << p.errors[0];
  EXPECT_EQ(one(p, "vmem_repro_case_verdict", {{"devices", "0-1"}}).labels["case"], odd);
  EXPECT_EQ(prom_label_value("a\xff"
                             "b"),
            "a\xef\xbf\xbd"
            "b");  // invalid UTF-8 as U+FFFD
}

// A control byte the format has no escape for (CR, NUL, TAB, ESC, DEL) is never written raw: a CR would split the
// line for a line-based reader and a NUL cut it short. Each reads back as the text the reports show, "\x0d".
TEST(Prom, ControlBytesInALabelReadBackAsVisibleEscapes) {
  const std::string odd = std::string("repro_x.a\rb") + '\0' + "c\td\x1b" + "e\x7f";
  const std::string text = prom_textfile(summary_of({row(odd, "0-1", "PASS", "PASS", false)}), kFacts);
  const Parsed p = parse(text);
  for (const auto& e : p.errors) ADD_FAILURE() << e;
  EXPECT_EQ(one(p, "vmem_repro_case_verdict", {{"devices", "0-1"}}).labels["case"],
            "repro_x.a\\x0db\\x00c\\x09d\\x1be\\x7f");
  EXPECT_EQ(prom_label_value("\r"), "\\\\x0d");       // the backslash of \x0d escaped: the format's \\ for a backslash
  EXPECT_EQ(prom_label_value("a\\x0d"), "a\\\\x0d");  // a backslash the name holds: the same text, as in report.md
}

// HELP escapes only \ and newline (a \" there is an unknown escape); a control byte is a visible \xNN there too.
TEST(Prom, HelpTextIsEscapedAsTheFormatReadsIt) {
  EXPECT_EQ(prom_help_text("a \"b\" c\\d\ne\rf"), "a \"b\" c\\\\d\\ne\\\\x0df");
  std::string help;
  ASSERT_TRUE(unescape_help(prom_help_text(std::string("x\\y\n\"z\" ") + '\0'), &help));
  EXPECT_EQ(help, "x\\y\n\"z\" \\x00");
}

// GB/s becomes bytes/s, ops/s stays, and a unit neither family holds (a ratio) is left out.
TEST(Prom, BandwidthIsScaledToBytesAndAtomicsKept) {
  const std::vector<Row> runs = {
      run_with("repro_cuda_vmm", "read", "0-1",
               {{"peer_read_kernel_GBps", 12.5, "GB/s"},
                {"peer_read_copy_GBps", 0.25, "GB/s"},
                {"kernel_over_copy_bandwidth", 50, "ratio"}}),
      run_with("repro_cuda_vmm", "atomics", "1-0", {{"remote_system_atomics_per_s", 3.5e6, "ops/s"}}),
  };
  const Parsed p = parse(prom_textfile(with_metrics(summary_of({}), runs), kFacts));
  ASSERT_TRUE(p.errors.empty()) << p.errors[0];
  const std::string bw = "vmem_repro_read_bandwidth_bytes_per_second";
  EXPECT_EQ(one(p, bw, {{"metric", "peer_read_kernel_GBps"}}).value, 12.5e9);
  Sample copy = one(p, bw, {{"metric", "peer_read_copy_GBps"}});
  EXPECT_EQ(copy.value, 0.25e9);
  EXPECT_EQ(copy.labels["case"], "repro_cuda_vmm.read");
  EXPECT_EQ(copy.labels["exporter"], "0");
  EXPECT_EQ(copy.labels["importer"], "1");
  EXPECT_EQ(samples_of(p, bw).size(), 2u);
  Sample ops = one(p, "vmem_repro_atomics_per_second", {{"metric", "remote_system_atomics_per_s"}});
  EXPECT_EQ(ops.value, 3.5e6);
  EXPECT_EQ(ops.labels["exporter"], "1");
  EXPECT_EQ(ops.labels["importer"], "0");
  for (const auto& s : p.samples)
    EXPECT_NE(s.labels.count("metric") ? s.labels.at("metric") : "", "kernel_over_copy_bandwidth");
}

// A pair names its exporter and importer, the diagonal's "0-0" the same GPU twice; a mesh and a host run neither.
TEST(Prom, MeshSameGpuAndHostRowsNameTheirDevices) {
  const Summary s = summary_of(
      {row("repro_x.read", "0-1-2-3", "PASS", "PASS", false), row("repro_x.read", "0-0", "PASS", "PASS", false),
       row("repro_x.read", "3-3", "PASS", "FAIL", true), row("repro_host_shm.read", "", "PASS", "PASS", false)});
  const std::vector<Row> runs = {run_with("repro_x", "read", "0-0", {{"peer_read_kernel_GBps", 2, "GB/s"}}),
                                 run_with("repro_x", "read", "0-1-2-3", {{"peer_read_kernel_GBps", 1, "GB/s"}})};
  const Parsed p = parse(prom_textfile(with_metrics(s, runs), kFacts));
  ASSERT_TRUE(p.errors.empty()) << p.errors[0];
  struct Want {
    const char *devices, *exporter, *importer;
  };
  for (const Want& w : {Want{"0-1-2-3", "", ""}, Want{"0-0", "0", "0"}, Want{"3-3", "3", "3"}, Want{"", "", ""}}) {
    for (const char* family : {"vmem_repro_case_verdict", "vmem_repro_case_changed"}) {
      Sample v = one(p, family, {{"devices", w.devices}});
      EXPECT_EQ(v.labels["exporter"], w.exporter) << family << " " << w.devices;
      EXPECT_EQ(v.labels["importer"], w.importer) << family << " " << w.devices;
    }
  }
  Sample diagonal = one(p, "vmem_repro_read_bandwidth_bytes_per_second", {{"devices", "0-0"}});
  EXPECT_EQ(diagonal.labels["exporter"], "0");
  EXPECT_EQ(diagonal.labels["importer"], "0");
  EXPECT_EQ(diagonal.value, 2e9);
  EXPECT_EQ(one(p, "vmem_repro_read_bandwidth_bytes_per_second", {{"devices", "0-1-2-3"}}).labels["exporter"], "");
  EXPECT_EQ(one(p, "vmem_repro_case_verdict", {{"devices", "3-3"}}).value, 1);
}

// Every family once, HELP and TYPE before its samples, in a fixed order; the triage's own facts as given.
TEST(Prom, EveryFamilyOnceWithHelpAndTypeAndTheTriageFacts) {
  Summary s =
      summary_of({row("repro_x.read", "0-1", "PASS", "PASS", false), row("repro_x.read", "1-0", "PASS", "FAIL", true),
                  row("repro_x.read", "0-0", "PASS", "SKIP", false, true)});
  const std::vector<Row> runs = {
      run_with("repro_x", "read", "0-1", {{"peer_verify_GBps", 1, "GB/s"}, {"remote_atomics_per_s", 5, "ops/s"}})};
  const std::string text = prom_textfile(with_metrics(s, runs), kFacts);
  const Parsed p = parse(text);
  for (const auto& e : p.errors) ADD_FAILURE() << e;
  const std::vector<std::string> families = {"vmem_repro_case_verdict",
                                             "vmem_repro_case_changed",
                                             "vmem_repro_read_bandwidth_bytes_per_second",
                                             "vmem_repro_atomics_per_second",
                                             "vmem_repro_triage_duration_seconds",
                                             "vmem_repro_triage_exit_code",
                                             "vmem_repro_triage_outcome",
                                             "vmem_repro_triage_finished_timestamp_seconds",
                                             "vmem_repro_triage_rows"};
  EXPECT_EQ(p.families, families);
  for (const auto& f : families) EXPECT_FALSE(p.help.at(f).empty()) << f;
  EXPECT_EQ(one(p, "vmem_repro_triage_duration_seconds", {}).value, 12.5);
  EXPECT_EQ(one(p, "vmem_repro_triage_exit_code", {}).value, 1);
  EXPECT_EQ(one(p, "vmem_repro_triage_finished_timestamp_seconds", {}).value, 1700000000);
  EXPECT_EQ(samples_of(p, "vmem_repro_triage_outcome").size(), 4u);
  for (const char* o : {"as_expected", "changed", "nothing_ran", "error"})
    EXPECT_EQ(one(p, "vmem_repro_triage_outcome", {{"outcome", o}}).value, std::string(o) == "changed") << o;
  EXPECT_EQ(one(p, "vmem_repro_triage_rows", {{"status", "ok"}}).value, 1);
  EXPECT_EQ(one(p, "vmem_repro_triage_rows", {{"status", "changed"}}).value, 1);
  EXPECT_EQ(one(p, "vmem_repro_triage_rows", {{"status", "not_run"}}).value, 1);
  // The same triage in another row order is the same bytes.
  std::reverse(s.rows.begin(), s.rows.end());
  EXPECT_EQ(prom_textfile(with_metrics(s, runs), kFacts), text);
  // A family without samples is left out, not written as HELP and TYPE alone.
  EXPECT_EQ(parse(prom_textfile(summary_of({}), kFacts)).families.size(), families.size() - 4);
}

TEST(Prom, OutcomesAndValuesAsTheTextFormatReadsThem) {
  EXPECT_EQ(prom_outcome(0), "as_expected");
  EXPECT_EQ(prom_outcome(1), "changed");
  EXPECT_EQ(prom_outcome(77), "nothing_ran");
  EXPECT_EQ(prom_outcome(99), "error");
  EXPECT_EQ(prom_outcome(2), "error");
  EXPECT_EQ(prom_value(1.5), "1.5");
  EXPECT_EQ(prom_value(0), "0");
  EXPECT_EQ(prom_value(NAN), "NaN");
  EXPECT_EQ(prom_value(INFINITY), "+Inf");
  EXPECT_EQ(prom_value(-INFINITY), "-Inf");
  double back = 0;
  for (double v : {12.5e9, 1.0 / 3, 1700000000.0, 3.5e-7}) {
    ASSERT_TRUE(sample_value(prom_value(v), &back)) << prom_value(v);
    EXPECT_EQ(back, v) << prom_value(v);
  }
}

// Every case-level metric of a record, as numbers, beside the short first metric the reports already show.
TEST(RunRecords, KeepEveryMetricOfACase) {
  char dir[] = "/tmp/vmr-prom-record-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/repro_x.0-1.json";
  vmr::ScopeExit cleanup([&] {
    ::unlink(path.c_str());
    ::rmdir(dir);
  });
  {
    std::ofstream f(path);
    f << R"({"schema":"vmem-repro-run/1","binary":"repro_x","backend":"cuda","verdict":"PASS",
      "options":{"devices":[0,1],"device_source":"--devices"},
      "cases":[{"case":"read","verdict":"PASS","detail":"ok","metrics":{
        "peer_read_kernel_GBps":{"value":12.5,"unit":"GB/s"},
        "peer_read_copy_GBps":{"value":20,"unit":"GB/s"},
        "kernel_over_copy_bandwidth":{"value":0.625,"unit":"ratio"}},"ranks":[]}]})";
  }
  const std::vector<vmr_tools::Run> runs = read_record(dir, "repro_x.0-1.json");
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_TRUE(runs[0].error.empty()) << runs[0].error;
  EXPECT_EQ(runs[0].metric, "12.5 GB/s");
  ASSERT_EQ(runs[0].metrics.size(), 3u);
  EXPECT_EQ(runs[0].metrics[0].name, "peer_read_kernel_GBps");
  EXPECT_EQ(runs[0].metrics[1].value, 20);
  EXPECT_EQ(runs[0].metrics[2].unit, "ratio");
  EXPECT_EQ(runs[0].pair, "0-1");
}

// node_exporter reads every *.prom of its folder: the file being written must not be one until it is whole.
TEST(Prom, TheTemporaryFileIsNoPromFile) {
  char dir[] = "/tmp/vmr-prom-tmp-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/triage.prom";
  vmr::UniqueFd watch(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  ASSERT_TRUE(watch.valid());
  vmr::ScopeExit cleanup([&] {
    ::unlink(path.c_str());
    ::rmdir(dir);
  });
  ASSERT_GE(::inotify_add_watch(watch.get(), dir, IN_CREATE | IN_MOVED_TO), 0);
  ASSERT_TRUE(write_report(path, "# HELP a x\n# TYPE a gauge\na 1\n").ok());
  std::vector<std::string> created, moved;
  alignas(inotify_event) char buf[4096];
  for (ssize_t n; (n = ::read(watch.get(), buf, sizeof buf)) > 0;)
    for (char* at = buf; at < buf + n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(at);
      (e->mask & IN_CREATE ? created : moved).push_back(e->len ? e->name : "");
      at += sizeof(inotify_event) + e->len;
    }
  ASSERT_FALSE(created.empty()) << "no temporary file seen";
  for (const auto& name : created)
    EXPECT_FALSE(name.size() >= 5 && name.compare(name.size() - 5, 5, ".prom") == 0) << name;
  EXPECT_EQ(moved, std::vector<std::string>{"triage.prom"});
}
