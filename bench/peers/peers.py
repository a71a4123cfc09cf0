#!/usr/bin/env python3
"""Runs the peers of `bench/run --peers` on loopback and writes their figures
to build/bench/peers.json (bench/peers/report.py prints the tables).

    peers.py --caf BIN [--runs 3] [--quick] [--only caf,erlang,nginx,redis]
             [--weftd BIN --weft-io-bench BIN] [--out FILE]

Each peer is two endpoints on 127.0.0.1 in processes this script starts, on
ports it picks, from configs in a temp dir, and ends (its own children only,
by pid or by the process group it made) whatever happens:

- caf: weft_peer_caf server + client (bench/peers/caf_bench.cpp);
- erlang: two nodes (-name a@127.0.0.1, b@127.0.0.1) running
  bench/peers/erlang/weft_peer_bench.erl, with a private epmd on a free port
  (ERL_EPMD_PORT), so nothing system-wide is started or left behind;
- nginx: one worker, keepalive, `return 200` with a fixed 100 B body to a
  POST of 100 B, driven by wrk (one thread) with 1, 4, 16, 64 connections;
  wrk's percentiles come from a Lua done() hook;
- redis: redis-server (no persistence) and redis-benchmark GET and SET of
  100 B values with 1, 4, 16, 64 clients, pipelining off, plus 64 clients
  pipelining 16 deep.

Every peer runs --runs times; report.py takes the median of each figure
(and shows the range). Every loop is bounded by count and by time, and
every child process by a timeout.

With --weftd and --weft-io-bench, also records interim weft figures from
the tools that exist today (the weft_bench_io remote tell, and asks through
weftd's admin endpoint), kept apart from the weft column, which comes only
from build/bench/weft_io.json (report.py).
"""

import argparse
import http.client
import json
import os
import re
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "io"))

LEVELS = (1, 4, 16, 64)


