#!/usr/bin/env python3
"""A failing run's printed replay command reproduces the failure.

    replay_check.py BINARY --seeds A..B [FLAGS...]     # a sweep's first failure
    replay_check.py BINARY shrink --seed S [FLAGS...]  # a shrunk schedule

Sweeps BINARY over the seeds with FLAGS (a planted defect) and takes the
first FAIL line and its `replay:` command; or shrinks the failing seed and
takes the smallest schedule's failure and `replay:` command (requiring fewer
faults than it started with). Runs that command with the same binary and
requires it to fail with the same exit code and the same first failure line.
Prints "PASS replay" or the difference.
"""
import subprocess
import sys


def from_sweep(binary, args):
    sweep = subprocess.run([binary, "sweep", *args], capture_output=True, text=True)
    lines = sweep.stdout.splitlines()
    fail = next((i for i, l in enumerate(lines) if l.startswith("FAIL seed ")), None)
    if fail is None:
        raise AssertionError(f"the sweep found no failure to replay (exit {sweep.returncode})\n{sweep.stdout[-2000:]}")
    header = lines[fail]            # FAIL seed N (exit E): FIRST LINE
    replay = lines[fail + 1].strip()
    exit_code = int(header.split("(exit ")[1].split(")")[0])
    return header, header.split("): ", 1)[1], exit_code, replay


def from_shrink(binary, args):
    shrunk = subprocess.run([binary, "shrink", *args], capture_output=True, text=True)
    lines = shrunk.stdout.splitlines()
    if not lines or " shrink: " not in lines[0] or "still failing" not in lines[0]:
        raise AssertionError(f"shrink did not shrink a failure (exit {shrunk.returncode})\n{shrunk.stdout[-2000:]}")
    header = lines[0]               # X shrink: A faults -> B in N runs, still failing P (exit E):
    before, after = header.split(" shrink: ")[1].split(" in ")[0].split(" faults -> ")
    if not int(after) < int(before):
        raise AssertionError(f"shrink kept every fault: {header}")
    exit_code = int(header.split("(exit ")[1].split(")")[0])
    if shrunk.returncode != exit_code:
        raise AssertionError(f"shrink exited {shrunk.returncode}, not the failure's {exit_code}")
    return header, lines[1].strip(), exit_code, lines[-1].strip()


def main():
    binary, *args = sys.argv[1:]
    try:
        header, first_line, exit_code, replay = (from_shrink(binary, args[1:]) if args and args[0] == "shrink"
                                                 else from_sweep(binary, args))
    except AssertionError as e:
        print(f"FAIL: {e}")
        return 1
    assert replay.startswith("replay: "), replay
    command = replay[len("replay: "):].split()
    command[0] = binary  # the printed command names the program; run the one under test
    again = subprocess.run(command, capture_output=True, text=True)
    if again.returncode != exit_code:
        print(f"FAIL: {' '.join(command)} exited {again.returncode}, the sweep saw {exit_code}")
        return 1
    if first_line not in again.stdout:
        print(f"FAIL: the replay does not print the sweep's failure line:\n  {first_line}\n{again.stdout[-2000:]}")
        return 1
    print(f"{header}\nreplayed by: {' '.join(replay.split()[1:])}\nPASS replay")
    return 0


if __name__ == "__main__":
    sys.exit(main())
