#!/usr/bin/env python3
"""Harness 9 of docs/benchmarks.md: failure detection on real sockets. Five
weftd on loopback (tests/io/weftcluster.py's helpers; 127.0.<net>.1..5), a
fresh cluster for every run, each scenario run --runs times (5), a Markdown
table of medians and ranges on stdout (progress on stderr), the runs in
build/bench/fd.json.

    bench/run fd                      # every scenario, 5 runs each (about 10 minutes)
    bench/run fd --quick              # smoke: kill and the 2 s pause, one run each (about a minute)
    failure_detection.py --weftd build/release/tools/weftd-bench --runs 3 --scenarios kill,pause10

Scenarios, each on node 5 (not a seed) after the five are up in every view
and have exchanged heartbeats for --warmup seconds:

- kill: SIGKILL; the time until every survivor holds it unreachable and
  until every survivor holds it down.
- pause2, pause5, pause10: SIGSTOP, SIGCONT after 2, 5 or 10 s; whether
  any survivor suspected it (unreachable) or downed it, when, and how long
  after SIGCONT every node is up in every view again. With the defaults a
  5 s pause must not be downed.
- flood: node 1 tells node 2's counter 1 KiB messages as fast as its
  outbound bound allows (weftd-bench's POST /flood) for --flood-seconds; any
  suspicion, the highest phi any node showed, and what was sent.

Every scenario also counts false suspicions: any node holding a healthy
node unreachable.

Times come from weftd's own event log (one line per membership or
reachability change, millisecond timestamps on the same clock as this
script's time.time()), not from polling, so they carry no poll interval.
Every wait has a deadline; every weftd is ended (SIGCONT, then SIGKILL) when
the script exits, however it exits.
"""

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from datetime import datetime

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "io"))
from weftcluster import Cluster  # noqa: E402

SCENARIOS = ("kill", "pause2", "pause5", "pause10", "flood")
QUICK = ("kill", "pause2")
NODES = 5

# 2026-11-30T19:20:00.123 warn [127.0.92.1:7001] 127.0.92.5:7001#1764... unreachable
LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}) \S+ \[(\S+)\] (.*)$")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def log(text):
    print(text, file=sys.stderr, flush=True)


def events(node, since):
    """(time, text) of the node's log lines at or after `since` (epoch s).
    spdlog writes local time to the millisecond, so a line can carry a
    time up to 1 ms before the event; `since` is taken 1 ms early."""
    out = []
    for line in node.log().splitlines():
        m = LINE.match(ANSI.sub("", line))
        if not m:
            continue
        t = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f").timestamp()
        if t >= since - 0.001:
            out.append((t, m.group(3)))
    return out


def first(node, since, subject, what):
    """When `node` first logged `subject` (an address) as `what` since then:
    'unreachable' or 'down'."""
    for t, text in events(node, since):
        if what == "unreachable" and text.startswith(subject + "#") and text.endswith(" unreachable"):
            return t
        if what == "down" and re.match(rf"member {re.escape(subject)}#\S+ down\b", text):
            return t
    return None


def suspicions(nodes, since, until=None):
    """Every (observer, subject, time) of an 'unreachable' line since then."""
    out = []
    for n in nodes:
        for t, text in events(n, since):
            if until is not None and t > until:
                continue
            if text.endswith(" unreachable") and "#" in text:
                out.append((n.address, text.split("#")[0], t))
    return out


def stalls(nodes, since):
    """Timer firings >= 500 ms late on nodes not under a fault: the process
    (or the whole machine, when every node reports one at once) was not
    run. A shared machine does this; weft's self-pause guard then holds
    back suspicion, so such runs are listed, not hidden."""
    out = []
    for n in nodes:
        for t, text in events(n, since):
            m = re.match(r"timer fired (\d+) ms late", text)
            if m and int(m.group(1)) >= 500:
                out.append(f"{n.address} ran {m.group(1)} ms late at +{t - since:.2f} s")
    return out


