#!/usr/bin/env python3
"""Prints the Markdown tables of `bench/run --peers` from the peers' figures
(build/bench/peers.json, written by bench/peers/peers.py) and weft's own
(build/bench/weft_io.json, which bench/peers/weft_io.py writes from weft's
real-socket tell and ask tables, build/bench/net_*.json), so the weft column
can be refilled without running the peers again:

    report.py [--peers build/bench/peers.json] [--weft build/bench/weft_io.json]

weft_io.json, every field optional (a missing one prints "n/a"); times in
microseconds, rates per second, each figure already the harness's own median:

    {
      "source": "free text: which harness, commit and date produced it",
      "tell": {                       # harness 2: remote tells, two nodes on
        "64":    {"msg_per_s": 1.0, "mb_per_s": 1.0},   # loopback, body bytes;
        "1024":  {"msg_per_s": 1.0, "mb_per_s": 1.0},   # clock stops when the
        "16384": {"msg_per_s": 1.0, "mb_per_s": 1.0}    # receiver handled the last
      },
      "ask_rtt_us": {                 # harness 3: one ask in flight, 100 B
        "samples": 100000, "mean": 1.0, "p50": 1.0, "p90": 1.0,
        "p99": 1.0, "p99.9": 1.0, "max": 1.0
      },
      "asks_per_s": {"1": 1.0, "4": 1.0, "16": 1.0, "64": 1.0}
    }

Without the file, the weft column reads "n/a (run bench/run io first)".
peers.json holds, per peer, a list of runs in the same shape (plus "peer",
"version" and its own settings); each cell here is the median over the runs
with [min-max] when there were several.
"""

import argparse
import json
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NA_WEFT = "n/a (run bench/run io first)"
LEVELS = ("1", "4", "16", "64")
QUANTILES = ("mean", "p50", "p90", "p99", "p99.9", "max")


def dig(obj, *path):
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return None
        obj = obj[key]
    return obj


def values(runs, *path):
    got = [dig(r, *path) for r in runs]
    return [v for v in got if isinstance(v, (int, float))]


def rate(v):
    if v >= 1e6:
        return f"{v / 1e6:.2f} M"
    if v >= 1e3:
        return f"{v / 1e3:.1f} k"
    return f"{v:.0f}"


def micros(v):
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def cell(vals, fmt, spread=True):
    if not vals:
        return "n/a"
    mid = fmt(statistics.median(vals))
    if spread and len(vals) > 1 and min(vals) != max(vals):
        return f"{mid} [{fmt(min(vals))}-{fmt(max(vals))}]"
    return mid


def ratio(a, b):
    if not a or not b:
        return "-"
    return f"{a / b:.2f}x"


def med(vals):
    return statistics.median(vals) if vals else None


