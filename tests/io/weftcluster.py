"""A local weft cluster of real weftd processes on loopback, for the io tests
and the `tools/run cluster` demo.

Each node listens on its own loopback address (127.0.<net>.<i>:7001) and
serves its admin endpoint on the same address, port 8001, so clusters of
different tests never collide. Every wait polls observable state (the admin
endpoint's /members.json, /health, /metrics) until a deadline; nothing
sleeps where an event can be awaited.

A node is expected alive from its start until the test stops it itself
(kill(), or signal() with SIGTERM, SIGINT or SIGKILL): every wait fails at
once if an expected node's process has exited, check_nodes() is what every
io case asserts before it passes, and stop_all() ends the nodes with SIGTERM
(then SIGKILL after a deadline), so a sanitized weftd runs its exit-time
leak check, and then reads every log for a sanitizer report.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request

NODE_PORT = 7001
ADMIN_PORT = 8001
# How long stop_all() gives a node to exit after its first SIGTERM (a second
# SIGTERM, a second in, makes weftd exit without finishing its leave)
# before it SIGKILLs it, which skips the leak check and so is reported.
STOP_DEADLINE = 5.0
# What AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer write
# when they find something: "==PID==ERROR: AddressSanitizer: ...",
# "==PID==ERROR: LeakSanitizer: detected memory leaks", and UBSan's
# "file:line:col: runtime error: ..." (which does not stop the process).
SANITIZER_REPORT = re.compile(r"ERROR: (?:Address|Leak|UndefinedBehavior|Thread|Memory)Sanitizer|runtime error:")


class Miss:
    """What a wait predicate returns when it does not hold yet, saying why
    (false in a test, so `if predicate():` and all(...) read it as no)."""

    def __init__(self, why):
        self.why = why

    def __bool__(self):
        return False

    def __repr__(self):
        return f"Miss({self.why!r})"


class Node:
    def __init__(self, cluster, index):
        self.cluster = cluster
        self.index = index
        self.host = f"127.0.{cluster.net}.{index}"
        self.address = f"{self.host}:{NODE_PORT}"
        self.admin = f"{self.host}:{ADMIN_PORT}"
        self.proc = None
        self.log_path = os.path.join(cluster.workdir, f"n{index}.log")
        self.lives = 0
        self.settings = []  # this node's own flags (its TLS files), on every start
        self.seeds = None  # the nodes it names as seeds; None: the cluster's first two
        self.stopped = False  # the test itself stopped this life (kill, SIGTERM): it may be dead

    def start(self, extra=()):
        seeds = [f"--seed={n.address}" for n in (self.cluster.nodes[:2] if self.seeds is None else self.seeds)]
        args = [self.cluster.weftd, f"--advertise={self.address}", f"--admin={self.admin}",
                f"--cluster={self.cluster.name}", *seeds, *self.cluster.settings, *self.settings, *extra]
        self.lives += 1
        self.stopped = False
        log = open(self.log_path, "a")
        log.write(f"--- life {self.lives}: {' '.join(args)}\n")
        log.flush()
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        log.close()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def expected_alive(self):
        """Started, and not stopped by the test since: its process must run."""
        return self.proc is not None and not self.stopped

    def state(self):
        """The process's state, for a failure message."""
        if self.proc is None:
            return "never started"
        code = self.proc.poll()
        if code is None:
            return "running"
        return f"exited with {'signal ' + signal.Signals(-code).name if code < 0 else f'code {code}'}"

    def signal(self, sig):
        if sig in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL):
            self.stopped = True
        self.proc.send_signal(sig)

    def kill(self):
        self.stopped = True
        self.proc.kill()
        self.proc.wait()

    def get(self, path, timeout=1.0):
        try:
            with urllib.request.urlopen(f"http://{self.admin}{path}", timeout=timeout) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return None, ""

    def view(self):
        status, body = self.get("/members.json")
        if status != 200:
            return None
        try:
            view = json.loads(body)
        except ValueError:
            return None
        return view if "members" in view else None  # "{}": no snapshot published yet

    def view_required(self, what="a view", tries=3):
        """The view, where one is expected: a node that does not answer (after
        `tries` attempts, a second or so apart) fails the test, saying whether
        its process still runs."""
        for attempt in range(tries):
            view = self.view()
            if view is not None:
                return view
            if not self.alive():
                break
            if attempt + 1 < tries:
                time.sleep(0.5)
        raise AssertionError(f"{what}: n{self.index} ({self.address}) gave no view ({self.state()})")

    def member(self, other):
        view = self.view()
        if view is None:
            return None
        for m in view["members"]:
            if m["address"] == other.address:
                return m
        return None

    def member_required(self, other, what="a record"):
        """`other`'s record in this node's view; no view, or no such record,
        fails the test."""
        view = self.view_required(what)
        for m in view["members"]:
            if m["address"] == other.address:
                return m
        raise AssertionError(f"{what}: n{self.index}'s view holds no record of {other.address}: {view}")

    def metric(self, name_and_labels, missing=0.0):
        """The sample's value; `missing` if the endpoint exports no such
        sample, None if the endpoint did not answer."""
        status, body = self.get("/metrics")
        if status != 200:
            return None
        for line in body.splitlines():
            if line.startswith(name_and_labels + " "):
                return float(line.split()[-1])
        return missing

    def metrics(self):
        """Every sample of /metrics, by name and labels; None if the endpoint
        did not answer."""
        status, body = self.get("/metrics")
        if status != 200:
            return None
        samples = {}
        for line in body.splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                samples[name] = float(value)
        return samples

    def rss_mib(self):
        """The process's resident memory (VmRSS), in MiB."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def sanitizer_reports(self):
        """The lines of this node's log (every life) a sanitizer wrote."""
        if not os.path.exists(self.log_path):
            return []
        with open(self.log_path, errors="replace") as f:
            return [line.rstrip("\n") for line in f if SANITIZER_REPORT.search(line)]


