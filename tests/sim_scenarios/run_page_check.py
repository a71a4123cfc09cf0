#!/usr/bin/env python3
"""Checks weft-sim --html: the page a run writes, as a file and as a browser
draws it.

  run_page_check.py structure SIM SCENARIO OUTDIR
      The demo's page: self-contained (no external script, style, font or
      image, no URL but the SVG namespace), its data complete (a view row per
      node pair, the scenario's faults), the same bytes twice, and the run's
      trace hash the same with and without --html.

  run_page_check.py browser SIM SCENARIO OUTDIR [--mutation M --expect-failure P]
      Opens the page in headless Chromium (--dump-dom, after its script ran)
      and checks what it drew: a lane per node, each with a view row per
      member, fault intervals, rate charts; with --mutation, a failure marker
      naming property P whose replay command, run, fails the same way.
      Prints "SKIP: ..." and exits 0 when no Chromium is installed.
"""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run_sim(sim, args, expect_exit=None):
    proc = subprocess.run([sim] + args, capture_output=True, text=True, timeout=600)
    if expect_exit is not None and proc.returncode != expect_exit:
        fail("weft-sim %s exited %d, expected %d\n%s%s" % (" ".join(args), proc.returncode, expect_exit,
                                                          proc.stdout[-2000:], proc.stderr[-2000:]))
    return proc


def trace_hash(output):
    m = re.search(r"^trace hash: ([0-9a-f]{16})$", output, re.M)
    if not m:
        fail("no trace hash in output:\n" + output[-2000:])
    return m.group(1)


