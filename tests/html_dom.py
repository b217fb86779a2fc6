#!/usr/bin/env python3
"""Checks fleet.html and report.html as a browser built them: each DOM is the one headless Chromium dumped
(--dump-dom), parsed here with html.parser, and compared with what the pages were made from (fleet.json, each
node's run records and summary.json; a triage's summary.json and records). tests/html_chromium.sh runs it.

  html_dom.py fleet DOM FLEET_JSON HOSTILE_TEXT...   every node x case cell, its verdict and hover text, the order
  html_dom.py report DOM RESULTS_DIR                 every pair's matrix cell and every row of summary.json
  html_dom.py count DOM NODES CASES                  a heatmap of NODES rows of CASES cells (the 500 x 30 page)
  html_dom.py raw FILE HOSTILE_TEXT...               the file as written: nothing that loads, no script
Exit 0 all hold, 1 naming the first that does not."""
import glob
import html
import json
import os
import sys
from html.parser import HTMLParser

VOID = {"meta", "br", "hr", "img", "input", "link", "source", "wbr", "col", "area", "base", "embed", "param", "track"}
# Every element the pages may hold: none of them loads anything or runs a script.
ALLOWED = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "div", "span", "table", "thead",
           "tbody", "tr", "th", "td", "ul", "li", "code", "details", "summary"}
LOADING_ATTRIBUTES = {"src", "href", "srcset", "action", "formaction", "poster", "data", "background", "ping"}
PRECEDENCE = ["SKIP", "USAGE", "PASS", "FAIL", "CRASH", "HANG", "HARNESS"]  # case_summary_precedence, least first
CHANGED_STANDINGS = {"changed_verdict", "changed_reason", "no_row", "missing_record", "unreadable_record"}


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


class Element:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def elements(self):
        for c in self.children:
            if isinstance(c, Element):
                yield c
                yield from c.elements()

    def find_all(self, tag):
        return [e for e in self.elements() if e.tag == tag]

    def kids(self, tag):
        return [c for c in self.children if isinstance(c, Element) and c.tag == tag]

    def classes(self):
        return set(self.attrs.get("class", "").split())


class Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", [], None)
        self.at = self.root

    def handle_starttag(self, tag, attrs):
        e = Element(tag, attrs, self.at)
        self.at.children.append(e)
        if tag not in VOID:
            self.at = e

    def handle_endtag(self, tag):
        e = self.at
        while e is not None and e.tag != tag:
            e = e.parent
        if e is not None and e.parent is not None:
            self.at = e.parent

    def handle_data(self, data):
        self.at.children.append(data)


def parse(path):
    b = Builder()
    with open(path, encoding="utf-8") as f:
        b.feed(f.read())
    return b.root


def check_safe(doc, what):
    """Only the allowed elements, no attribute that loads or runs anything, and the policy that forbids every load."""
    for e in doc.elements():
        if e.tag not in ALLOWED:
            fail("%s has a <%s> element (only %s may be there)" % (what, e.tag, ", ".join(sorted(ALLOWED))))
        for name, value in e.attrs.items():
            if name in LOADING_ATTRIBUTES or name.startswith("on"):
                fail("%s: <%s %s=%r>" % (what, e.tag, name, value))
    policies = [m.attrs.get("content", "") for m in doc.find_all("meta")
                if m.attrs.get("http-equiv", "").lower() == "content-security-policy"]
    if not any("default-src 'none'" in p for p in policies):
        fail("%s has no Content-Security-Policy forbidding every load: %r" % (what, policies))
    for style in doc.find_all("style"):
        if "url(" in style.text() or "@import" in style.text():
            fail("%s's style sheet loads something" % what)


def heatmap_of(doc, what):
    tables = [t for t in doc.find_all("table") if t.attrs.get("id") == "heatmap"]
    if len(tables) != 1:
        fail("%s has %d heatmaps" % (what, len(tables)))
    t = tables[0]
    head_rows = t.kids("thead")[0].kids("tr")
    cases = [th.text() for th in head_rows[0].kids("th")[1:]]
    body_rows = t.kids("tbody")[0].kids("tr")
    return cases, head_rows[1], body_rows


def worst(verdicts):
    return max(verdicts, key=PRECEDENCE.index)


def node_records(folder):
    """(binary.case) -> the verdicts of the node's run records, and the cases its summary.json says CHANGED."""
    verdicts = {}
    for path in glob.glob(os.path.join(folder, "*.json")):
        with open(path, encoding="utf-8", errors="replace") as f:
            try:
                record = json.load(f)
            except ValueError:
                continue
        if record.get("schema") != "vmem-repro-run/1":
            continue
        for c in record.get("cases", []):
            verdicts.setdefault(record["binary"] + "." + c["case"], []).append(c["verdict"])
    changed = set()
    summary_path = os.path.join(folder, "summary.json")
    if os.path.exists(summary_path):
        with open(summary_path, encoding="utf-8") as f:
            for row in json.load(f)["rows"]:
                if row["standing"] in CHANGED_STANDINGS:
                    changed.add(row["name"])
    return verdicts, changed


