#!/usr/bin/python3
# Hostile text in every field that reaches the suite's Markdown (bug-report.md, fleet.md, report.md) renders as the
# text it is, under GitHub's own renderer (Debian's cmark-gfm, with GitHub's extensions: tables, autolinks,
# strikethrough, task lists). Each report is made twice from the same fabricated results: once with a plain word in
# every field (the template) and once with hostile text there (headings, raw HTML, links, autolinks, @mentions, table
# pipes, newlines, lines of ``` and ~~~, backslashes). The hostile report must render to exactly the template's
# elements (no heading, link, image, HTML, list, table cell or code block of its own, every fence closing where the
# template's does), with no GitHub mention in its text, and every hostile value still readable in it.
#   usage: markdown_hostile.py REPO BUILD_DIR WORK_DIR
import html.parser
import json
import os
import re
import shutil
import socket
import subprocess
import sys

repo, build, work = sys.argv[1:4]
fails = []

# Every attack at once: a heading where the value starts a line, then HTML, links and autolinks of each kind,
# mentions and an issue reference, a table's pipes, emphasis, math, an entity, backslashes, and after newlines a
# fence of each kind, a list item and a heading.
HOSTILE = ("# x <img src=x onerror=alert(1)> [a](http://e) <http://e> http://e www.e.com @alice a@b.com #1 "
           "| pipes | *em* _u_ ~~s~~ $m$ &amp; <!-- back\\slash\\\n```\n~~~\n- item\n# y")


def value(mode, label, without=""):
    """A field's text: the label alone (the template), or the hostile text ending with the label (so each field's
    text is found apart from the others'), less the characters `without` (a file name's '/', a pair's '-')."""
    text = label if mode == "plain" else f"{HOSTILE} {label}"
    return "".join(c for c in text if c not in without)


def one_line(text):
    """The text as one line, as the tools write outside text (a control byte as \\xNN)."""
    return re.sub(r"[\x00-\x1f\x7f]", lambda m: "\\x%02x" % ord(m.group()), text)


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f)


def record(binary, case, verdict, detail, devices=None, env=None, info=None, stderr=None, backend="hip"):
    """A run record as a triage leaves it (vmem-repro-run/1)."""
    return {"schema": "vmem-repro-run/1", "binary": binary, "backend": backend, "verdict": verdict,
            "environment": env or {"os": "test"},
            "options": {"ranks": 2, "devices": devices or [0, 1],
                        "device_source": "--devices" if devices else "default 0..N-1"},
            "cases": [{"case": case, "verdict": verdict, "detail": detail, "metrics": {},
                       "ranks": [{"info": info or {}, "stderr_tail": []},
                                 {"info": {}, "stderr_tail": stderr or []}]}]}


def run(cmd, env=None, ok=(0,)):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, errors="replace")
    if p.returncode not in ok:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return p


def summarise(results):
    """The folder's summary.json as its triage writes it (check_expected's one comparison of its records), which
    bug-report and the fleet read."""
    run([os.path.join(build, "bin/check_expected"), "--table", os.path.join(repo, "expected/verdicts.md"), "--results",
         results, "--summary-json", os.path.join(results, "summary.json")], ok=(0, 1))


