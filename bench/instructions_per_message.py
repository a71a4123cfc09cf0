#!/usr/bin/env python3
"""Instructions per message of weft_bench_shard's tells over a link, by callgrind.

Timed ratios on a shared two-core VM swing with the neighbours; instruction
counts do not. For each of direct_tell_remote/B, entity_tell_remote/B (tells
batched per owner) and unbatched_tell_remote/B (each in its own envelope) this
runs the benchmark under callgrind and prints the benchmark function's
inclusive instructions, less its two-node setup (TwoNodes::TwoNodes, which
joins the nodes), over the sends it made (Kernel::tell's calls for the direct
path, Entities::tell's for the entity path: the warm-up's few sends are
counted too). Google Benchmark runs each function more than once while it
sizes the iteration count; the calls counted are every run's, so trial runs
cancel out.

    bench/instructions_per_message.py [--batch 64] [--bench build/release/bench/weft_bench_shard]

Needs valgrind (Debian's package; not among tools/setup's, so this is a
measurement tool, not a test).
"""
import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def blocks(tree_text):
    block = []
    for line in tree_text.splitlines():
        if line.strip():
            block.append(line)
        elif block:
            yield block
            block = []
    if block:
        yield block


def inclusive_and_calls(tree_text, name):
    """The inclusive cost of the first function whose name contains `name`,
    and how many times its callers called it."""
    for block in blocks(tree_text):
        star = [line for line in block if "*  " in line and name in line]
        if not star:
            continue
        cost = int(star[0].split()[0].replace(",", ""))
        calls = 0
        for line in block:
            if "<" in line.split("*")[0]:
                m = re.search(r"\(([0-9,]+)x\)", line)
                calls += int(m.group(1).replace(",", "")) if m else 1
        return cost, calls
    raise SystemExit(f"instructions_per_message: {name} not in the profile")


def measure(bench, path, batch, sender):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", bench,
                        f"--benchmark_filter={path}_tell_remote/{batch}$", "--benchmark_min_time=0.2"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        tree = subprocess.run(["callgrind_annotate", "--tree=caller", "--inclusive=yes", str(out)],
                              check=True, capture_output=True, text=True).stdout
    whole, _ = inclusive_and_calls(tree, f"{path}_tell_remote(benchmark")
    setup, _ = inclusive_and_calls(tree, "TwoNodes::TwoNodes")
    _, sends = inclusive_and_calls(tree, sender)
    return (whole - setup) / sends, sends


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--bench", default="build/release/bench/weft_bench_shard")
    args = parser.parse_args()
    direct, n_direct = measure(args.bench, "direct", args.batch, "weft::Kernel::tell(")
    entity_tell = "weft::shard::Entities::tell(weft::Kernel&"
    entity, n_entity = measure(args.bench, "entity", args.batch, entity_tell)
    alone, n_alone = measure(args.bench, "unbatched", args.batch, entity_tell)
    print(f"direct_tell_remote/{args.batch}: {direct:,.0f} instructions per message ({n_direct} sends)")
    print(f"entity_tell_remote/{args.batch}: {entity:,.0f} instructions per message ({n_entity} sends)")
    print(f"unbatched_tell_remote/{args.batch}: {alone:,.0f} instructions per message ({n_alone} sends)")
    print(f"ratio: {direct / entity:.2f}x (unbatched: {direct / alone:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
