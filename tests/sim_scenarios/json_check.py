#!/usr/bin/env python3
"""Checks weft-sim --json: stdout is one JSON document, and it agrees with
what the text output says.

  json_check.py run SIM SCENARIO
      The scenario's run: the document parses (strictly: no NaN or
      Infinity), its trace hash, events and verdict are the text run's, its
      counts cover every mark and check; a mutation run that fails carries
      its failures and the replay command, and exits as the text run does.

  json_check.py sweep SIM
      A sweep split in two shards (with --jobs 2) adds up to the unsharded
      sweep: the same seeds with the same hashes and verdicts, and the same
      totals of events, simulated seconds, marks and judgements.
"""
import json
import re
import subprocess
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def no_constants(name):
    fail("the JSON holds %s, which JSON does not have" % name)


def sim_json(sim, args, expect_exit):
    proc = subprocess.run([sim] + args + ["--json"], capture_output=True, text=True, timeout=600)
    if proc.returncode != expect_exit:
        fail("weft-sim %s --json exited %d, expected %d\n%s" % (" ".join(args), proc.returncode, expect_exit,
                                                               proc.stderr[-2000:]))
    try:
        doc = json.loads(proc.stdout, parse_constant=no_constants)
    except json.JSONDecodeError as e:
        fail("weft-sim %s --json printed no single JSON document (%s):\n%s" % (" ".join(args), e,
                                                                             proc.stdout[:2000]))
    if not isinstance(doc, dict):
        fail("the document is not an object")
    return doc


def text_run(sim, args):
    proc = subprocess.run([sim] + args, capture_output=True, text=True, timeout=600)
    m = re.search(r"^events: (\d+)\ntrace hash: ([0-9a-f]{16})$", proc.stdout, re.M)
    if not m:
        fail("no events and trace hash in:\n" + proc.stdout[-2000:])
    return proc.returncode, int(m.group(1)), m.group(2), proc.stdout


def check_run(sim, scenario):
    args = ["run", "--quiet", "--scenario", scenario]
    rc, events, hash_, _ = text_run(sim, args)
    doc = sim_json(sim, args, rc)
    for key in ("verdict", "exit_code", "failures", "replay", "trace_hash", "events", "simulated_seconds",
                "wall_seconds", "marks", "judged", "seed", "nodes"):
        if key not in doc:
            fail("the run's document lacks %r" % key)
    if (doc["trace_hash"], doc["events"], doc["exit_code"]) != (hash_, events, rc):
        fail("JSON says hash %s, %d events, exit %d; the text run %s, %d, %d"
             % (doc["trace_hash"], doc["events"], doc["exit_code"], hash_, events, rc))
    if doc["verdict"] != "pass" or doc["failures"] or doc["replay"] is not None:
        fail("the scenario should pass: %s %s" % (doc["verdict"], doc["failures"]))
    if len(doc["marks"]) != 10 or len(doc["judged"]) < 10 or sum(doc["judged"].values()) == 0:
        fail("marks %s, judged %s" % (doc["marks"], doc["judged"]))
    if not doc["simulated_seconds"] >= 30 or not doc["wall_seconds"] >= 0:
        fail("timings: %s simulated, %s wall" % (doc["simulated_seconds"], doc["wall_seconds"]))

    bad = sim_json(sim, args + ["--mutation", "downing_off"], 10) if "crash_stays_down" in scenario else None
    if bad is not None:
        if bad["verdict"] != "safety_failure" or not bad["failures"] or not bad["failures"][0].startswith("F1: "):
            fail("the downing_off run: %s %s" % (bad["verdict"], bad["failures"]))
        if "--mutation downing_off" not in (bad["replay"] or ""):
            fail("the failing run's replay command is %r" % bad["replay"])
    print("run: %s, trace hash %s, %d events, %.3f s simulated, %.3f s wall, the text run's; %s"
          % (doc["verdict"], doc["trace_hash"], doc["events"], doc["simulated_seconds"], doc["wall_seconds"],
             "downing_off: %s with replay `%s`" % (bad["failures"][0][:40], bad["replay"]) if bad else ""))


def check_sweep(sim):
    base = ["sweep", "--seeds", "1..12", "--chaos", "10"]
    whole = sim_json(sim, base, 0)
    shards = [sim_json(sim, base + ["--jobs", "2", "--shard", "%d/2" % i], 0) for i in (1, 2)]
    for i, s in enumerate(shards, 1):
        if s["shard"] != {"index": i, "count": 2} or s["seeds"] != {"first": 1, "last": 12}:
            fail("shard %d says %s of %s" % (i, s["shard"], s["seeds"]))
    runs = sorted((r for s in shards for r in s["runs"]), key=lambda r: r["seed"])
    if [r["seed"] for r in runs] != list(range(1, 13)):
        fail("the shards ran seeds %s" % [r["seed"] for r in runs])
    if runs != whole["runs"]:
        fail("the shards' runs differ from the whole sweep's")
    for key in ("seeds_run", "passed", "failed", "events"):
        if sum(s[key] for s in shards) != whole[key]:
            fail("%s: shards sum to %d, the whole sweep says %d" % (key, sum(s[key] for s in shards), whole[key]))
    if abs(sum(s["simulated_seconds"] for s in shards) - whole["simulated_seconds"]) > 1e-6:
        fail("simulated seconds do not add up")
    for table, field in (("marks", "hits"), ("marks", "seeds"), ("judged", "judgements"), ("judged", "seeds")):
        for name, counts in whole[table].items():
            if sum(s[table][name][field] for s in shards) != counts[field]:
                fail("%s %s %s does not add up" % (table, name, field))
    print("sweep: 2 shards of seeds 1..12 add up to the whole sweep: %d runs, %d events, %.1f s simulated, "
          "%d judgements" % (whole["seeds_run"], whole["events"], whole["simulated_seconds"],
                             sum(c["judgements"] for c in whole["judged"].values())))


def main(argv):
    if len(argv) >= 4 and argv[1] == "run":
        check_run(argv[2], argv[3])
    elif len(argv) >= 3 and argv[1] == "sweep":
        check_sweep(argv[2])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
