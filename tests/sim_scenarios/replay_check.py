#!/usr/bin/env python3
"""A failing seed's printed replay command reproduces the failure.

    replay_check.py BINARY --seeds A..B [FLAGS...]

Sweeps BINARY over the seeds with FLAGS (a planted defect), takes the first
FAIL line and its `replay:` command, runs that command with the same binary,
and requires it to fail with the same exit code and the same first failure
line. Prints "PASS replay" or the difference.
"""
import subprocess
import sys


def main():
    binary, *args = sys.argv[1:]
    sweep = subprocess.run([binary, "sweep", *args], capture_output=True, text=True)
    lines = sweep.stdout.splitlines()
    fail = next((i for i, l in enumerate(lines) if l.startswith("FAIL seed ")), None)
    if fail is None:
        print(f"FAIL: the sweep found no failure to replay (exit {sweep.returncode})\n{sweep.stdout[-2000:]}")
        return 1
    header = lines[fail]            # FAIL seed N (exit E): FIRST LINE
    replay = lines[fail + 1].strip()
    assert replay.startswith("replay: "), replay
    command = replay[len("replay: "):].split()
    exit_code = int(header.split("(exit ")[1].split(")")[0])
    first_line = header.split("): ", 1)[1]
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
