"""A local weft cluster of real weftd processes on loopback, for the io tests
and the `tools/run cluster` demo.

Each node listens on its own loopback address (127.0.<net>.<i>:7001) and
serves its admin endpoint on the same address, port 8001, so clusters of
different tests never collide. Every wait polls observable state (the admin
endpoint's /members.json, /health, /metrics) until a deadline; nothing
sleeps where an event can be awaited.
"""

import json
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request

NODE_PORT = 7001
ADMIN_PORT = 8001


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

    def start(self, extra=()):
        seeds = [f"--seed={n.address}" for n in self.cluster.nodes[:2]]
        args = [self.cluster.weftd, f"--advertise={self.address}", f"--admin={self.admin}",
                f"--cluster={self.cluster.name}", *seeds, *self.cluster.settings, *self.settings, *extra]
        self.lives += 1
        log = open(self.log_path, "a")
        log.write(f"--- life {self.lives}: {' '.join(args)}\n")
        log.flush()
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        log.close()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig):
        self.proc.send_signal(sig)

    def kill(self):
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
        return json.loads(body)

    def member(self, other):
        view = self.view()
        if view is None:
            return None
        for m in view["members"]:
            if m["address"] == other.address:
                return m
        return None

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

    def log(self):
        with open(self.log_path) as f:
            return f.read()


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

    def stop_all(self):
        for n in self.nodes:
            if n.alive():
                n.proc.send_signal(signal.SIGCONT)
                n.kill()

    def bounds(self):
        """The bounds weftd --check-config prints for this config, in seconds,
        by name: T_detect, T_down, T_converge, T_heal (and T_refute, from the
        build that adds it)."""
        out = subprocess.run([self.weftd, "--check-config", "/dev/null", f"--advertise={self.nodes[0].address}",
                              *[f"--seed={n.address}" for n in self.nodes], *self.settings],
                             capture_output=True, text=True).stdout
        line = next(l for l in out.splitlines() if l.startswith("# bounds"))
        parts = dict(p.strip().split(" ", 1) for p in line.split(":", 1)[1].split(","))
        return {k: parse_duration(v) for k, v in parts.items()}

    def wait(self, what, predicate, limit):
        """Polls until predicate() holds; returns the seconds it took or raises."""
        start = time.monotonic()
        deadline = start + limit
        while True:
            if predicate():
                return time.monotonic() - start
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not within {limit:.1f} s")
            time.sleep(0.05)

    @staticmethod
    def held_unreachable(observers, subject):
        return lambda: all((m := o.member(subject)) is not None and (m["unreachable"] or m["status"] != "up")
                           for o in observers)

    @staticmethod
    def held_down(observers, subject):
        return lambda: all((m := o.member(subject)) is None or m["status"] in ("down", "removed") for o in observers)

    def detected_and_downed(self, subject, observers, what, b):
        """Waits, from now (just after the fault), until every observer holds
        `subject` unreachable (within T_detect, from bounds `b`) and then down
        or removed (within T_down of now); returns both times."""
        unreachable = self.wait(f"{what}: unreachable everywhere", self.held_unreachable(observers, subject),
                                b["T_detect"])
        down = self.wait(f"{what}: down everywhere", self.held_down(observers, subject), b["T_down"] - unreachable)
        return unreachable, unreachable + down

    def all_up(self, nodes=None):
        nodes = nodes or [n for n in self.nodes if n.alive()]

        def check():
            for observer in nodes:
                view = observer.view()
                if view is None:
                    return False
                ups = {m["address"]: m for m in view["members"] if m["status"] == "up" and not m["unreachable"]}
                if any(n.address not in ups for n in nodes):
                    return False
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
