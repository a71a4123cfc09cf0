#!/usr/bin/env python3
"""Turns a Google Benchmark JSON file into one Markdown table.

    report.py RESULTS.json [--baseline 'REGEX=REPLACEMENT' ...] [--title TEXT]
                           [--stat median] [--time cpu|real] [--unit ns|us|ms|s]
                           [--counter 'NAME=LABEL' ...]

Columns: benchmark | ns/op (<stat>) | throughput | allocs/op | ratio vs baseline.

* One row per benchmark run, in the order the JSON lists them. With
  --benchmark_repetitions and aggregates, the row is the --stat aggregate
  (median by default); without aggregates, the median of the repetitions.
* ns/op is CPU time per iteration by default (--time real for wall time),
  the same clock Google Benchmark uses for its bytes/s and items/s rates.
  When one op processes many items (a stream of frames, a batch), the time
  per item follows in parentheses.
* throughput: bytes_per_second (GB/s or MB/s, decimal: 1 GB = 10^9 B) and
  items_per_second, whichever the benchmark set.
* allocs/op: the user counter "allocs/op", when the benchmark reports one.
* --unit: the unit of the time column (ns by default; ms suits whole runs).
* --counter NAME=LABEL: one more column, LABEL, with the user counter NAME
  (rates as Google Benchmark reported them: per second of the --time clock
  only if the benchmark measured that clock), "–" where a row lacks it.
* ratio vs baseline: each --baseline rule maps a benchmark name (a Python
  regex, matched against the whole name) to the name of its baseline (the
  replacement, with \\1 etc. for groups), both measured in the same run. The
  ratio is baseline time / this time, i.e. this benchmark's throughput as a
  multiple of the baseline's: above 1 is faster than the baseline. The first
  matching rule wins; rows that serve as a baseline say so.

Standard library only, so any harness that writes Google Benchmark JSON can
reuse it.
"""

import argparse
import json
import re
import statistics
import sys

_TIME_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def _parse_rule(text):
    pattern, sep, replacement = text.partition("=")
    if not sep or not pattern:
        raise argparse.ArgumentTypeError(f"expected REGEX=REPLACEMENT, got {text!r}")
    try:
        return re.compile(pattern), replacement
    except re.error as e:
        raise argparse.ArgumentTypeError(f"bad regex {pattern!r}: {e}") from e


def _parse_counter(text):
    name, sep, label = text.partition("=")
    if not name:
        raise argparse.ArgumentTypeError(f"expected NAME=LABEL, got {text!r}")
    return name, (label if sep and label else name)


def _rows(benchmarks, stat, clock):
    """One dict per run name: name, ns, bytes_per_second, items_per_second,
    counters, error. Keeps first-appearance order."""
    groups = {}
    for b in benchmarks:
        name = b.get("run_name") or b["name"]
        # Drop the suffixes Google Benchmark adds for UseRealTime, Iterations
        # and Repetitions, so names (and baseline rules) stay as registered.
        name = re.sub(r"/(real_time|iterations:\d+|repeats:\d+)(?=/|$)", "", name)
        groups.setdefault(name, []).append(b)

    rows = []
    for name, entries in groups.items():
        errors = [e for e in entries if e.get("error_occurred")]
        if errors:
            rows.append({"name": name, "error": errors[0].get("error_message", "error")})
            continue
        chosen = [e for e in entries
                  if e.get("run_type") == "aggregate" and e.get("aggregate_name") == stat]
        if chosen:
            picked = chosen[0]
            values = [picked]
        else:
            values = [e for e in entries if e.get("run_type", "iteration") == "iteration"]
            if not values:
                continue
            picked = values[0]

        def med(key):
            xs = [v[key] for v in values if isinstance(v.get(key), (int, float))]
            return statistics.median(xs) if xs else None

        unit = _TIME_UNIT_NS.get(picked.get("time_unit", "ns"), 1.0)
        t = med(f"{clock}_time")
        standard = {"name", "family_index", "per_family_instance_index", "run_name",
                    "run_type", "repetitions", "repetition_index", "threads", "iterations",
                    "real_time", "cpu_time", "time_unit", "aggregate_name", "aggregate_unit",
                    "bytes_per_second", "items_per_second", "label", "error_occurred",
                    "error_message"}
        counters = {k: med(k) for k in picked if k not in standard and med(k) is not None}
        rows.append({
            "name": name,
            "ns": None if t is None else t * unit,
            "bytes_per_second": med("bytes_per_second"),
            "items_per_second": med("items_per_second"),
            "counters": counters,
            "error": None,
        })
    return rows


def _fmt_number(ns):
    if ns >= 100:
        return f"{ns:,.0f}"
    if ns >= 10:
        return f"{ns:.1f}"
    return f"{ns:.2f}"


def _fmt_ns(row, unit="ns"):
    ns = row["ns"]
    if ns is None:
        return "–"
    text = _fmt_number(ns / _TIME_UNIT_NS[unit])
    items = row["items_per_second"]
    if items and ns * items / 1e9 > 1.5:  # many items per op
        text += f" ({_fmt_number(1e9 / items)} ns/item)" if unit != "ns" else f" ({_fmt_number(1e9 / items)}/item)"
    return text