def boot(c, warmup):
    c.start_all()
    took = c.wait(f"{NODES} nodes up in every view", c.all_up(), 30)
    time.sleep(warmup)  # the detectors' windows hold this many heartbeats before the fault
    if not c.all_up()():
        raise AssertionError("the cluster lost a node during warm-up")
    return took


def run_kill(c, b, args):
    victim, survivors = c.nodes[-1], c.nodes[:-1]
    t0 = time.time()
    victim.kill()
    deadline = time.monotonic() + b["T_down"] + 10
    while time.monotonic() < deadline:
        downs = [first(n, t0, victim.address, "down") for n in survivors]
        if all(downs):
            break
        time.sleep(0.1)
    unr = [first(n, t0, victim.address, "unreachable") for n in survivors]
    downs = [first(n, t0, victim.address, "down") for n in survivors]
    false = [s for s in suspicions(survivors, t0) if s[1] != victim.address]
    return {
        "unreachable_first_s": min((t - t0 for t in unr if t), default=None),
        "unreachable_all_s": max(t - t0 for t in unr) if all(unr) else None,
        "down_all_s": max(t - t0 for t in downs) if all(downs) else None,
        "unreachable_seen_by": sum(1 for t in unr if t),
        "down_seen_by": sum(1 for t in downs if t),
        "false_suspicions": len(false),
        "stalls": stalls(survivors, t0),
    }


def run_pause(c, b, args, seconds):
    paused, rest = c.nodes[-1], c.nodes[:-1]
    t0 = time.time()
    paused.signal(signal.SIGSTOP)
    time.sleep(seconds)  # the fault is a length of time
    t_cont = time.time()
    paused.signal(signal.SIGCONT)
    back = None
    try:
        back = c.wait("every node up in every view after SIGCONT", c.all_up(), 30)
    except AssertionError:
        pass
    time.sleep(args.settle)  # late verdicts (a down decided before the resume) land here
    unr = [first(n, t0, paused.address, "unreachable") for n in rest]
    downs = [first(n, t0, paused.address, "down") for n in rest]
    false = [s for s in suspicions(c.nodes, t0) if s[1] != paused.address]
    return {
        "suspected_by": sum(1 for t in unr if t),
        "unreachable_first_s": min((t - t0 for t in unr if t), default=None),
        "unreachable_all_s": max(t - t0 for t in unr) if all(unr) else None,
        "downed_by": sum(1 for t in downs if t),
        "down_first_s": min((t - t0 for t in downs if t), default=None),
        "all_up_after_cont_s": back,
        "cont_at_s": t_cont - t0,
        "false_suspicions": len(false),
        "false_detail": [f"{o} held {s} unreachable at +{t - t0:.2f} s" for o, s, t in false][:5],
        "stalls": stalls(rest, t0),
    }


def get_json(node, path):
    status, body = node.get(path)
    return json.loads(body) if status == 200 else None


def run_flood(c, b, args):
    source, sink = c.nodes[0], c.nodes[1]
    t0 = time.time()
    req = urllib.request.Request(f"http://{source.admin}/flood?to={sink.address}/counter&bytes=1024"
                                 f"&seconds={args.flood_seconds}", data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=5) as r:
        if r.read() != b"flooding\n":
            raise AssertionError("weftd refused the flood")
    max_phi = 0.0
    deadline = time.monotonic() + args.flood_seconds + 20
    done = None
    while time.monotonic() < deadline:
        for n in c.nodes:
            view = get_json(n, "/members.json")
            for m in (view or {}).get("members", []):
                if m.get("phi") is not None:
                    max_phi = max(max_phi, float(m["phi"]))
        done = next((l for l in source.log().splitlines() if "flood to" in l and " done: " in l), None)
        if done:
            break
        time.sleep(0.5)
    if not done:
        raise AssertionError("the flood did not end")
    time.sleep(args.settle)
    sent = int(re.search(r"done: (\d+) sent", done).group(1))
    sus = suspicions(c.nodes, t0)
    return {
        "suspicions": len(sus),
        "suspicion_detail": [f"{o} held {s} unreachable at +{t - t0:.2f} s" for o, s, t in sus][:5],
        "max_phi": max_phi,
        "sent": sent,
        "sent_per_s": sent / args.flood_seconds,
        "all_up_after": bool(c.all_up()()),
        "stalls": stalls(c.nodes, t0),
    }