class Cluster:
    def __init__(self, weftd, workdir, net, size, name="weft-test", settings=()):
        self.weftd = weftd
        self.workdir = workdir
        self.net = net
        self.name = name
        self.settings = list(settings)
        shutil.rmtree(workdir, ignore_errors=True)  # logs of an earlier run would be read as this one's
        os.makedirs(workdir)
        self.nodes = [Node(self, i) for i in range(1, size + 1)]
        self.started = time.monotonic()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop_all()

    def start_all(self):
        for n in self.nodes:
            n.start()

    def expected(self):
        """The nodes that must be running: started and not stopped by the test."""
        return [n for n in self.nodes if n.expected_alive()]

    def check_alive(self, what):
        """Fails if a node the test did not stop has exited."""
        dead = [n for n in self.expected() if not n.alive()]
        if dead:
            text = "; ".join(f"n{n.index} ({n.address}) {n.state()}" for n in dead)
            reports = [f"  n{n.index}: {line}" for n in dead for line in n.sanitizer_reports()[:20]]
            raise AssertionError(f"{what}: a node the test never stopped is dead: {text}" +
                                 ("\n" + "\n".join(reports) if reports else ""))

    def check_nodes(self):
        """What every io case asserts before it passes: each node it did not
        stop itself is running and answers with a view, and no node's log
        holds a sanitizer report. Returns a line saying what was checked."""
        reports = self.sanitizer_problems()
        if reports:
            raise AssertionError("a sanitizer report in a node's log:\n" + "\n".join(reports))
        self.check_alive("at the end of the case")
        for n in self.expected():
            n.view_required("at the end of the case")
        return (f"checked: {len(self.expected())} nodes the test did not stop running and answering; "
                f"no sanitizer report in {sum(1 for n in self.nodes if n.proc is not None)} logs")

    def sanitizer_problems(self):
        return [f"  n{n.index}: {line}" for n in self.nodes for line in n.sanitizer_reports()[:20]]

    def stop_all(self):
        """Ends every running node with SIGTERM (SIGCONT first, for a paused
        one), a second SIGTERM a second later (weftd then exits without
        finishing its leave) and SIGKILL at STOP_DEADLINE, then reads every
        log for a sanitizer report: a sanitized weftd checks for leaks as it
        exits, which SIGKILL would skip. Returns the problems: a node that
        needed SIGKILL, a nonzero exit, a sanitizer report; [] if none."""
        running = [n for n in self.nodes if n.alive()]
        if not running:
            reports = self.sanitizer_problems()
            return ["a sanitizer report in a node's log:\n" + "\n".join(reports)] if reports else []
        started = time.monotonic()
        for n in running:
            n.proc.send_signal(signal.SIGCONT)
            n.signal(signal.SIGTERM)
        problems = []
        second = False
        while any(n.alive() for n in running):
            elapsed = time.monotonic() - started
            if elapsed > STOP_DEADLINE:
                for n in running:
                    if n.alive():
                        n.kill()
                        problems.append(f"n{n.index} ({n.address}) did not exit within {STOP_DEADLINE:.0f} s of "
                                        "SIGTERM: SIGKILLed (no exit-time leak check)")
                break
            if elapsed > 1.0 and not second:
                second = True
                for n in running:
                    if n.alive():
                        n.proc.send_signal(signal.SIGTERM)
            time.sleep(0.05)
        for n in running:
            code = n.proc.returncode
            if code != 0 and code != -signal.SIGKILL:
                problems.append(f"n{n.index} ({n.address}) exited with {n.state().split('with ')[-1]} after SIGTERM")
        self.stopped_in = time.monotonic() - started
        self.stopped_count = len(running)
        reports = self.sanitizer_problems()
        if reports:
            problems.append("a sanitizer report in a node's log:\n" + "\n".join(reports))
        return problems

    def sanitized(self):
        """Whether weftd is built with AddressSanitizer, whose quarantine of
        freed memory makes RSS say nothing about what weftd itself holds."""
        with open(self.weftd, "rb") as f:
            return b"__asan_init" in f.read()

    def bounds(self):
        """The bounds weftd --check-config prints for this config, in seconds,
        by name: T_detect, T_down, T_down_closed (a crash with its sockets
        closed), T_converge, T_heal and T_refute (from the builds that add
        each)."""
        line = next(l for l in self.check_config().splitlines() if l.startswith("# bounds"))
        parts = dict(p.strip().split(" ", 1) for p in line.split(":", 1)[1].split(","))
        return {k: parse_duration(v) for k, v in parts.items()}

    def knobs(self):
        """Every knob weftd --check-config prints for this config ("name =
        value"), as text by name: parse_duration() or float() it."""
        knobs = {}
        for line in self.check_config().splitlines():
            name, sep, value = line.partition(" = ")
            if sep and not name.startswith("#"):
                knobs[name.strip()] = value.strip()
        return knobs

    def check_config(self):
        return subprocess.run([self.weftd, "--check-config", "/dev/null", f"--advertise={self.nodes[0].address}",
                               *[f"--seed={n.address}" for n in self.nodes], *self.settings],
                              capture_output=True, text=True).stdout

    def wait(self, what, predicate, limit):
        """Polls until predicate() holds; returns the seconds it took or raises
        (saying why the predicate last missed, when it said: a Miss). Fails
        at once if a node the test did not stop has exited."""
        start = time.monotonic()
        deadline = start + limit
        while True:
            self.check_alive(what)
            result = predicate()
            if result:
                return time.monotonic() - start
            if time.monotonic() > deadline:
                why = f" (last poll: {result.why})" if isinstance(result, Miss) else ""
                raise AssertionError(f"{what}: not within {limit:.1f} s{why}")
            time.sleep(0.05)

    @staticmethod
    def each_record(observers, subject, miss):
        """A predicate: every observer answers with a view (no view is a
        miss, never "down"), and miss(observer, record) is None for its
        record of `subject` (None when it holds none)."""
        def check():
            for o in observers:
                view = o.view()
                if view is None:
                    return Miss(f"n{o.index} gave no view ({o.state()})")
                m = next((m for m in view["members"] if m["address"] == subject.address), None)
                why = miss(o, m)
                if why is not None:
                    return why
            return True
        return check

    @staticmethod
    def held_unreachable(observers, subject):
        def miss(o, m):
            if m is None or not (m["unreachable"] or m["status"] != "up"):
                return Miss(f"n{o.index} holds {subject.address} {m and m['status']}")
            return None
        return Cluster.each_record(observers, subject, miss)

    @staticmethod
    def held_down(observers, subject):
        """Every observer answers with a view, and in it `subject` is down,
        removed or gone."""
        def miss(o, m):
            if m is not None and m["status"] not in ("down", "removed"):
                return Miss(f"n{o.index} holds {subject.address} {m['status']}"
                            f"{' unreachable' if m['unreachable'] else ''}")
            return None
        return Cluster.each_record(observers, subject, miss)

    def detected_and_downed(self, subject, observers, what, b, allowance=0.0):
        """Waits, from now (just after the fault), until every observer holds
        `subject` unreachable (within T_detect, from bounds `b`, plus
        `allowance`) and then down or removed (within T_down of now, plus
        `allowance`); returns both times."""
        unreachable = self.wait(f"{what}: unreachable everywhere", self.held_unreachable(observers, subject),
                                b["T_detect"] + allowance)
        down = self.wait(f"{what}: down everywhere", self.held_down(observers, subject),
                         b["T_down"] + allowance - unreachable)
        return unreachable, unreachable + down

    def all_up(self, nodes=None):
        """Every node of `nodes` (by default every node the test has not
        stopped, dead or alive: a dead one never answers) holds every one of
        them up and reachable."""
        nodes = nodes or self.expected()

        def check():
            for observer in nodes:
                view = observer.view()
                if view is None:
                    return Miss(f"n{observer.index} gave no view ({observer.state()})")
                ups = {m["address"]: m for m in view["members"] if m["status"] == "up" and not m["unreachable"]}
                missing = [n.address for n in nodes if n.address not in ups]
                if missing:
                    return Miss(f"n{observer.index} does not hold {', '.join(missing)} up")
            return True
        return check


