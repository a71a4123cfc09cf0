#!/usr/bin/env python3
"""What a connection that never says hello costs a weftd: RSS before, while
N such connections are held, and after they are closed, for several waves.

    bench/idle_connections.py [--weftd build/release/tools/weftd] [--count 3000] [--waves 3]

One weftd alone on 127.0.97.1 (loopback only); every wave is bounded in
count and time (N connects, then 1.5 s held, then 1.5 s after closing).
Prints one line: the RSS in MiB at each point and the KiB per connection.
A connection closes at handshake_timeout (5 s) on its own; this closes
them first, from the client side.
"""

import argparse
import os
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weftd", default=os.path.join(ROOT, "build", "release", "tools", "weftd"))
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--waves", type=int, default=3)
    ap.add_argument("--host", default="127.0.97.1")
    a = ap.parse_args()
    if a.count < 1 or a.count > 20000 or a.waves < 1 or a.waves > 10:
        sys.exit("idle_connections: --count must be 1..20000 and --waves 1..10")
    node = subprocess.Popen([a.weftd, f"--advertise={a.host}:7001", f"--admin={a.host}:8001"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        if node.poll() is not None:
            sys.exit(f"idle_connections: weftd exited with {node.returncode}")
        start = rss_mib(node.pid)
        points = [f"start {start:.1f}"]
        held_mib = start
        for wave in range(1, a.waves + 1):
            socks = [socket.create_connection((a.host, 7001), timeout=2) for _ in range(a.count)]
            time.sleep(1.5)
            held_mib = rss_mib(node.pid)
            points.append(f"wave {wave} held {held_mib:.1f}")
            for s in socks:
                s.close()
            time.sleep(1.5)
            points.append(f"closed {rss_mib(node.pid):.1f}")
        per = (held_mib - start) * 1024 / a.count
        print(f"{a.count} idle connections, RSS MiB: {', '.join(points)} (about {per:.1f} KiB a connection held)")
    finally:
        node.terminate()
        node.wait(timeout=10)


if __name__ == "__main__":
    main()
