#!/usr/bin/env python3
"""Writes build/bench/weft_io.json, the weft column of bench/peers/report.py
(format at the top of report.py), from the tables weft_bench_net wrote:

    net_tell.json          harness 2: msg/s and MB/s per body size
    net_ask_latency.json   harness 3: the "weft ask, one thread" row
    net_ask_rate.json      harness 3: weft asks/s per number in flight

    weft_io.py [--dir build/bench] [--out build/bench/weft_io.json]

bench/run tell, ask and io run it after their harness; run it by hand after
running weft_bench_net yourself. The tables hold the figures as printed
(e.g. "1.79 M"), which is the precision report.py prints them at too. A file,
row or cell that is missing stays missing in weft_io.json, so report.py
shows n/a for it. "source" names each file with its time of writing and run
count, since a later tell or ask run replaces only its own file.
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TELL_SIZES = {"64 B": "64", "1 KB": "1024", "16 KB": "16384"}
LEVELS = ("1", "4", "16", "64")
ASK_ROW = "weft ask, one thread"
QUANTILE_COLUMNS = {"mean": "mean us", "p50": "p50 us", "p90": "p90 us", "p99": "p99 us",
                    "p99.9": "p99.9 us", "max": "max us"}


def number(text):
    """A cell as bench/net/common.cpp formats it ("1.79 M", "47.6 k",
    "100,000", "18.7"), or None when it is empty or not a number."""
    if not isinstance(text, str):
        return None
    t = text.strip().replace(",", "")
    scale = 1.0
    if t.endswith(" M"):
        t, scale = t[:-2], 1e6
    elif t.endswith(" k"):
        t, scale = t[:-2], 1e3
    try:
        return round(float(t) * scale, 6)
    except ValueError:
        return None


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def put(obj, key, value):
    if value is not None:
        obj[key] = value


def describe(name, path, table):
    """Which file, when it was written, over how many runs, and whether it was
    a smoke run: what a reader needs to weigh the figures."""
    when = datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc)
    notes = " ".join(table.get("notes", []))
    runs = re.search(r"median (?:of|over) (\d+) runs", notes)
    text = f"{name} written {when:%Y-%m-%d %H:%M}Z"
    if runs:
        text += f", median of {runs.group(1)} runs"
    if "quick:" in notes:
        text += ", QUICK (smoke counts, not a measurement)"
    return text


def rows_by(table, key):
    return {r.get(key): r for r in table.get("rows", [])}


def convert(directory):
    out, said = {}, []

    path = os.path.join(directory, "net_tell.json")
    table = load(path)
    if table is not None:
        tell = {}
        rows = rows_by(table, "payload")
        for label, size in TELL_SIZES.items():
            row = rows.get(label, {})
            entry = {}
            put(entry, "msg_per_s", number(row.get("weft msg/s")))
            put(entry, "mb_per_s", number(row.get("weft MB/s")))
            if entry:
                tell[size] = entry
        if tell:
            out["tell"] = tell
        said.append("tell: " + describe("net_tell.json", path, table))

    path = os.path.join(directory, "net_ask_latency.json")
    table = load(path)
    if table is not None:
        row = rows_by(table, "path").get(ASK_ROW, {})
        rtt = {}
        samples = number(row.get("samples/run"))
        put(rtt, "samples", int(samples) if samples is not None else None)
        for key, column in QUANTILE_COLUMNS.items():
            put(rtt, key, number(row.get(column)))
        if rtt:
            out["ask_rtt_us"] = rtt
        said.append(f"ask round trip: row \"{ASK_ROW}\" (both nodes on one thread) of "
                    + describe("net_ask_latency.json", path, table))

    path = os.path.join(directory, "net_ask_rate.json")
    table = load(path)
    if table is not None:
        rows = rows_by(table, "in flight")
        rate = {}
        for k in LEVELS:
            put(rate, k, number(rows.get(k, {}).get("weft asks/s")))
        if rate:
            out["asks_per_s"] = rate
        said.append("asks/s: " + describe("net_ask_rate.json", path, table))

    if not said:
        return None
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        head = "?"
    # The tables do not record their commit; the one checked out when they
    # were converted is the same when bench/run converts right after a run.
    out["source"] = (f"weft_bench_net on real loopback TCP, two nodes in one process on one pinned thread; "
                     f"{'; '.join(said)}; converted by bench/peers/weft_io.py at {head}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--out", default=None, help="default: DIR/weft_io.json")
    a = ap.parse_args()
    out_path = a.out or os.path.join(a.dir, "weft_io.json")
    data = convert(a.dir)
    if data is None:
        print(f"weft_io.py: none of net_tell.json, net_ask_latency.json, net_ask_rate.json in {a.dir}; "
              f"{out_path} left as it was (run bench/run io)", file=sys.stderr)
        return 1
    tmp = out_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(tmp, out_path)
    print(f"weft_io.py: wrote {out_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
