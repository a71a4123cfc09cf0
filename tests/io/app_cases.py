"""A user's own application deployed (issue 27), run by test_cluster.py:

- counterd: three weft-counterd (props/counter/counterd.cpp: the sharded
  counter weft-counter-sim simulates, on weft::daemon::main) converge;
  increments sent through n1's admin endpoint to the shard that owns the
  key, on n2, are acknowledged with the counts 1..10 (the typed protocol of
  props/counter/counter_actor.hpp, MessagePack by hand); a body that does
  not decode is answered BadRequest (the shard's typed dead letter; those
  are not in the daemon's metrics yet); a SIGTERM leave of n3 ends with n3 removed everywhere and its
  process exiting 0.
"""

import signal
import urllib.error
import urllib.request

INCREMENT_TAG = 1  # the tag the admin endpoint's /ask sends (counter_actor.hpp: Increment)


def ask(node, target, body):
    """POSTs /ask to `node` for `target` (host:port/actor); returns the
    outcome header and the reply's bytes."""
    req = urllib.request.Request(f"http://{node.admin}/ask?to={target}&timeout_ms=2000", data=body, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.headers.get("X-Weft-Outcome"), r.read()
    except urllib.error.HTTPError as e:
        return e.headers.get("X-Weft-Outcome"), e.read()


def case_counterd(c, ctl):
    c.start_all()
    took = c.wait("3 weft-counterd see each other up", c.all_up(), 20)
    print(f"3 weft-counterd converged in {took:.2f} s")
    n1, n2, n3 = c.nodes
    key = 4  # owner(4, 3) = 4 mod 3 + 1 = n2
    shard = f"{n2.address}/counter"
    counts = []
    for _ in range(10):
        outcome, body = ask(n1, shard, bytes([0x91, key]))  # Increment{key}: fixarray of one fixint
        assert outcome == "reply", f"an increment of key {key} through n1: {outcome} {body!r}"
        assert len(body) == 3 and body[0] == 0x92 and body[1] == key, f"not a Value{{key, count}}: {body!r}"
        counts.append(body[2])
    assert counts == list(range(1, 11)), f"the acknowledged counts of key {key}: {counts}"
    outcome, body = ask(n1, shard, b"not msgpack")
    assert outcome == "reply" and body[:1] == b"\x91", f"a bad body: {outcome} {body!r} (BadRequest{{reason}})"
    print(f"10 increments of key {key} through n1 to the shard on n2 acknowledged with counts {counts[0]}..{counts[-1]}; "
          f"a body that does not decode answered BadRequest ({body[2:].decode(errors='replace')!r})")
    n3.signal(signal.SIGTERM)
    c.wait("n3 exits after its leave", lambda: not n3.alive(), 15)
    assert n3.proc.returncode == 0, f"weft-counterd n3 exited {n3.proc.returncode}"
    c.wait("n1 and n2 hold n3 removed",
           lambda: all((m := n.member(n3)) is None or m["status"] == "removed" for n in (n1, n2)), 10)
    outcome, body = ask(n1, shard, bytes([0x91, key]))
    assert outcome == "reply" and body == bytes([0x92, key, 11]), f"after n3 left: {outcome} {body!r}"
    print("SIGTERM: n3 left and exited 0; the shard on n2 still counts (11)")