def bug_report(mode):
    """bug-report.md of a crash with a minimal reproducer and of a case of a binary unknown to the suite. Hostile: its
    results folder's name, details, names, every GPU and ROCm fact, a rank's stderr lines, the kernel line, rocminfo's
    output and an environment variable collect-env shows."""
    v = lambda label: value(mode, label)
    # (Its name is in the report's opening HTML comment only: one comment, whatever it holds.)
    results = os.path.join(work, mode, "bug", value(mode, "folder", "/"))
    shutil.rmtree(os.path.dirname(results), ignore_errors=True)
    os.makedirs(results)
    info = {k: v(k) for k in ("device", "device_name", "gfx_arch", "pci_bus_id", "uuid", "xnack_enabled",
                              "kfd_hive_id", "rocm_release", "hip_version", "rocm_install", "hip_headers")}
    stderr = [v("stderr"), "```", "~~~", "````", "    indented"] if mode == "hostile" else ["stderr"] * 5
    # (The detail also names a home folder and this host, inline text that the redaction replaces.)
    detail = v("detail") + f" in /home/alice/vmr on {socket.gethostname()}"
    write_json(os.path.join(results, "repro_hip_vmem_pinned.atomics.0-1.json"),
               record("repro_hip_vmem_pinned", "atomics", "CRASH", detail, [0, 1], info=info, stderr=stderr))
    write_json(os.path.join(results, "other.json"),
               record(v("binary"), v("case"), "FAIL", v("detail2"), [1, 0], stderr=[v("stderr2")]))
    # collect-env runs uname -a and rocminfo from PATH: stand-ins that print hostile text (the rest is the node's).
    shims = os.path.join(work, mode, "shims")
    os.makedirs(shims, exist_ok=True)
    real_uname = shutil.which("uname")
    for name, text in (("uname", v("kernel")), ("rocminfo", v("rocminfo"))):
        path = os.path.join(shims, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n")
            if name == "uname":  # only the kernel line's uname -a; the host's name stays the host's (redaction)
                f.write(f'[ "$1" = -a ] || exec {real_uname} "$@"\n')
            f.write("cat <<'EOF'\n" + text + "\nEOF\n")
        os.chmod(path, 0o755)
    # (collect-env lists a variable by its first line: the hostile value is one line.)
    env = dict(os.environ, BUILD_DIR=build, PATH=shims + ":" + os.environ["PATH"],
               HSA_HOSTILE=value(mode, "variable", "\n"))
    summarise(results)
    run([os.path.join(repo, "scripts/bug-report"), results], env=env)
    fields = list(info) + ["stderr", "detail", "binary", "case", "detail2", "stderr2", "kernel", "rocminfo",
                           ("variable", "\n")]
    return open(os.path.join(results, "bug-report.md"), encoding="utf-8").read(), fields


def fleet(mode):
    """fleet.md of three nodes and one the job listed that left no folder. Hostile: the node names, the names of a
    case one node FAILs, the key and value of the fact that sets it apart, the values of a fact that differs with no
    verdict change, the name of a record that cannot be read (a problem), the silent node's name."""
    v = lambda label: value(mode, label)
    top = os.path.join(work, mode, "fleet")
    shutil.rmtree(top, ignore_errors=True)
    for i in (1, 2, 3):
        d = os.path.join(top, f"n{i}")
        # n1's own fact sets its FAIL apart; HSA_OTHER, which n1 does not report, differs with no verdict change.
        variables = {v("factkey"): v("factvalue")} if i == 1 else {"HSA_OTHER": v(f"other{i}")}
        env = {"node": v(f"node{i}"), "kernel": "Linux 6.1", "variables": variables}
        write_json(os.path.join(d, "repro_host_shm.read.json"),
                   record("repro_host_shm", "read", "PASS", "read exactly", env=env, backend="host"))
        write_json(os.path.join(d, "odd.json"),
                   record(v("fbinary"), v("fcase"), "FAIL" if i == 1 else "PASS", "x", env=env, backend="host"))
    with open(os.path.join(top, "n3", value(mode, "record", "/") + ".json"), "w") as f:
        f.write('{"schema":"vmem-repro-run/1","cases":[')
    for i in (1, 2, 3):
        summarise(os.path.join(top, f"n{i}"))
    out = os.path.join(top, "out")
    os.makedirs(out)
    with open(os.path.join(out, "nodes.txt"), "w") as f:
        f.write(value(mode, "silent", "\n") + "\n")  # (a line each: that one's name has no newline)
    run([os.path.join(build, "bin/fleet_report"), "--out", out,
         "--nodes", os.path.join(out, "nodes.txt")] + [os.path.join(top, f"n{i}") for i in (1, 2, 3)], ok=(1,))
    fields = ["node1", "node2", "node3", "fbinary", "fcase", "factkey", "factvalue", "other2", "other3",
              ("record", "/"), ("silent", "\n")]
    return open(os.path.join(out, "fleet.md"), encoding="utf-8").read(), fields


def triage_report(mode):
    """The triage's report.md (check_expected --report-md) over a summary.json whose every field of a row is
    hostile (a summary is read back, so a crafted one is outside text too), with hostile run facts."""
    v = lambda label: value(mode, label)
    top = os.path.join(work, mode, "report")
    shutil.rmtree(top, ignore_errors=True)
    # (summary/2 holds a pair as GPU indices and the observed verdict as a name of one or null: neither is text a
    # crafted summary can carry; every text field is hostile. A metric's unit reaches the matrix.)
    def row(name, observed, standing):
        return {"name": name, "binary": v("rbinary"), "case": v("rcasename"), "gpus": [0, 1], "observed": observed,
                "standing": standing, "why_not_run": v("why"), "allowed": ["PASS"], "reasons": [v("reason")],
                "expected": v("expected"), "result": v("result"), "detail": "d", "evidence": "e",
                "issues": [v("thread")], "metrics": [{"name": v("mname"), "value": 1.5, "unit": v("metric")}]}
    # (A row points to its issues only where it observed a verdict of the node's: the first observed none, so the
    # hostile issue is also carried by a FAIL row.)
    rows = [row(v("rcase"), None, "missing_record"), row("tcase", "FAIL", "changed_verdict")]
    write_json(os.path.join(top, "summary.json"),
               {"schema": "vmem-repro-summary/2", "ok": 0, "changed": 2, "not_run": 0, "table_problems": 0,
                "problem_lines": [], "node": {v("nodefact"): v("nodevalue")}, "rows": rows})
    out = os.path.join(top, "report.md")
    run([os.path.join(build, "bin/check_expected"), "--report-md", out, "--summary", os.path.join(top, "summary.json"),
         "--launches", "1", "--took", "1", "--modelled", "1", "--concurrency", v("concurrency"),
         "--note", v("note")])
    fields = ["rcase", "expected", "result", "metric", "thread", "concurrency", "note"]
    return open(out, encoding="utf-8").read(), fields


class Elements(html.parser.HTMLParser):
    """The elements of rendered HTML in order (tags, comments: what the Markdown made), the text a reader sees, and
    the text GitHub looks for mentions in (outside code, pre and links)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements, self.text, self.linkable, self.quiet = [], [], [], 0

    def handle_starttag(self, tag, attrs):
        self.elements.append(f"<{tag}>")
        self.quiet += tag in ("code", "pre", "a")

    def handle_startendtag(self, tag, attrs):
        self.elements.append(f"<{tag}/>")

    def handle_endtag(self, tag):
        self.elements.append(f"</{tag}>")
        self.quiet -= tag in ("code", "pre", "a")

    def handle_comment(self, data):
        self.elements.append("<!--comment-->")

    def handle_data(self, data):
        self.text.append(data)
        if not self.quiet:
            self.linkable.append(data)


def render(markdown):
    # --unsafe: raw HTML stays the element it would be (not a placeholder), so an injected tag is an element here.
    html_text = subprocess.run(["cmark-gfm", "--unsafe", "-e", "table", "-e", "autolink", "-e", "strikethrough",
                                "-e", "tasklist"], input=markdown, capture_output=True, text=True, check=True).stdout
    e = Elements()
    e.feed(html_text)
    e.close()
    return e, html_text


def check(name, make):
    template, fields = make("plain")
    hostile, _ = make("hostile")
    t, _ = render(template)
    h, h_html = render(hostile)
    if t.elements != h.elements:
        at = next((i for i, (a, b) in enumerate(zip(t.elements, h.elements)) if a != b),
                  min(len(t.elements), len(h.elements)))
        fails.append(f"{name}: the hostile report renders other elements than its template, from element {at}: "
                     f"template {t.elements[at:at + 6]}, hostile {h.elements[at:at + 6]}\n--- its HTML:\n{h_html}")
    # GitHub's mention and issue reference: @ or # right before a name, where a word does not go on before it.
    linkable = "".join(h.linkable)
    for m in re.finditer(r"(?:^|[^\w])([@#][A-Za-z0-9])", linkable):
        fails.append(f"{name}: GitHub would link '{m.group(1)}' in: ...{linkable[max(0, m.start() - 40):m.end() + 20]}")
    # The word joiner that keeps them apart is invisible: a reader sees the hostile text as it was.
    seen = "".join(h.text).replace("\u2060", "")
    for field in fields:
        label, without = field if isinstance(field, tuple) else (field, "")
        wanted = value("hostile", label, without)
        if one_line(wanted) not in seen and wanted not in seen:
            fails.append(f"{name}: the text of field '{label}' is not in the rendered report as it was:\n{seen}")
    # What the redaction put in place of a home folder's user and this host is text a reader sees (GitHub hides a
    # placeholder that reads as an HTML tag), and neither name is left.
    if name == "bug-report.md":
        for mode, r in (("template", t), ("hostile", h)):
            text = "".join(r.text)
            for at in [m.start() for m in re.finditer("in /home/", text)] or [-1]:
                m = re.compile(r"in /home/(\S+)/vmr on (\S+)").match(text, max(at, 0)) if at >= 0 else None
                host = socket.gethostname()
                if not m or m.group(1) == "alice" or (len(host) >= 2 and host in m.group(2)):
                    fails.append(f"{name} ({mode}): the redacted 'in /home/alice/vmr on {host}' reads "
                                 f"'{text[at:at + 40] if at >= 0 else '(nothing)'}' once rendered")
    print(f"{name}: {len(h.elements)} elements checked against its template's, {len(fields)} hostile fields")


if not shutil.which("cmark-gfm"):
    sys.exit("FAIL: cmark-gfm is not installed (scripts/test installs it: apt-get install cmark-gfm)")
check("bug-report.md", bug_report)
check("fleet.md", fleet)
check("report.md", triage_report)
for f in fails:
    print("FAIL:", f, file=sys.stderr)
sys.exit(1 if fails else 0)