def check_fleet(dom_path, fleet_json, hostile):
    doc = parse(dom_path)
    check_safe(doc, "fleet.html")
    with open(fleet_json, encoding="utf-8") as f:
        fleet = json.load(f)
    cases, majority_row, rows = heatmap_of(doc, "fleet.html")
    # The cases some node differs in first, then the rest (fleet.json's order within each).
    differ_cases = {d["case"] for d in fleet["differences"]}
    ordered = sorted(fleet["cases"], key=lambda c: c["case"] not in differ_cases)
    want_cases = [c["case"] for c in ordered]
    if cases != want_cases:
        fail("the heatmap's cases are %r, want %r (those some node differs in first)" % (cases, want_cases))
    if not differ_cases or cases[0] not in differ_cases:
        fail("no case some node differs in leads the heatmap: %r" % cases[:3])
    for td, c in zip(majority_row.kids("td"), ordered):
        if td.text() != c["majority"] or "v-" + c["majority"] not in td.classes():
            fail("the majority of %s reads %r (%s), fleet.json says %s" % (c["case"], td.text(), td.classes(),
                                                                           c["majority"]))
    nodes = {n["name"]: n for n in fleet["nodes"]}
    names = [r.kids("th")[0].text() for r in rows]
    if sorted(names) != sorted(nodes):
        fail("the heatmap's nodes are %r, fleet.json's %r" % (names, sorted(nodes)))
    # Nodes that differ first, then those that did not answer or have a problem, then the rest (fleet.json's order).
    differing = {n for d in fleet["differences"] for n in d["nodes"]}

    def group(name):
        n = nodes[name]
        return 0 if name in differing else 1 if not n["answered"] or n["problems"] else 2
    want_order = sorted((n["name"] for n in fleet["nodes"]), key=group)  # (stable: fleet.json's order within)
    if names != want_order:
        fail("the nodes are in the order %r, want %r (those that differ first)" % (names, want_order))
    cells = {c["case"]: c["cells"] for c in fleet["cases"]}
    checked = 0
    for r in rows:
        name = r.kids("th")[0].text()
        node = nodes[name]
        tds = r.kids("td")
        if len(tds) != len(cases):
            fail("node %r has %d cells for %d cases" % (name, len(tds), len(cases)))
        records, changed = node_records(node["folder"]) if node["answered"] else ({}, set())
        for case, td in zip(cases, tds):
            where = "node %r, case %s" % (name, case)
            if not node["answered"]:
                if td.text() != "n/a" or "v-silent" not in td.classes() or \
                        not td.attrs.get("title", "").startswith("did not answer: "):
                    fail("%s: a node that did not answer reads %r %s %r" % (where, td.text(), td.classes(),
                                                                             td.attrs.get("title")))
                continue
            if name not in cells[case]:
                if td.text() != "-" or "v-none" not in td.classes():
                    fail("%s: no cell in fleet.json, the page reads %r" % (where, td.text()))
                continue
            if td.attrs.get("title") != cells[case][name]:
                fail("%s: the hover text is %r, the cell's text %r" % (where, td.attrs.get("title"),
                                                                        cells[case][name]))
            want = worst(records[case]) if case in records else None
            if want is None or td.text() != want or "v-" + want not in td.classes():
                fail("%s: the cell reads %r (%s), the node's records say %s" % (where, td.text(), td.classes(), want))
            if ("changed" in td.classes()) != (case in changed):
                fail("%s: outlined as CHANGED: %s, its summary.json's CHANGED rows: %s" % (
                    where, "changed" in td.classes(), sorted(changed)))
            checked += 1
    # Beside the map: each difference's separating facts, and the facts that differ with no verdict change.
    codes = {c.text() for c in doc.find_all("code")}
    for d in fleet["differences"]:
        for fact in d["separating_facts"]:
            if "%s = %s" % (fact["fact"], fact["value"]) not in codes:
                fail("the fact %s = %s setting %s apart is not beside the map" % (fact["fact"], fact["value"],
                                                                                  d["case"]))
    for key in fleet["facts_without_verdict_change"]:
        if key not in codes:
            fail("the fact %s that differs with no verdict change is not beside the map" % key)
    # Hostile text (a node's name, a fact's value) is text: read back exactly, and no element of its making.
    texts = {e.text() for e in doc.elements()}
    for h in hostile:
        if not any(h in t for t in texts):
            fail("the hostile text %r is not on the page as text" % h)
    print("fleet.html: %d nodes x %d cases, %d cells checked against the records; %d differing node(s) first" % (
        len(rows), len(cases), checked, len(differing)))