def run_one(args, scenario, index):
    workdir = os.path.join(args.workdir, f"{scenario}-{index}")
    c = Cluster(args.weftd, workdir, args.net, NODES, name="weft-fd")
    try:
        converged = boot(c, args.warmup)
        b = c.bounds()
        if scenario == "kill":
            r = run_kill(c, b, args)
        elif scenario.startswith("pause"):
            r = run_pause(c, b, args, int(scenario[len("pause"):]))
        else:
            r = run_flood(c, b, args)
        r["converged_s"] = converged
        r["bounds"] = b
        return r
    finally:
        c.stop_all()


# ---------------------------------------------------------------- the table

def spread(vals, unit=" s"):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    med = statistics.median(vals)
    if len(vals) == 1 or min(vals) == max(vals):
        return f"{med:.2f}{unit}"
    return f"{med:.2f}{unit} [{min(vals):.2f}-{max(vals):.2f}]"


def table(results, bounds, machine, args):
    out = [f"### Failure detection on real sockets ({NODES} weftd on loopback, default config)", "",
           "| scenario | runs | unreachable everywhere | down everywhere | suspected | downed | "
           "every node up again after SIGCONT | false suspicions of healthy nodes |",
           "|---|---|---|---|---|---|---|---|"]
    for name in SCENARIOS:
        runs = results.get(name)
        if not runs:
            continue
        ok = [r for r in runs if "error" not in r]
        bad = len(runs) - len(ok)
        n = f"{len(ok)}" + (f" (+{bad} failed)" if bad else "")
        false = sum(r.get("false_suspicions", 0) for r in ok)
        if name == "kill":
            out.append(f"| kill -9 | {n} | {spread([r['unreachable_all_s'] for r in ok])} | "
                       f"{spread([r['down_all_s'] for r in ok])} | - | - | - | {false} |")
        elif name.startswith("pause"):
            secs = name[len("pause"):]
            sus = f"{sum(1 for r in ok if r['suspected_by'])}/{len(ok)} runs"
            if any(r["suspected_by"] for r in ok):
                sus += f", first at {spread([r['unreachable_first_s'] for r in ok])}"
            downed = f"{sum(1 for r in ok if r['downed_by'])}/{len(ok)} runs"
            if any(r["downed_by"] for r in ok):
                downed += (f", first at {spread([r['down_first_s'] for r in ok])} "
                           f"(SIGCONT at {statistics.median(r['cont_at_s'] for r in ok):.2f} s)")
            out.append(f"| SIGSTOP {secs} s, then SIGCONT | {n} | "
                       f"{spread([r['unreachable_all_s'] for r in ok])} | - | {sus} | {downed} | "
                       f"{spread([r['all_up_after_cont_s'] for r in ok])} | {false} |")
        else:
            sus = f"{sum(1 for r in ok if r['suspicions'])}/{len(ok)} runs"
            out.append(f"| flood, 1 KiB tells n1 -> n2 for {args.flood_seconds} s | {n} | - | - | {sus} | - | - | "
                       f"{sum(r['suspicions'] for r in ok)} |")
    out.append("")
    notes = []
    if bounds:
        notes.append(f"bounds weftd computes for this config (--check-config): T_detect {bounds['T_detect']:.2f} s, "
                     f"T_down {bounds['T_down']:.2f} s")
    fl = [r for r in results.get("flood", []) if "error" not in r]
    if fl:
        notes.append(f"flood: {spread([r['sent_per_s'] for r in fl], ' msg/s')} sent (weftd-bench's /flood: up to the "
                     f"outbound bound every 5 ms); highest phi any node showed for any peer during it, polled "
                     f"every 0.5 s: {spread([r['max_phi'] for r in fl], '')}")
    notes.append("times from the fault (SIGKILL or SIGSTOP) to the last survivor's log line; median [min-max]; "
                 "suspected / downed: runs in which any survivor held the node unreachable / down; every node up "
                 "again: seconds after SIGCONT until all five views hold all five up and reachable; false "
                 "suspicions: unreachable lines about any other node, summed over the runs")
    notes.append(f"machine: {machine['nproc']} CPUs, {machine['cpu']}; {machine['date']}; load average at start "
                 f"{machine['load'][0]:.2f}; warm-up {args.warmup:g} s of heartbeats after convergence, fresh "
                 f"cluster per run")
    for name, runs in results.items():
        for i, r in enumerate(runs):
            if "error" in r:
                notes.append(f"{name} run {i + 1} failed: {r['error']}")
            if r.get("stalls"):
                notes.append(f"{name} run {i + 1}, a stall of the nodes under no fault: " + "; ".join(r["stalls"]))
            for d in r.get("false_detail", []) + r.get("suspicion_detail", []):
                notes.append(f"{name} run {i + 1}: {d}")
    out += [f"_{n}._" for n in notes]
    return "\n".join(out) + "\n"