def log(text):
    print(text, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, limit=10.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {limit} s")


class Children:
    """Every process this script starts, each in a session of its own, so
    ending one ends its children (nginx's worker, erl's helpers) and nothing
    else."""

    def __init__(self):
        self.procs = []

    def start(self, args, **kw):
        kw.setdefault("stdin", subprocess.DEVNULL)
        p = subprocess.Popen(args, start_new_session=True, **kw)
        self.procs.append(p)
        return p

    def stop(self, p):
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            except ProcessLookupError:
                pass
        self.procs.remove(p)

    def stop_all(self):
        for p in list(reversed(self.procs)):
            self.stop(p)


def run(args, timeout, **kw):
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {r.returncode}: {r.stderr.strip()[-2000:]}")
    return r


# ---------------------------------------------------------------- CAF

def caf_once(kids, a):
    p = a.sizes
    policy = ["--policy", a.caf_policy] if a.caf_policy else []
    server = kids.start([a.caf, "server", "--threads", str(a.caf_threads), *policy], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([server.stdout], [], [], 15)
        line = server.stdout.readline() if ready else "(nothing within 15 s)"
        if not line.startswith("port "):
            raise RuntimeError(f"weft_peer_caf server said {line!r}")
        port = line.split()[1]
        r = run([a.caf, "client", "--port", port, "--threads", str(a.caf_threads), *policy,
                 "--tell-counts", ",".join(str(n) for n in p["tell"]), "--ask-samples", str(p["ask_samples"]),
                 "--ask-warmup", str(p["ask_warmup"]), "--asks", str(p["asks"]), "--max-seconds", str(p["max_s"])],
                timeout=8 * p["max_s"] + 60)
        log(r.stderr.rstrip())
        return json.loads(r.stdout)
    finally:
        server.stdin.close()  # the server's signal to exit
        kids.stop(server)


# ---------------------------------------------------------------- Erlang

def erlang_once(kids, a, tmp):
    p = a.sizes
    beams = os.path.join(tmp, "beams")
    os.makedirs(beams, exist_ok=True)
    run(["erlc", "-o", beams, os.path.join(HERE, "erlang", "weft_peer_bench.erl")], timeout=120)
    epmd_port = free_port()
    env = dict(os.environ, ERL_EPMD_PORT=str(epmd_port))
    epmd = kids.start(["epmd", "-port", str(epmd_port), "-address", "127.0.0.1"], env=env,
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = None
    try:
        wait_port(epmd_port)
        cookie = f"weftbench{os.getpid()}"
        common = ["-noshell", "-setcookie", cookie, "-pa", beams]
        with open(os.path.join(tmp, "erl_b.log"), "w") as server_log:
            server = kids.start(["erl", "-name", "b@127.0.0.1", *common, "-run", "weft_peer_bench", "server"],
                                env=env, stdout=server_log, stderr=subprocess.STDOUT)
        out = os.path.join(tmp, "erlang.json")
        if os.path.exists(out):
            os.remove(out)
        r = run(["erl", "-name", "a@127.0.0.1", *common, "-run", "weft_peer_bench", "client", "b@127.0.0.1", out,
                 *[str(n) for n in p["tell"]], str(p["ask_samples"]), str(p["ask_warmup"]), str(p["asks"]),
                 str(p["max_s"])], timeout=8 * p["max_s"] + 60, env=env)
        log(r.stderr.rstrip())
        with open(out) as f:
            return json.load(f)
    finally:
        if server is not None:
            kids.stop(server)
        kids.stop(epmd)


# ---------------------------------------------------------------- nginx + wrk

BODY = "q" * 100

NGINX_CONF = """\
daemon off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    # One connection carries a whole run: nginx's default closes it every
    # 1000 requests, which would time reconnects, not requests.
    keepalive_requests 100000000;
    keepalive_timeout 75s;
    server {{
        listen 127.0.0.1:{port};
        location = /ask {{
            default_type application/octet-stream;
            return 200 "{body}";
        }}
    }}
}}
"""

# wrk's own report has no p99.9 and prints rounded units; done() writes
# exact microseconds as one JSON line.
WRK_LUA = """\
wrk.method = "POST"
wrk.body = string.rep("q", 100)
wrk.headers["Content-Type"] = "application/octet-stream"
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"errors":%d,"mean":%.2f,"p50":%d,"p90":%d,"p99":%d,"p99.9":%d,"max":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max))
end
"""


def wrk(url, lua, connections, seconds):
    r = run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", lua, url],
            timeout=seconds + 30)
    line = next(l for l in r.stdout.splitlines() if l.startswith("WRKJSON "))
    return json.loads(line[len("WRKJSON "):])


def nginx_once(kids, a, tmp):
    p = a.sizes
    port = free_port()
    conf = os.path.join(tmp, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(tmp=tmp, port=port, body=BODY))
    lua = os.path.join(tmp, "ask.lua")
    with open(lua, "w") as f:
        f.write(WRK_LUA)
    run(["nginx", "-t", "-p", tmp, "-c", conf, "-e", os.path.join(tmp, "nginx-error.log")], timeout=30)
    server = kids.start(["nginx", "-p", tmp, "-c", conf, "-e", os.path.join(tmp, "nginx-error.log")],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        url = f"http://127.0.0.1:{port}/ask"
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.request("POST", "/ask", body=BODY)
        reply = c.getresponse().read()
        c.close()
        if reply != BODY.encode():
            raise RuntimeError(f"nginx answered {reply!r}")
        rtt = wrk(url, lua, 1, p["wrk_rtt_s"])
        rates = {}
        for k in LEVELS:
            w = wrk(url, lua, k, p["wrk_rate_s"])
            if w["errors"]:
                log(f"nginx: {w['errors']} errors at {k} connections")
            rates[str(k)] = w["requests"] / (w["duration_us"] / 1e6)
            log(f"nginx + wrk, {k} connections: {rates[str(k)]:.0f} req/s")
        log(f"nginx + wrk, 1 connection: p50 {rtt['p50']} us over {rtt['requests']} requests")
        ask = {"samples": rtt["requests"], **{q: float(rtt[q]) for q in ("mean", "p50", "p90", "p99", "p99.9", "max")}}
        # One connection runs its requests back to back, so the run time
        # over the count is their mean round trip exactly. wrk's histogram
        # has disagreed with it here (its mean several times larger, more
        # requests above 2 ms than the run had time for), so both are kept
        # and report.py flags the percentiles when they disagree.
        ask["wrk_mean"] = ask["mean"]
        ask["mean"] = rtt["duration_us"] / rtt["requests"]
        return {"peer": "nginx", "version": nginx_version(), "ask_rtt_us": ask, "asks_per_s": rates}
    finally:
        kids.stop(server)


def nginx_version():
    r = subprocess.run(["nginx", "-v"], capture_output=True, text=True)
    return r.stderr.strip().split("/")[-1]


# ---------------------------------------------------------------- Redis

def redis_bench(port, test, clients, requests, pipeline=1, timeout=120):
    args = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-t", test, "-d", "100",
            "-c", str(clients), "-n", str(requests)]
    if pipeline > 1:
        args += ["-P", str(pipeline)]
    out = run(args, timeout=timeout).stdout.replace("\r", "\n")
    rps = float(re.search(r"throughput summary: ([\d.]+) requests per second", out).group(1))
    dist = [(float(p), float(ms) * 1000) for p, ms in
            re.findall(r"^\s*([\d.]+)% <= ([\d.]+) milliseconds", out, re.M)]
    summary = re.search(r"avg\s+min\s+p50\s+p95\s+p99\s+max\s*\n\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)"
                        r"\s+([\d.]+)\s+([\d.]+)", out)
    return rps, dist, [float(x) * 1000 for x in summary.groups()], requests


def upper(dist, q):
    """redis-benchmark lists its HdrHistogram at halving steps (50, 75,
    87.5, 93.75 ... %): the value at the first listed percentile >= q, an
    upper bound on the q-th percentile."""
    return next(v for p, v in dist if p >= q)


def redis_once(kids, a, tmp):
    p = a.sizes
    port = free_port()
    rdir = os.path.join(tmp, "redis")
    os.makedirs(rdir, exist_ok=True)
    server = kids.start(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", rdir, "--save", "",
                         "--appendonly", "no", "--daemonize", "no", "--logfile", os.path.join(rdir, "redis.log")],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        version = run(["redis-server", "--version"], timeout=10).stdout.split()[2].split("=")[-1]
        result = {}
        for test in ("get", "set"):
            rps1, dist, summ, n = redis_bench(port, test, 1, p["redis_rtt_n"])
            avg, _mn, p50, _p95, p99, mx = summ
            ask = {"samples": n, "mean": avg, "p50": p50, "p90": upper(dist, 90), "p99": p99,
                   "p99.9": upper(dist, 99.9), "max": mx, "upper_bound": ["p90", "p99.9"]}
            rates = {"1": rps1}
            for k in LEVELS[1:]:
                rates[str(k)] = redis_bench(port, test, k, p["redis_rate_n"])[0]
            rates["64 pipelined 16"] = redis_bench(port, test, 64, p["redis_pipe_n"], pipeline=16)[0]
            log(f"redis {test}: p50 {p50:.0f} us; " + ", ".join(f"{k}: {v:.0f}/s" for k, v in rates.items()))
            result[f"redis_{test}"] = {"peer": f"redis_{test}", "version": version, "ask_rtt_us": ask,
                                       "asks_per_s": rates}
        return result
    finally:
        kids.stop(server)


# ---------------------------------------------------------------- weft, interim

def weft_interim(kids, a, tmp):
    """What today's tools can say about weft beside the peers: the remote
    tell of weft_bench_io (64 B, two nodes on one io_context), and asks
    through weftd's admin endpoint (POST /ask to a peer's echo, 100 B; the
    round trip is timed inside weftd, from the kernel's ask to its
    completion, and reported in whole microseconds). The asks are one at a
    time and spaced by an HTTP request each, so the path is cold between
    them: an upper-side estimate, not harness 3."""
    out = {}
    if a.weft_io_bench:
        jpath = os.path.join(tmp, "weft_bench_io.json")
        run([a.weft_io_bench, "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=true",
             f"--benchmark_out={jpath}", "--benchmark_out_format=json"], timeout=300)
        with open(jpath) as f:
            rows = json.load(f)["benchmarks"]
        med = next(r for r in rows if r.get("aggregate_name") == "median")
        rate = med.get("items_per_second")
        out["tell_64_msg_per_s"] = rate
        log(f"weft (weft_bench_io) remote tell 64 B: {rate:.0f} msg/s")
    if a.weftd:
        from weftcluster import Cluster  # noqa: E402  (tests/io's helpers)
        samples = []
        with Cluster(a.weftd, os.path.join(tmp, "weftd"), 91, 2, name="weft-peers") as c:
            c.start_all()
            c.wait("two weftd see each other up", c.all_up(), 20)
            host, port = c.nodes[0].admin.split(":")
            conn = http.client.HTTPConnection(host, int(port), timeout=5)
            target = f"{c.nodes[1].address}/echo"
            # The admin endpoint takes tens of ms per HTTP request here
            # (none of it inside the timed round trip), hence a deadline
            # of its own.
            deadline = time.monotonic() + a.sizes["weft_s"]
            for i in range(a.sizes["weft_warmup"] + a.sizes["weft_asks"]):
                if time.monotonic() > deadline:
                    break
                conn.request("POST", f"/ask?to={target}", body=BODY)
                resp = conn.getresponse()
                body = resp.read()
                if resp.status != 200 or body != BODY.encode():
                    raise RuntimeError(f"weftd /ask: {resp.status} {body[:80]!r}")
                if i >= a.sizes["weft_warmup"]:
                    samples.append(float(resp.getheader("X-Weft-Rtt-Us")))
            conn.close()
        samples.sort()
        n = len(samples)
        pct = lambda q: samples[min(n - 1, int(q / 100 * (n - 1) + 0.5))]  # noqa: E731
        out["ask_rtt_us"] = {"samples": n, "mean": statistics.fmean(samples), "p50": pct(50), "p90": pct(90),
                             "p99": pct(99), "p99.9": pct(99.9), "max": samples[-1]}
        log(f"weft (weftd /ask) round trip: p50 {pct(50):.0f} us over {n} asks")
    return out


# ---------------------------------------------------------------- main

FULL = {"tell": (1_000_000, 500_000, 100_000), "ask_samples": 100_000, "ask_warmup": 10_000, "asks": 50_000,
        "max_s": 30, "wrk_rtt_s": 10, "wrk_rate_s": 5, "redis_rtt_n": 100_000, "redis_rate_n": 200_000,
        "redis_pipe_n": 2_000_000, "weft_asks": 1_000, "weft_warmup": 100, "weft_s": 90}
QUICK = {"tell": (100_000, 50_000, 10_000), "ask_samples": 10_000, "ask_warmup": 1_000, "asks": 5_000,
         "max_s": 10, "wrk_rtt_s": 2, "wrk_rate_s": 1, "redis_rtt_n": 10_000, "redis_rate_n": 20_000,
         "redis_pipe_n": 200_000, "weft_asks": 200, "weft_warmup": 20, "weft_s": 20}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--caf", help="weft_peer_caf binary")
    ap.add_argument("--caf-threads", type=int, default=0, help="CAF scheduler threads (0: CAF's default)")
    ap.add_argument("--caf-policy", choices=("stealing", "sharing"), help="CAF scheduler (default: CAF's own)")
    ap.add_argument("--weftd")
    ap.add_argument("--weft-io-bench")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one run, small counts: does every peer work?")
    ap.add_argument("--only", default="caf,erlang,nginx,redis")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "peers.json"))
    a = ap.parse_args()
    a.sizes = QUICK if a.quick else FULL
    runs = 1 if a.quick else a.runs
    only = a.only.split(",")

    kids = Children()
    # SIGTERM ends this script like Ctrl-C does, through the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = tempfile.mkdtemp(prefix="weft-peers-")
    results = {"machine": machine(), "quick": a.quick, "runs": runs, "sizes": a.sizes, "peers": {}, "problems": {}}
    try:
        for r in range(runs):
            for name, once in (("caf", caf_once), ("erlang", erlang_once), ("nginx", nginx_once),
                               ("redis", redis_once)):
                if name not in only:
                    continue
                if name == "caf" and not a.caf:
                    results["problems"]["caf"] = "weft_peer_caf not built (CAF not found)"
                    continue
                log(f"--- {name}, run {r + 1} of {runs}")
                try:
                    got = once(kids, a) if name == "caf" else once(kids, a, tmp)
                except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError, StopIteration) as e:
                    results["problems"][name] = f"{type(e).__name__}: {e}"
                    log(f"{name}: FAILED: {e}")
                    continue
                for key, value in (got.items() if name == "redis" else [(name, got)]):
                    results["peers"].setdefault(key, []).append(value)
        if a.weftd or a.weft_io_bench:
            log("--- weft, interim figures from existing tools")
            try:
                results["weft_interim"] = weft_interim(kids, a, tmp)
            except (RuntimeError, AssertionError, subprocess.TimeoutExpired, OSError) as e:
                results["problems"]["weft_interim"] = f"{type(e).__name__}: {e}"
    finally:
        kids.stop_all()
        shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(results, f, indent=1)
    log(f"wrote {a.out}")
    return 0


def machine():
    model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"nproc": os.cpu_count(), "cpu": model, "date": time.strftime("%Y-%m-%d %H:%M %Z"),
            "load": os.getloadavg()}


if __name__ == "__main__":
    sys.exit(main())