def check_report(dom_path, results):
    doc = parse(dom_path)
    check_safe(doc, "report.html")
    with open(os.path.join(results, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    # Every pair run of the records: (case, exporter, importer) -> verdict.
    pairs = {}
    for path in glob.glob(os.path.join(results, "*.json")):
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        if record.get("schema") != "vmem-repro-run/1":
            continue
        devices = record.get("options", {}).get("devices", [])
        if len(devices) != 2 or record.get("options", {}).get("device_source") != "--devices":
            continue
        for c in record["cases"]:
            pairs[(record["binary"] + "." + c["case"], str(devices[0]), str(devices[1]))] = c["verdict"]
    if not pairs:
        fail("the triage in %s left no pair run: nothing to check report.html's matrices against" % results)
    matrices = {t.attrs["data-case"]: t for t in doc.find_all("table") if "matrix" in t.classes()}
    changed_cases = {r["name"] for r in summary["rows"] if r["standing"] in CHANGED_STANDINGS}
    for (case, e, i), verdict in sorted(pairs.items()):
        m = matrices.get(case)
        if m is None:
            fail("report.html has no matrix of %s" % case)
        trs = m.find_all("tr")
        columns = [th.text() for th in trs[0].kids("th")[1:]]
        row = [tr for tr in trs[1:] if tr.kids("th")[0].text() == "GPU " + e]
        if not row or "GPU " + i not in columns:
            fail("%s's matrix has no cell for exporter GPU %s, importer GPU %s" % (case, e, i))
        td = row[0].kids("td")[columns.index("GPU " + i)]
        if td.text().split(" ")[0] != verdict or "v-" + verdict not in td.classes():
            fail("%s %s->%s: the matrix reads %r (%s), the record says %s" % (case, e, i, td.text(), td.classes(),
                                                                             verdict))
        if ("changed" in td.classes()) != (case in changed_cases):
            fail("%s %s->%s: outlined as CHANGED: %s, summary.json: %s" % (case, e, i, "changed" in td.classes(),
                                                                          case in changed_cases))
    rows_tables = [t for t in doc.find_all("table") if "rows" in t.classes()]
    trs = rows_tables[0].find_all("tr")[1:]
    got = [(tr.kids("td")[0].text(), tr.kids("td")[1].text(), tr.kids("td")[3].text()) for tr in trs]

    def shown(r):
        return (r["name"], "-" if not r["gpus"] else "-".join(str(g) for g in r["gpus"]),
                r["observed"] or ("?" if r["standing"] == "unreadable_record" else "-"))
    want = [shown(r) for r in summary["rows"] if r["standing"] in CHANGED_STANDINGS] + \
        [shown(r) for r in summary["rows"] if r["standing"] not in CHANGED_STANDINGS]
    if got != want:
        fail("report.html's rows are not summary.json's, CHANGED first:\n got %r\nwant %r" % (got[:8], want[:8]))
    print("report.html: %d pair cells in %d matrices checked against the records, %d rows" % (
        len(pairs), len(matrices), len(got)))


def check_count(dom_path, nodes, cases):
    doc = parse(dom_path)
    check_safe(doc, "fleet.html")
    got_cases, _, rows = heatmap_of(doc, "fleet.html")
    if len(got_cases) != cases or len(rows) != nodes:
        fail("the heatmap is %d nodes x %d cases, want %d x %d" % (len(rows), len(got_cases), nodes, cases))
    for r in rows:
        tds = r.kids("td")
        if len(tds) != cases or any(not any(c.startswith("v-") for c in td.classes()) or not td.text() for td in tds):
            fail("node %r's row is not %d coloured cells" % (r.kids("th")[0].text(), cases))
    print("fleet.html: %d nodes x %d cases, every cell there" % (nodes, cases))


def check_raw(path, hostile):
    """The file as written: the hostile texts (escaped as the page holds them) taken out, nothing may load or run."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for h in hostile:
        escaped = html.escape(h, quote=True).replace("&#x27;", "&#39;")
        text = text.replace(escaped, "")
        if "<script" in h.lower() and h in text:
            fail("%s holds the hostile text %r unescaped" % (path, h))
    for needle in ("http:", "https:", "//", "src=", "href=", "url(", "@import", "<script", "<link", "<img",
                   "<iframe", "<object", "<embed"):
        if needle in text.lower():
            at = text.lower().index(needle)
            fail("%s holds %r: ...%s..." % (path, needle, text[max(0, at - 60):at + 60]))
    print("%s: nothing that loads or runs" % os.path.basename(path))


def main():
    if len(sys.argv) < 3:
        fail("usage: see the top of " + sys.argv[0])
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "fleet":
        check_fleet(args[0], args[1], args[2:])
    elif mode == "report":
        check_report(args[0], args[1])
    elif mode == "count":
        check_count(args[0], int(args[1]), int(args[2]))
    elif mode == "raw":
        check_raw(args[0], args[1:])
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
