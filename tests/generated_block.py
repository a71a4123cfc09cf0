"""The one command line of the reference scripts (phi_reference.py,
prng_reference.py): print the block a C++ test pins, or --check FILE that the
block committed in FILE, between the BEGIN and END lines, is byte for byte
what the script prints."""

import difflib
import sys


def committed_block(path, begin, end):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.find(begin)
    stop = text.find(end, start)
    if start < 0 or stop < 0:
        return None
    return text[start:stop + len(end)] + "\n"


def main(argv, expected, begin, end, script, what, usage):
    """`what` names the block's contents in messages ("tables", "pinned values")."""
    if len(argv) == 1:
        sys.stdout.write(expected)
        return 0
    if len(argv) == 3 and argv[1] == "--check":
        found = committed_block(argv[2], begin, end)
        if found is None:
            print(f"{argv[2]}: no block between\n  {begin}\n  {end}")
            return 1
        if found != expected:
            print(f"{argv[2]}: the {what} differ from {script}:")
            sys.stdout.writelines(difflib.unified_diff(
                found.splitlines(True), expected.splitlines(True), argv[2], script))
            return 1
        print(f"{argv[2]}: every one of the {what} matches {script}")
        return 0
    print(usage)
    return 2
