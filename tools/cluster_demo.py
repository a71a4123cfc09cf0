#!/usr/bin/env python3
"""`./tools/run cluster`: three weftd on loopback, converging, one killed
with SIGKILL (detected, downed, removed), restarted (rejoins with a new
incarnation), then everything stopped. Prints a timeline like weft-sim's:
seconds since start, the observer, what changed in its view."""

import os
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "io"))
from weftcluster import Cluster  # noqa: E402


def main():
    build = sys.argv[1]
    workdir = tempfile.mkdtemp(prefix="weft-cluster-")
    seen = {}
    start = time.monotonic()

    def note(observer, text):
        print(f"  {time.monotonic() - start:8.3f}  n{observer.index}  {text}", flush=True)

    def watch(c, seconds, until=None):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for n in c.nodes:
                if not n.alive():
                    continue
                view = n.view()
                if view is None:
                    continue
                for m in view["members"]:
                    state = (m["incarnation"], m["status"], m["unreachable"])
                    key = (n.index, m["address"])
                    if seen.get(key) != state:
                        seen[key] = state
                        note(n, f"{m['address']}#{m['incarnation']} {m['status']}"
                                + (" (unreachable)" if m["unreachable"] else ""))
            if until and until():
                return True
            time.sleep(0.05)
        return False

    with Cluster(os.path.join(build, "weftd"), workdir, 200, 3, name="weft-demo") as c:
        b = c.bounds()
        print(f"three weftd on 127.0.200.1-3:7001 (logs in {workdir}); "
              f"T_detect {b['T_detect']:.2f} s, T_down {b['T_down']:.2f} s\n\ntimeline (seconds, observer, event):")
        c.start_all()
        ok = watch(c, 20, c.all_up())
        print(f"  {time.monotonic() - start:8.3f}  --  {'converged: every node sees all three up' if ok else 'NOT converged'}")
        victim = c.nodes[2]
        victim.kill()
        print(f"  {time.monotonic() - start:8.3f}  --  SIGKILL n3")
        gone = lambda: all((m := n.member(victim)) is None or m["status"] == "removed" for n in c.nodes[:2])  # noqa: E731
        ok = watch(c, b["T_down"] + 10, gone) and ok
        print(f"  {time.monotonic() - start:8.3f}  --  {'n3 detected, downed and removed' if ok else 'n3 NOT removed'}")
        victim.start()
        print(f"  {time.monotonic() - start:8.3f}  --  n3 restarted")
        ok = watch(c, 20, c.all_up()) and ok
        print(f"  {time.monotonic() - start:8.3f}  --  {'n3 rejoined with a new incarnation' if ok else 'n3 NOT back'}")
        # Stopped one at a time, each with SIGTERM: it leaves (leaving,
        # exiting, removed) and exits; the others see it go, not fail.
        for n in reversed(c.nodes):
            n.signal(signal.SIGTERM)
            watch(c, 10, lambda n=n: not n.alive())
            print(f"  {time.monotonic() - start:8.3f}  --  n{n.index} left (SIGTERM) and exited {n.proc.returncode}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