def machine():
    model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"nproc": os.cpu_count(), "cpu": model, "date": time.strftime("%Y-%m-%d %H:%M %Z"),
            "load": os.getloadavg()}


def build():
    for cmd in (["./tools/setup"], ["cmake", "--preset", "release"],
                ["cmake", "--build", "--preset", "release", "--target", "weftd-bench"]):
        subprocess.run(cmd, cwd=ROOT, check=True, stdout=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # weftd-bench: weftd with the load generator (POST /flood) the flood runs drive.
    ap.add_argument("--weftd", default=os.path.join(ROOT, "build", "release", "tools", "weftd-bench"))
    ap.add_argument("--build", action="store_true", help="build weftd from the release preset first")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="one run each of kill and pause2 (a smoke test)")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds of heartbeats before the fault")
    ap.add_argument("--settle", type=float, default=3.0, help="seconds watched after recovery for late verdicts")
    ap.add_argument("--flood-seconds", type=int, default=20)
    ap.add_argument("--net", type=int, default=92, help="127.0.NET.x: apart from the io tests' 40..49")
    ap.add_argument("--workdir", default=os.path.join(ROOT, "build", "bench", "fd"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "fd.json"))
    args = ap.parse_args()
    if args.build:
        build()
    scenarios = QUICK if args.quick else tuple(s for s in args.scenarios.split(",") if s)
    runs = 1 if args.quick else args.runs
    for s in scenarios:
        if s not in SCENARIOS:
            ap.error(f"unknown scenario {s}; known: {', '.join(SCENARIOS)}")
    if not os.access(args.weftd, os.X_OK):
        ap.error(f"no weftd at {args.weftd} (--build builds it)")
    # SIGTERM ends the script like Ctrl-C: the clusters' finally blocks end
    # every weftd.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    m = machine()
    results = {}
    bounds = None
    for s in scenarios:
        for i in range(runs):
            log(f"--- {s}, run {i + 1} of {runs}")
            try:
                r = run_one(args, s, i + 1)
                bounds = r["bounds"]
            except (AssertionError, OSError, subprocess.SubprocessError) as e:
                r = {"error": f"{type(e).__name__}: {e}"}
            log(json.dumps({k: v for k, v in r.items() if k != "bounds"}))
            results.setdefault(s, []).append(r)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"machine": m, "quick": args.quick, "results": results}, f, indent=1)
    sys.stdout.write(table(results, bounds, m, args))
    failed = sum(1 for rs in results.values() for r in rs if "error" in r)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
