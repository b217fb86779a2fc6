#!/usr/bin/env python3
"""Asks a running Prometheus, through its HTTP API (/api/v1/query, /api/v1/rules), what tests/prom_server.sh checks,
waiting (bounded) for it to become true; exit 0 when it did, 1 with what Prometheus last said.

  prom_api.py gauges URL TEXTFILE WAIT_S   every vmem_repro_* series Prometheus holds now (instance and job aside) is
                                           a sample of TEXTFILE with its value, and every sample of it is there
  prom_api.py alerts URL WAIT_S JSON       the firing VmemRepro* alerts (ALERTS) are exactly those of JSON, a list of
                                           label sets each alert must carry (one alert per set)
  prom_api.py rules URL WAIT_S ALERT...    the rules loaded are the group vmem-repro with exactly these alerts, each
                                           evaluated without error
"""
import json
import re
import sys
import time
import urllib.parse
import urllib.request


# (No proxy: an http_proxy of the environment must not carry a request for 127.0.0.1 elsewhere.)
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def get(url, path, params=None):
    full = url + path + ("?" + urllib.parse.urlencode(params) if params else "")
    with OPENER.open(full, timeout=5) as answer:
        body = json.load(answer)
    if body.get("status") != "success":
        raise RuntimeError(f"{full}: {body}")
    return body["data"]


def query(url, expr):
    return get(url, "/api/v1/query", {"query": expr})["result"]


SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')
UNESCAPE = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


def textfile_samples(path):
    """The textfile's samples as {(name, sorted labels): value}, label values read back as the text format says."""
    samples = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            m = SAMPLE.match(line)
            if not m:
                raise ValueError(f"{path}: not a sample line: {line!r}")
            # (An empty label value is no label in Prometheus' data model: a host run's devices="" is not served.)
            labels = {k: re.sub(r'\\[\\"n]', lambda e: UNESCAPE[e.group(0)], v)
                      for k, v in LABEL.findall(m.group(2) or "") if v}
            samples[(m.group(1), tuple(sorted(labels.items())))] = float(m.group(3))
    return samples


def served_samples(url):
    served = {}
    for s in query(url, '{__name__=~"vmem_repro_.+"}'):
        labels = dict(s["metric"])
        name = labels.pop("__name__")
        labels.pop("instance", None)
        labels.pop("job", None)
        served[(name, tuple(sorted(labels.items())))] = float(s["value"][1])
    return served


def wait(wait_s, check):
    """check() -> (ok, what it saw); retried every 0.5 s for wait_s seconds."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            ok, seen = check()
        except (OSError, RuntimeError, ValueError) as e:
            ok, seen = False, f"error: {e}"
        if ok or time.monotonic() > deadline:
            return ok, seen
        time.sleep(0.5)


def gauges(url, textfile, wait_s):
    want = textfile_samples(textfile)
    if not want:
        return False, f"{textfile} has no sample"

    def check():
        got = served_samples(url)
        missing = {k: v for k, v in want.items() if got.get(k) != v}
        extra = {k: v for k, v in got.items() if k not in want}
        return not missing and not extra, (f"{len(missing)} samples of the textfile missing or different, e.g. "
                                           f"{list(missing.items())[:3]}; {len(extra)} not in the textfile, e.g. "
                                           f"{list(extra.items())[:3]}")

    ok, seen = wait(wait_s, check)
    return ok, f"{len(want)} samples of {textfile} served" if ok else seen


def alerts(url, wait_s, expected):
    def check():
        firing = [a["metric"] for a in query(url, 'ALERTS{alertstate="firing",alertname=~"VmemRepro.*"}')]
        unmatched = list(firing)
        for want in expected:
            hits = [a for a in unmatched if all(a.get(k) == v for k, v in want.items())]
            if len(hits) != 1:
                return False, f"want one alert with {want}, firing: {firing}"
            unmatched.remove(hits[0])
        return not unmatched, f"firing beyond those wanted: {unmatched}"

    ok, seen = wait(wait_s, check)
    return ok, f"{len(expected)} alerts firing as expected" if ok else seen


def rules(url, wait_s, names):
    def check():
        groups = get(url, "/api/v1/rules")["groups"]
        loaded = [(g["name"], r["name"], r["health"], r.get("lastError", "")) for g in groups for r in g["rules"]]
        ok = sorted(n for _, n, _, _ in loaded) == sorted(names) and all(
            g == "vmem-repro" and h == "ok" and not e for g, _, h, e in loaded)
        return ok, f"{len(loaded)} rules loaded and evaluated" if ok else f"loaded: {loaded}, want {names}"

    return wait(wait_s, check)


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode == "gauges" and len(argv) == 5:
        ok, said = gauges(argv[2], argv[3], float(argv[4]))
    elif mode == "alerts" and len(argv) == 5:
        ok, said = alerts(argv[2], float(argv[3]), json.loads(argv[4]))
    elif mode == "rules" and len(argv) >= 4:
        ok, said = rules(argv[2], float(argv[3]), argv[4:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(("" if ok else "FAIL: ") + said, file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