class Ca:
    """A certificate authority made with the openssl command, for tests: its
    key and certificate in `directory`, and node certificates it signs (EC
    P-256, valid two days, the node's IP as subjectAltName)."""

    def __init__(self, directory, name):
        self.directory = directory
        self.name = name
        self.key = os.path.join(directory, f"{name}.key")
        self.cert = os.path.join(directory, f"{name}.crt")
        os.makedirs(directory, exist_ok=True)
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-noenc",
                "-keyout", self.key, "-out", self.cert, "-days", "2", "-subj", f"/CN={name}",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")

    def issue(self, host, name):
        """Key and certificate for a node at `host`; returns (cert, key) paths."""
        base = os.path.join(self.directory, name)
        with open(base + ".ext", "w") as f:
            f.write("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                    f"extendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=IP:{host}\n")
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-noenc",
                "-keyout", base + ".key", "-out", base + ".csr", "-subj", f"/CN={host}")
        openssl("x509", "-req", "-in", base + ".csr", "-CA", self.cert, "-CAkey", self.key, "-CAcreateserial",
                "-out", base + ".crt", "-days", "2", "-extfile", base + ".ext")
        return base + ".crt", base + ".key"

    def issue_expired(self, host, name, days_ago=1):
        """Key and certificate for a node at `host`, as issue() makes them but
        valid from days_ago + 1 days ago until days_ago days ago: expired.
        `openssl ca` sets past dates (-startdate, -enddate); OpenSSL 3.0's
        x509 -req counts -days from now. Returns (cert, key) paths."""
        base = os.path.join(self.directory, name)
        db = os.path.join(self.directory, f"{self.name}.db")
        os.makedirs(db, exist_ok=True)
        open(os.path.join(db, "index.txt"), "a").close()
        with open(base + ".cnf", "w") as f:
            f.write(f"[ca]\ndefault_ca = this\n[this]\ndatabase = {db}/index.txt\nnew_certs_dir = {db}\n"
                    f"serial = {db}/serial\n"
                    "default_md = sha256\npolicy = any\nunique_subject = no\n[any]\ncommonName = supplied\n")
        with open(base + ".ext", "w") as f:
            f.write("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                    f"extendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=IP:{host}\n")
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-noenc",
                "-keyout", base + ".key", "-out", base + ".csr", "-subj", f"/CN={host}")
        now = time.time()
        stamp = lambda t: time.strftime("%Y%m%d%H%M%SZ", time.gmtime(t))  # noqa: E731
        openssl("ca", "-batch", "-notext", "-rand_serial", "-config", base + ".cnf", "-cert", self.cert,
                "-keyfile", self.key, "-in", base + ".csr", "-out", base + ".crt", "-extfile", base + ".ext",
                "-startdate", stamp(now - (days_ago + 1) * 86400), "-enddate", stamp(now - days_ago * 86400))
        return base + ".crt", base + ".key"

    def settings(self, host, name, trust=None):
        """weftd flags for a node with a certificate from this CA, trusting
        `trust` (another Ca; this one by default)."""
        cert, key = self.issue(host, name)
        return [f"--set=tls_cert={cert}", f"--set=tls_key={key}", f"--set=tls_ca={(trust or self).cert}"]


def openssl(*args):
    r = subprocess.run(["openssl", *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)}: {r.stderr.strip()}")


def parse_duration(text):
    text = text.strip()
    for unit, scale in (("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("s", 1.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    raise ValueError(text)