class Report:
    def __init__(self, peers, weft):
        self.peers = peers
        self.weft = weft
        self.p = peers.get("peers", {}) if peers else {}

    def runs(self, name):
        return self.p.get(name, [])

    def version(self, name):
        runs = self.runs(name)
        return runs[0].get("version") if runs else None

    def head(self, name, label):
        v = self.version(name)
        if name == "caf" and v:
            v = f"{int(v) // 10000}.{int(v) // 100 % 100}.{int(v) % 100}"
        return f"{label} {v}" if v else label

    def weft_cell(self, *path, fmt):
        if self.weft is None:
            return NA_WEFT
        v = dig(self.weft, *path)
        return fmt(v) if isinstance(v, (int, float)) else "n/a"

    def tell_table(self):
        out = ["### Tell throughput, two nodes on loopback (messages/s, body MB/s)", "",
               f"| body | weft | {self.head('caf', 'CAF')} | {self.head('erlang', 'Erlang/OTP')} "
               "| weft ÷ CAF | weft ÷ Erlang |",
               "|---|---|---|---|---|---|"]
        for size, label in (("64", "64 B"), ("1024", "1 KB"), ("16384", "16 KB")):
            w = dig(self.weft, "tell", size, "msg_per_s") if self.weft else None
            wcell = self.weft_cell("tell", size, "msg_per_s", fmt=rate)
            if isinstance(dig(self.weft, "tell", size, "mb_per_s"), (int, float)):
                wcell += f" ({dig(self.weft, 'tell', size, 'mb_per_s'):.0f} MB/s)"
            cols = [label, wcell]
            rats = []
            for name in ("caf", "erlang"):
                msgs = values(self.runs(name), "tell", size, "msg_per_s")
                mbs = values(self.runs(name), "tell", size, "mb_per_s")
                cols.append(cell(msgs, rate) + (f" ({med(mbs):.0f} MB/s)" if mbs else ""))
                rats.append(ratio(w, med(msgs)))
            out.append("| " + " | ".join(cols + rats) + " |")
        out += ["", "_Each cell: median over the runs [min-max]; a tell is a message with the body named; the clock "
                "stops when the receiver has handled the last one (CAF: the reply to a request sent after it; "
                "Erlang: a gen_server:call after it). CAF's sender keeps at most 8 MiB of bodies unacknowledged "
                "(no remote flow control of its own); Erlang's is suspended by busy_dist_port._"]
        return out

    def ask_peers(self):
        return [("caf", self.head("caf", "CAF")), ("erlang", self.head("erlang", "Erlang/OTP")),
                ("nginx", self.head("nginx", "nginx") + " + wrk"), ("redis_get", "Redis GET"),
                ("redis_set", "Redis SET")]

    def rtt_table(self):
        peers = self.ask_peers()
        out = ["### Ask round trip, one in flight, 100 B (µs)", "",
               "| | weft | " + " | ".join(label for _, label in peers) + " |",
               "|---|" + "---|" * (len(peers) + 1)]
        row = ["samples", self.weft_cell("ask_rtt_us", "samples", fmt=lambda v: f"{v:,.0f}")]
        for name, _ in peers:
            row.append(cell(values(self.runs(name), "ask_rtt_us", "samples"), lambda v: f"{v:,.0f}", spread=False))
        out.append("| " + " | ".join(row) + " |")
        for q in QUANTILES:
            row = [q, self.weft_cell("ask_rtt_us", q, fmt=micros)]
            for name, _ in peers:
                c = cell(values(self.runs(name), "ask_rtt_us", q), micros)
                if name.startswith("redis") and q in ("p90", "p99.9") and c != "n/a":
                    c = "≤ " + c
                if name == "nginx" and q not in ("mean", "p50") and c != "n/a" and self.wrk_disagrees():
                    c += " †"
                row.append(c)
            out.append("| " + " | ".join(row) + " |")
        w = dig(self.weft, "ask_rtt_us", "p50") if self.weft else None
        row = ["this p50 ÷ weft p50", "-" if w else "n/a"]
        for name, _ in peers:
            row.append(ratio(med(values(self.runs(name), "ask_rtt_us", "p50")), w))
        out.append("| " + " | ".join(row) + " |")
        out += ["", "_Medians over the runs [min-max]. CAF: request/then, the server returns the body; Erlang: "
                "gen_server:call to a registered name on the other node (a monitor per call, as call does); nginx: "
                "HTTP/1.1 POST of 100 B answered 200 with a fixed 100 B body on one keep-alive connection, wrk's "
                "own percentiles; Redis: redis-benchmark with one client, GET of a 100 B value (request small, "
                "reply 100 B) and SET (request 100 B, reply +OK); ≤: redis-benchmark lists percentiles at halving "
                "steps (50, 75, 87.5, 93.75 ...), so p90 and p99.9 are the next listed one, an upper bound. "
                "Above 1 in the last row: weft is faster._"]
        if self.wrk_disagrees():
            means = ", ".join(f"{r['ask_rtt_us']['wrk_mean']:.0f}" for r in self.runs("nginx"))
            out += ["", "_nginx's mean is the run time over the requests (one connection: exact). †: wrk's own "
                    f"histogram, whose mean ({means} µs by run) is well above that, so it holds more slow requests "
                    "than the run had time for; its tail percentiles are shown as wrk reports them but overstate._"]
        return out

    def wrk_disagrees(self):
        """wrk's histogram mean far above the run's own mean (run time over
        requests, exact for one connection) in any run."""
        return any(dig(r, "ask_rtt_us", "wrk_mean") and r["ask_rtt_us"]["wrk_mean"] > 1.5 * r["ask_rtt_us"]["mean"]
                   for r in self.runs("nginx"))

    def rate_table(self):
        peers = self.ask_peers()
        out = ["### Asks per second by requests in flight (100 B)", "",
               "| in flight | weft | " + " | ".join(label for _, label in peers) + " |",
               "|---|" + "---|" * (len(peers) + 1)]
        for k in LEVELS:
            row = [k, self.weft_cell("asks_per_s", k, fmt=rate)]
            for name, _ in peers:
                row.append(cell(values(self.runs(name), "asks_per_s", k), rate))
            out.append("| " + " | ".join(row) + " |")
        row = ["64, pipelined 16 deep", "-", "-", "-", "-"]
        for name in ("redis_get", "redis_set"):
            row.append(cell(values(self.runs(name), "asks_per_s", "64 pipelined 16"), rate))
        out.append("| " + " | ".join(row) + " |")
        w = dig(self.weft, "asks_per_s", "64") if self.weft else None
        row = ["weft ÷ this, 64 in flight", "-" if w else "n/a"]
        for name, _ in peers:
            row.append(ratio(w, med(values(self.runs(name), "asks_per_s", "64"))))
        out.append("| " + " | ".join(row) + " |")
        out += ["", "_In flight: CAF, that many requests outstanding from one actor; Erlang, that many processes "
                "each calling in a loop; nginx, wrk connections (one wrk thread); Redis, redis-benchmark clients, "
                "pipelining off except in the pipelined row. Above 1 in the last row: weft is faster._"]
        return out

    def interim_table(self):
        wi = self.peers.get("weft_interim") if self.peers else None
        if not wi:
            return []
        out = ["### weft today, from existing tools (not harnesses 2 and 3)", "",
               "| figure | weft | measured by |", "|---|---|---|"]
        if "tell_64_msg_per_s" in wi:
            out.append(f"| remote tell, 64 B | {rate(wi['tell_64_msg_per_s'])} msg/s | weft_bench_io "
                       "(two nodes in one process, one io_context, one thread; median of 3) |")
        a = wi.get("ask_rtt_us")
        if a:
            out.append(f"| ask round trip, 100 B, one at a time ({a['samples']:,} asks) | p50 {micros(a['p50'])}, "
                       f"p90 {micros(a['p90'])}, p99 {micros(a['p99'])}, max {micros(a['max'])} µs | two weftd on "
                       "loopback; POST /ask to the other node's echo through the admin endpoint, timed inside "
                       "weftd from the kernel's ask to its completion, whole µs |")
        later = ("the weft column above is harnesses 2 and 3, from weft_io.json" if self.weft else
                 "weft's column above stays n/a until weft_io.json exists (bench/run io, or bench/peers/weft_io.py)")
        out += ["", "_Interim only: the asks are spaced by an HTTP request each, so every one starts on a cold "
                f"path, and the tell runs both nodes on one thread; {later}._"]
        return out

    def problems(self):
        probs = self.peers.get("problems", {}) if self.peers else {}
        return [f"- {k}: {v}" for k, v in probs.items()]

    def render(self):
        parts = []
        m = self.peers.get("machine") if self.peers else None
        if m:
            parts.append(f"_Machine: {m['nproc']} CPUs, {m['cpu']}; {m['date']}; load average at start "
                         f"{m['load'][0]:.2f}; {self.peers['runs']} run(s) per peer"
                         f"{' (quick mode: small counts)' if self.peers.get('quick') else ''}._")
        if self.weft and self.weft.get("source"):
            parts.append(f"_weft column: {self.weft['source']}._")
        for table in (self.tell_table(), self.rtt_table(), self.rate_table(), self.interim_table()):
            if table:
                parts.append("\n".join(table))
        probs = self.problems()
        if probs:
            parts.append("Problems:\n" + "\n".join(probs))
        return "\n\n".join(parts) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peers", default=os.path.join(ROOT, "build", "bench", "peers.json"))
    ap.add_argument("--weft", default=os.path.join(ROOT, "build", "bench", "weft_io.json"))
    a = ap.parse_args()
    peers = None
    if os.path.exists(a.peers):
        with open(a.peers) as f:
            peers = json.load(f)
    else:
        print(f"report.py: no {a.peers}; run bench/run --peers", file=sys.stderr)
    weft = None
    if os.path.exists(a.weft):
        with open(a.weft) as f:
            weft = json.load(f)
    sys.stdout.write(Report(peers, weft).render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
