"""A user's own application deployed (issue 27), run by test_cluster.py:

- counterd: three weft-counterd (props/counter/counter_main.cpp built with WEFT_DEPLOY: the sharded
  counter weft-counter-sim simulates, on weft::daemon::main) converge;
  increments sent with `weftctl ask --json '[4]'` through n1's admin
  endpoint to the shard that owns the key, on n2, are acknowledged with the
  counts 1..10 (the typed protocol of props/counter/counter_actor.hpp:
  weftctl encodes the JSON as MessagePack and prints the Value reply as
  JSON); a tag the endpoint cannot parse (`&tag=x`) is a 400, JSON weftctl
  cannot parse is its exit 2, and neither sends anything: a Read (`--tag 2`)
  through weftctl then reports the count, 10; a body that does not decode
  is answered BadRequest (the shard's typed dead letter); /metrics shows
  the application's own metrics beside the kernel's (n2's shard: 10
  increments applied, 1 key, the counts' histogram; n1's: none) and the
  dead letter under weft_typed_dead_letters_total; a SIGTERM leave of n3 ends with n3 removed
  everywhere and its process exiting 0.
"""

import json
import signal
import subprocess
import urllib.error
import urllib.request

INCREMENT_TAG = 1  # counter_actor.hpp: Increment{key}, the admin endpoint's default tag
READ_TAG = 2  # counter_actor.hpp: Read{key}


