#!/usr/bin/env python3
"""Measures sharded entities in the simulator (issue 28; docs/performance.md,
"Sharded entities"): for each event kind, one generated scenario per seed
with that one event on a quiet network (crash, join, leave, partition;
--events picks some), played by weft-entities-sim, whose
workload prints per run every settling interval's median and max (a key's
placement unsettled: the live regions name different owners, or the owner
is not alive or does not serve it yet) and every two-host window (a key
hosted on two live nodes at once).

  tools/measure_entities.py build/release/tools/weft-entities-sim --seeds 1..100 --nodes 5
  tools/measure_entities.py build/release/tools/weft-entities-sim --workload entities_majority
  tools/measure_entities.py build/release/tools/weft-entities-sim --seeds 1..10 --nodes 100 --owners --events crash,leave

`--workload entities_majority` measures the counter in the majority mode
(its two-host windows must be 0); its events come at 12 s, not 5 s, since
voters that start serve nothing for their quiet (7.6 s).

Per event, over the runs with a settling interval: T_rebalance (a run's
longest settling interval) as median and max, and the two-host windows.
"""
import argparse
import concurrent.futures
import os
import re
import statistics
import subprocess
import sys
import tempfile

SUMMARY = re.compile(r"two hosts: (\d+)(?: \(median (\d+) ms, max (\d+) ms\))?; settling: (\d+)"
                     r"(?: \(median (\d+) ms, max (\d+) ms\))?")


def scenario(seed, nodes, event, at, victim):
    lines = [f"seed {seed} nodes {nodes} chaos {at + 25}.000s heal {at + 15}.000s", "network"]
    if event == "crash":
        lines.append(f"at {at}.000s crash n{victim}")
    elif event == "join":  # the node boots `at` after the others: a join
        lines += [f"at 0.000s crash n{victim}", f"at {at}.000s restart n{victim}"]
    elif event == "leave":  # the victim leaves gracefully; its process exits once removed
        lines.append(f"at {at}.000s leave n{victim}")
    elif event == "partition":  # the victim alone, for 15 s: long enough to be downed
        lines += [f"at {at}.000s partition {{ n{victim} }}", f"at {at + 15}.000s heal"]
    return "\n".join(lines) + "\n"


def run(sim, text, workload):
    with tempfile.NamedTemporaryFile("w", suffix=".scenario", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run([sim, "run", "--scenario", f.name, "--quiet", "--workload", workload],
                             capture_output=True, text=True, timeout=600)
    finally:
        os.unlink(f.name)
    line = next((l for l in out.stdout.splitlines() if l.startswith(workload + ": ")), "")
    m = SUMMARY.search(line)
    if m is None:
        sys.exit(f"no entities summary in the output:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    return out.returncode, [int(g) if g else 0 for g in m.groups()]


ACTIVE = re.compile(r"shard_active_entities\{actor=shard\.(\w+)\} \(gauge\): (.*); total")


def victim_of(sim, seed, nodes, at, workload, owners_only):
    """The node the event strikes: drawn from the seed among n2..nN, or,
    with owners_only, among those that host an entity at `at` (a probe run
    of the quiet network alone, stopped there): at 100 nodes most own none
    of the 24 keys, and an event on one that owns none moves nothing."""
    if not owners_only:
        return 2 + seed % (nodes - 1)
    text = f"seed {seed} nodes {nodes} chaos {at}.000s heal 1.000s\nnetwork\n"
    with tempfile.NamedTemporaryFile("w", suffix=".scenario", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run([sim, "run", "--scenario", f.name, "--workload", workload],
                             capture_output=True, text=True, timeout=600)
    finally:
        os.unlink(f.name)
    kind = "counter_majority" if workload == "entities_majority" else "counter"
    for m in ACTIVE.finditer(out.stdout):
        if m.group(1) != kind:
            continue
        hosts = [int(n[1:].split("=")[0]) for n in m.group(2).split() if int(n.split("=")[1]) > 0]
        hosts = [h for h in hosts if h != 1]
        if hosts:
            return hosts[seed % len(hosts)]
    return 2 + seed % (nodes - 1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("sim")
    p.add_argument("--seeds", default="1..100")
    p.add_argument("--nodes", type=int, default=5)
    p.add_argument("--workload", default="entities", choices=("entities", "entities_majority"))
    p.add_argument("--jobs", type=int, default=1, help="runs at once (one process each)")
    p.add_argument("--events", default="crash,join,leave,partition", help="comma-separated, of these four")
    p.add_argument("--owners", action="store_true",
                   help="strike a node that hosts an entity when the event comes (a probe run per seed)")
    a = p.parse_args()
    first, last = (int(x) for x in a.seeds.split(".."))
    at = 12 if a.workload == "entities_majority" else 5
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        victims = dict(zip(range(first, last + 1), pool.map(
            lambda seed: victim_of(a.sim, seed, a.nodes, at, a.workload, a.owners), range(first, last + 1))))
    print(f"| event | nodes | runs | runs with a settling interval | T_rebalance median | T_rebalance max | runs with two hosts | "
          f"longest two-host window |")
    print("|---|---|---|---|---|---|---|---|")
    for event in a.events.split(","):
        rebalance, windows, failed = [], [], 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            outcomes = list(pool.map(lambda seed: run(a.sim, scenario(seed, a.nodes, event, at, victims[seed]), a.workload),
                                     range(first, last + 1)))
        for code, (dups, _, dup_max, settles, _, settle_max) in outcomes:
            failed += code != 0
            if settles:
                rebalance.append(settle_max)
            if dups:
                windows.append(dup_max)
        runs = last - first + 1
        med = f"{statistics.median(rebalance)} ms" if rebalance else "-"
        top = f"{max(rebalance)} ms" if rebalance else "-"
        print(f"| {event} | {a.nodes} | {runs} ({failed} failed) | {len(rebalance)} | {med} | {top} | "
              f"{len(windows)} | {max(windows) if windows else 0} ms |")


if __name__ == "__main__":
    main()