class Elements(html.parser.HTMLParser):
    """Every start tag with its attributes, and the text of <script>s."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.scripts = []
        self._in_script = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = dict(attrs)
            self.scripts.append([dict(attrs), ""])

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = None

    def handle_data(self, data):
        if self._in_script is not None:
            self.scripts[-1][1] += data


def parse(text):
    p = Elements()
    p.feed(text)
    return p


def classes(attrs):
    return (attrs.get("class") or "").split()


def structure(sim, scenario, outdir):
    page = os.path.join(outdir, "structure.html")
    again = os.path.join(outdir, "structure-again.html")
    plain = run_sim(sim, ["run", "--quiet", "--scenario", scenario], 0)
    with_page = run_sim(sim, ["run", "--quiet", "--scenario", scenario, "--html", page], 0)
    run_sim(sim, ["run", "--quiet", "--scenario", scenario, "--html", again], 0)
    if trace_hash(plain.stdout) != trace_hash(with_page.stdout):
        fail("--html changed the run: trace hash %s without, %s with" % (trace_hash(plain.stdout),
                                                                        trace_hash(with_page.stdout)))
    text = open(page, encoding="utf-8").read()
    if text != open(again, encoding="utf-8").read():
        fail("the same run wrote two different pages")
    doc = parse(text)
    for tag, attrs in doc.tags:
        if tag in ("link", "img", "iframe", "object", "embed", "base"):
            fail("the page loads something: <%s %s>" % (tag, attrs))
        for name in ("src", "href"):
            if name in attrs:
                fail("the page refers elsewhere: <%s %s=%r>" % (tag, name, attrs[name]))
    urls = set(re.findall(r"[a-z]+://[^\s'\"<>)]*", text)) - {"http://www.w3.org/2000/svg"}
    if urls:
        fail("the page names URLs: %s" % sorted(urls))
    if "@import" in text or "url(http" in text:
        fail("the page's style loads something")
    data = [body for attrs, body in doc.scripts if attrs.get("type") == "application/json"]
    if len(data) != 1:
        fail("expected one JSON data element, found %d" % len(data))
    d = json.loads(data[0])
    n = d["nodes"]
    if len(d["views"]) != n or any(len(rows) != n for rows in d["views"]) or len(d["process"]) != n:
        fail("the data lacks a view row per node pair")
    if not all(len(row) % 3 == 0 and len(row) > 0 for rows in d["views"] for row in rows):
        fail("a view row is empty or malformed")
    kinds = sorted({f["kind"] for f in d["faults"]})
    scenario_kinds = sorted({line.split()[2] for line in open(scenario) if line.startswith("at ")})
    if kinds != scenario_kinds:
        fail("faults in the page %s, in the scenario %s" % (kinds, scenario_kinds))
    if d["trace_hash"] != trace_hash(plain.stdout):
        fail("the page's trace hash %s is not the run's %s" % (d["trace_hash"], trace_hash(plain.stdout)))
    size = os.path.getsize(page)
    print("page %s: %d bytes, %d nodes, faults %s, trace hash %s the same with and without --html"
          % (page, size, n, ",".join(kinds), d["trace_hash"]))


def find_chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium-headless-shell", "chromium", "chromium-browser",
                 "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def browser(sim, scenario, outdir, mutation, expect_failure):
    chromium = find_chromium()
    if chromium is None:
        print("SKIP: no Chromium found (chromium-headless-shell, chromium; tools/setup installs it)")
        return
    name = "browser-" + (mutation or "plain")
    page = os.path.join(outdir, name + ".html")
    args = ["run", "--quiet", "--scenario", scenario, "--html", page]
    if mutation:
        args += ["--mutation", mutation]
    run_sim(sim, args, 10 if mutation else 0)
    profile = os.path.join(outdir, name + "-profile")
    proc = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--user-data-dir=" + profile, "--dump-dom", "file://" + os.path.abspath(page)],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or "<svg" not in proc.stdout:
        fail("%s --dump-dom exited %d and drew no svg:\n%s" % (chromium, proc.returncode, proc.stderr[-3000:]))
    doc = parse(proc.stdout)
    body = [attrs for tag, attrs in doc.tags if tag == "body"]
    if not body or body[0].get("data-rendered") != "yes":
        errors = re.findall(r'id="render-error"[^>]*>([^<]*)', proc.stdout)
        fail("the page's script did not finish drawing: %s" % errors)
    d = json.loads([b for a, b in parse(open(page, encoding="utf-8").read()).scripts
                    if a.get("type") == "application/json"][0])
    n = d["nodes"]
    lanes = [a for t, a in doc.tags if t == "g" and "lane" in classes(a)]
    if sorted(int(a["data-node"]) for a in lanes) != list(range(1, n + 1)):
        fail("expected a lane per node 1..%d, found %s" % (n, [a.get("data-node") for a in lanes]))
    views = [a for t, a in doc.tags if t == "g" and "view" in classes(a)]
    if len(views) != n * n:
        fail("expected %d view rows (a row per member in every lane), found %d" % (n * n, len(views)))
    statuses = [a for t, a in doc.tags if t == "rect" and "status" in classes(a)]
    if not any(a.get("data-status") == "up" for a in statuses):
        fail("no lane shows a member up")
    faults = [a for t, a in doc.tags if t == "g" and "fault" in classes(a)]
    intervals = [a for a in faults if "instant" not in classes(a)]
    if not intervals:
        fail("no fault interval drawn")
    drawn = sorted({a["data-kind"] for a in faults})
    expected = sorted({f["kind"] for f in d["faults"]})
    if drawn != expected:
        fail("fault kinds drawn %s, in the data %s" % (drawn, expected))
    rates = [a for t, a in doc.tags if t == "path" and "rate" in classes(a)]
    if len(rates) < 5:
        fail("expected the rate series drawn, found %d" % len(rates))
    failures = [a for t, a in doc.tags if t == "g" and "failure" in classes(a)]
    if not mutation:
        if failures:
            fail("a passing run drew failure markers: %s" % failures)
        print("drawn: %d lanes, %d view rows, faults %s (%d intervals), %d rate series, no failure marker"
              % (len(lanes), len(views), ",".join(drawn), len(intervals), len(rates)))
        return
    if not failures:
        fail("the failing run drew no failure marker")
    first = failures[0]
    if not first.get("data-text", "").startswith(expect_failure + ": "):
        fail("the failure marker names %r, expected %s" % (first.get("data-text"), expect_failure))
    replay = first.get("data-replay", "")
    if not replay.startswith("weft-sim replay ") or "--mutation " + mutation not in replay:
        fail("the failure marker's replay command is %r" % replay)
    if not 0 < float(first["data-at"]) <= d["end"]:
        fail("the failure marker is at %s, outside the run (0..%s)" % (first["data-at"], d["end"]))
    # The marker's command, run, fails the same way.
    again = run_sim(sim, replay.split()[1:] + ["--quiet"], 10)
    if first["data-text"] not in again.stdout:
        fail("the replay does not fail with %r:\n%s" % (first["data-text"], again.stdout[-2000:]))
    print("drawn: %d lanes, %d failure marker(s) at %s s, first %r; its replay `%s` fails the same way"
          % (len(lanes), len(failures), first["data-at"], first["data-text"], replay))


def main(argv):
    if len(argv) < 5 or argv[1] not in ("structure", "browser"):
        print(__doc__)
        return 2
    mode, sim, scenario, outdir = argv[1:5]
    os.makedirs(outdir, exist_ok=True)
    rest = argv[5:]
    mutation = rest[rest.index("--mutation") + 1] if "--mutation" in rest else None
    expect = rest[rest.index("--expect-failure") + 1] if "--expect-failure" in rest else None
    if mode == "structure":
        structure(sim, scenario, outdir)
    else:
        browser(sim, scenario, outdir, mutation, expect)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