def ask(node, target, body, query=""):
    """POSTs /ask to `node` for `target` (host:port/actor), `query` appended
    to the URL; returns the HTTP status, the outcome header and the reply's
    bytes."""
    req = urllib.request.Request(f"http://{node.admin}/ask?to={target}&timeout_ms=2000{query}", data=body,
                                 method="POST")
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.headers.get("X-Weft-Outcome"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("X-Weft-Outcome"), e.read()


def ctl_ask(ctl, node, target, *args):
    """Runs `weftctl ask` through `node`'s admin endpoint."""
    return subprocess.run([ctl, f"--admin={node.admin}", "ask", target, *args, "--timeout-ms=2000"],
                          capture_output=True, text=True, timeout=15)


def ctl_ask_json(ctl, node, target, text, tag):
    """`weftctl ask --json TEXT --tag TAG`: the reply, parsed from the JSON
    weftctl prints above its round-trip line."""
    out = ctl_ask(ctl, node, target, "--json", text, f"--tag={tag}")
    assert out.returncode == 0, \
        f"weftctl ask --json {text} --tag {tag}: exit {out.returncode}: {out.stdout}{out.stderr}"
    lines = out.stdout.splitlines()
    assert len(lines) == 2 and lines[1].startswith("(round trip "), f"weftctl ask --json output: {out.stdout!r}"
    return json.loads(lines[0])


def dead_letters(samples):
    """The counter shard's typed dead letters, by reason, from /metrics samples."""
    prefix = 'weft_typed_dead_letters_total{actor="counter",reason="'
    return {k[len(prefix):-2]: v for k, v in samples.items() if k.startswith(prefix)}


def check_metrics(c, n1, n2):
    """The application's metrics on /metrics beside the kernel's: the shard
    on n2 applied the 10 increments of key 4 (a counter, a gauge and a
    histogram of the counts 1..10), n1's applied none, and the body that did
    not decode is n2's one typed dead letter."""
    want = {
        "counter_increments_applied_total": 10,
        "counter_keys": 1,
        "counter_count_at_increment_count": 10,
        'counter_count_at_increment_bucket{le="1"}': 1,
        'counter_count_at_increment_bucket{le="10"}': 10,
        'counter_count_at_increment_bucket{le="+Inf"}': 10,
        "counter_count_at_increment_sum": 55,
    }
    # Published every 100 ms: wait for the snapshot after the last request.
    c.wait("n2's /metrics shows the dead letter",
           lambda: sum(dead_letters(n2.metrics() or {}).values()) == 1, 5)
    samples = n2.metrics()
    got = {k: samples.get(k) for k in want}
    assert got == want, f"n2's counter metrics: {got}, want {want}"
    letters = dead_letters(samples)
    assert sorted(letters) == ["handler_threw", "malformed_body", "unexpected_tag", "unknown_tag", "wrong_type"], \
        f"every reason is exported, zeros too: {letters}"
    assert "weft_members{status=\"up\"}" in samples, "the kernel's own metrics are still there"
    _, text = n2.get("/metrics")
    assert "# TYPE counter_count_at_increment histogram" in text and "# TYPE counter_keys gauge" in text, text[-800:]
    n1_applied = n1.metrics().get("counter_increments_applied_total")
    assert n1_applied == 0, f"n1 owns no key that was incremented: {n1_applied}"
    print(f"/metrics: n2 {json.dumps(got)}, dead letters {json.dumps({k: v for k, v in letters.items() if v})}; "
          f"n1 applied {n1_applied:.0f}")


def case_counterd(c, ctl):
    c.start_all()
    took = c.wait("3 weft-counterd see each other up", c.all_up(), 20)
    print(f"3 weft-counterd converged in {took:.2f} s")
    n1, n2, n3 = c.nodes
    key = 4  # owner(4, 3) = 4 mod 3 + 1 = n2
    shard = f"{n2.address}/counter"
    counts = []
    for _ in range(10):
        reply = ctl_ask_json(ctl, n1, shard, f"[{key}]", INCREMENT_TAG)  # Increment{key}: sent as 0x91 0x04
        assert isinstance(reply, list) and len(reply) == 2 and reply[0] == key, f"not a Value{{key, count}}: {reply!r}"
        counts.append(reply[1])
    assert counts == list(range(1, 11)), f"the acknowledged counts of key {key}: {counts}"
    print(f"10 increments of key {key} through weftctl --json and n1 to the shard on n2 acknowledged with counts "
          f"{counts[0]}..{counts[-1]}")
    for bad in ("x", "4294967296", "-1", ""):
        status, outcome, body = ask(n1, shard, bytes([0x91, key]), f"&tag={bad}")
        assert status == 400 and outcome is None, f"&tag={bad!r}: HTTP {status} {outcome} {body!r}"
    assert b"tag must be" in body, f"the 400 does not say what a tag is: {body!r}"
    out = ctl_ask(ctl, n1, shard, "--json", f"[{key}", f"--tag={INCREMENT_TAG}")
    assert out.returncode == 2 and "parse error at line 1, column" in out.stderr and "nothing sent" in out.stderr, \
        f"weftctl --json with bad JSON: exit {out.returncode}: {out.stdout}{out.stderr}"
    print(f"&tag=x (and 2^32, -1, empty) answered 400; weftctl on bad JSON: exit 2, {out.stderr.strip()!r}")
    reply = ctl_ask_json(ctl, n1, shard, f"[{key}]", READ_TAG)  # Read{key}
    assert reply == [key, 10], f"a Read of key {key} after 10 increments and the refused requests: {reply!r}"
    print(f"a Read through weftctl --json --tag {READ_TAG}: {json.dumps(reply)} (the refused requests sent nothing)")
    _, outcome, body = ask(n1, shard, b"not msgpack")
    assert outcome == "reply" and body[:1] == b"\x91", f"a bad body: {outcome} {body!r} (BadRequest{{reason}})"
    print(f"a body that does not decode answered BadRequest ({body[2:].decode(errors='replace')!r})")
    check_metrics(c, n1, n2)
    n3.signal(signal.SIGTERM)
    c.wait("n3 exits after its leave", lambda: not n3.alive(), 15)
    assert n3.proc.returncode == 0, f"weft-counterd n3 exited {n3.proc.returncode}"
    c.wait("n1 and n2 hold n3 removed",
           lambda: all((m := n.member(n3)) is None or m["status"] == "removed" for n in (n1, n2)), 10)
    _, outcome, body = ask(n1, shard, bytes([0x91, key]))
    assert outcome == "reply" and body == bytes([0x92, key, 11]), f"after n3 left: {outcome} {body!r}"
    print("SIGTERM: n3 left and exited 0; the shard on n2 still counts (11)")