def _fmt_counter(value):
    if value is None:
        return "–"
    for factor, prefix in [(1e9, " G"), (1e6, " M"), (1e3, " k")]:
        if abs(value) >= factor:
            return f"{value / factor:.3g}{prefix}"
    return f"{value:.3g}"


def _fmt_rate(value, unit, scales):
    for factor, prefix in scales:
        if value >= factor:
            return f"{value / factor:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def _fmt_throughput(row):
    parts = []
    if row["bytes_per_second"]:
        parts.append(_fmt_rate(row["bytes_per_second"], "B/s",
                               [(1e9, "G"), (1e6, "M"), (1e3, "k")]))
    if row["items_per_second"]:
        parts.append(_fmt_rate(row["items_per_second"], "items/s",
                               [(1e9, "G "), (1e6, "M "), (1e3, "k ")]))
    return ", ".join(parts) if parts else "–"


def _fmt_allocs(row):
    value = row["counters"].get("allocs/op")
    if value is None:
        return "–"
    if value == 0:
        return "0"
    return f"{value:.3g}"


def render(data, rules, stat="median", clock="cpu", title=None, notes=(), unit="ns", counters=()):
    rows = _rows(data.get("benchmarks", []), stat, clock)
    by_name = {r["name"]: r for r in rows}

    baseline_of = {}
    for r in rows:
        for pattern, replacement in rules:
            m = pattern.fullmatch(r["name"])
            if m:
                baseline_of[r["name"]] = m.expand(replacement)
                break
    used_as_baseline = {b for b in baseline_of.values() if b in by_name}

    lines = []
    if title:
        lines += [f"### {title}", ""]
    time_label = f"{unit}/op" if clock == "cpu" else f"{unit}/op (wall)"
    extra = "".join(f" {label} |" for _, label in counters)
    lines.append(f"| benchmark | {time_label} ({stat}) | throughput | allocs/op |{extra} ratio vs baseline |")
    lines.append("|---|---:|---|---:|" + "---:|" * len(counters) + "---|")
    for r in rows:
        if r.get("error"):
            lines.append(f"| {r['name']} | ERROR: {r['error']} | | |" + " |" * len(counters) + " |")
            continue
        ratio = "–"
        base_name = baseline_of.get(r["name"])
        if base_name is not None:
            base = by_name.get(base_name)
            if base and not base.get("error") and base["ns"] and r["ns"]:
                value = base['ns'] / r['ns']
                ratio = f"{value:.2f}× {base_name}" if value >= 0.1 else f"{value:.2g}× {base_name}"
            else:
                ratio = f"(baseline {base_name} missing)"
        elif r["name"] in used_as_baseline:
            ratio = "baseline"
        cells = "".join(f" {_fmt_counter(r['counters'].get(name))} |" for name, _ in counters)
        lines.append(f"| {r['name']} | {_fmt_ns(r, unit)} | {_fmt_throughput(r)} | "
                     f"{_fmt_allocs(r)} |{cells} {ratio} |")

    ctx = data.get("context", {})
    reps = {e.get("repetitions") for e in data.get("benchmarks", []) if e.get("repetitions")}
    notes = list(notes)
    if ctx.get("num_cpus"):
        notes.append(f"{ctx['num_cpus']} CPUs @ {ctx.get('mhz_per_cpu', '?')} MHz")
    if ctx.get("host_name"):
        notes.append(f"host {ctx['host_name']}")
    if ctx.get("date"):
        notes.append(ctx["date"])
    if reps:
        notes.append(f"{stat} of {max(reps)} repetitions")
    notes.append(f"{clock} time; 1 GB = 10^9 B; ratio = baseline time / this time")
    if ctx.get("library_build_type") == "debug":
        notes.append("libbenchmark itself is a debug build (harness overhead only)")
    lines += ["", "_" + "; ".join(notes) + "._"]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", help="Google Benchmark JSON (--benchmark_out)")
    parser.add_argument("--baseline", action="append", default=[], type=_parse_rule,
                        metavar="REGEX=REPLACEMENT",
                        help="map benchmark names to their baseline's name")
    parser.add_argument("--stat", default="median",
                        help="aggregate to report: median (default) or mean")
    parser.add_argument("--time", dest="clock", choices=["cpu", "real"], default="cpu")
    parser.add_argument("--unit", choices=sorted(_TIME_UNIT_NS), default="ns",
                        help="unit of the time column (default ns)")
    parser.add_argument("--counter", action="append", default=[], type=_parse_counter,
                        metavar="NAME=LABEL", help="add a column for a user counter (repeatable)")
    parser.add_argument("--title", help="heading printed above the table")
    parser.add_argument("--note", action="append", default=[],
                        help="sentence for the caption under the table (repeatable)")
    args = parser.parse_args(argv)
    with open(args.json, encoding="utf-8") as f:
        data = json.load(f)
    print(render(data, args.baseline, args.stat, args.clock, args.title, args.note, args.unit,
                 args.counter))
    return 0


if __name__ == "__main__":
    sys.exit(main())
