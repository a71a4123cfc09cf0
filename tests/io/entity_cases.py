"""Sharded entities on real sockets (issue 28, docs/sharding.md), run by
test_cluster.py:

- entitiesd: five weft-entitiesd (props/entities/entities_main.cpp built
  with WEFT_DEPLOY: the counter entities weft-entities-sim simulates) converge;
  ten Adds to each of 24 keys, sent by entity key through the admin
  endpoints of every node in turn to that node's own region (the envelope
  of shard/envelope.hpp around the MessagePack Add of
  props/entities/entity_counter.hpp), are acknowledged with the counts 1..10:
  the regions route each key to one owner, whichever node it entered by. The
  node hosting the most entities (shard_active_entities) is killed with
  SIGKILL; Adds go on from the survivors until every key is acknowledged
  again. The keys the killed node hosted start again from 1 on a survivor
  (a crash loses in-memory state), the others go on at 11. The time from the
  kill to the last key acknowledged again is the real re-host time; it must
  stay within T_down_closed (weftd --check-config's bound: every live node
  holds the member down, so every view names the new owner) plus 3 s for the
  asks in flight.
"""

import signal
import struct
import time
import urllib.error
import urllib.request

ENTITY_TAG = 0xFFFF0001  # shard/envelope.hpp
REFUSED_TAG = 0xFFFF0002
ADD_TAG = 1  # entity_counter.hpp: Add{key, client, seq}
KEYS = 24


def msgpack_uint(n):
    if n < 0x80:
        return bytes([n])
    if n < 0x100:
        return bytes([0xCC, n])
    if n < 0x10000:
        return b"\xcd" + struct.pack(">H", n)
    return b"\xce" + struct.pack(">I", n)


def read_uint(b, i):
    """The MessagePack unsigned int at b[i]: (value, next index)."""
    t = b[i]
    if t < 0x80:
        return t, i + 1
    size = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}[t]
    return int.from_bytes(b[i + 1:i + 1 + size], "big"), i + 1 + size


def envelope(key, tag, body):
    """An entity message for `key`, unstamped (the entry region stamps it)."""
    k = str(key).encode()
    return bytes([1, 0, 0]) + struct.pack("<IH", tag, len(k)) + k + body


def add(node, client, key, seq):
    """An Add of `key` through `node`'s admin endpoint to its own region:
    the count the reply reports, or the outcome / refusal that came instead."""
    body = envelope(key, ADD_TAG, bytes([0x93]) + msgpack_uint(key) + msgpack_uint(client) + msgpack_uint(seq))
    url = f"http://{node.admin}/ask?to={node.address}/shard.counter&tag={ENTITY_TAG}&timeout_ms=2000"
    req = urllib.request.Request(url, data=body, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            outcome, tag, reply = r.headers.get("X-Weft-Outcome"), r.headers.get("X-Weft-Tag"), r.read()
    except urllib.error.HTTPError as e:
        return f"HTTP {e.code}"
    except OSError as e:
        return f"no answer ({e})"
    if outcome != "reply":
        return outcome
    if tag is not None and int(tag) == REFUSED_TAG:
        return "refused " + reply.decode(errors="replace")
    if reply[:1] != b"\x92":
        return f"not a Value: {reply!r}"
    got_key, i = read_uint(reply, 1)
    count, _ = read_uint(reply, i)
    return count if got_key == key else f"a Value of key {got_key}"


def case_entitiesd(c, ctl):
    c.start_all()
    took = c.wait("5 weft-entitiesd see each other up", c.all_up(), 30)
    print(f"5 weft-entitiesd converged in {took:.2f} s")
    seq = {}
    counts = {key: [] for key in range(KEYS)}
    for round_ in range(10):
        for key in range(KEYS):
            node = c.nodes[(key + round_) % len(c.nodes)]
            client = c.nodes.index(node) + 1
            seq[(client, key)] = seq.get((client, key), 0) + 1
            counts[key].append(add(node, client, key, seq[(client, key)]))
    for key, got in counts.items():
        assert got == list(range(1, 11)), f"key {key}: the acknowledged counts {got}"
    print(f"10 Adds to each of {KEYS} keys, entering by every node in turn: acknowledged 1..10 each")
    hosted = {n.address: n.metric('shard_active_entities{actor="shard.counter"}') for n in c.nodes}
    assert sum(hosted.values()) == KEYS, f"every key hosted once: {hosted}"
    victim = max(c.nodes[1:], key=lambda n: hosted[n.address])
    lost = int(hosted[victim.address])
    print(f"entities per node: {sorted(int(v) for v in hosted.values())}; killing {victim.address} with {lost}")
    bound = c.bounds()["T_down_closed"] + 3.0
    survivors = [n for n in c.nodes if n is not victim]
    killed_at = time.monotonic()
    victim.kill()
    pending = set(range(KEYS))
    last = {}
    round_ = 0
    while pending and time.monotonic() - killed_at < bound + 10:
        for key in sorted(pending):
            node = survivors[(key + round_) % len(survivors)]
            client = c.nodes.index(node) + 1
            seq[(client, key)] = seq.get((client, key), 0) + 1
            got = add(node, client, key, seq[(client, key)])
            if isinstance(got, int):
                pending.discard(key)
                last[key] = got
        round_ += 1
        time.sleep(0.05)
    rehost = time.monotonic() - killed_at
    assert not pending, f"keys never acknowledged again after the kill: {sorted(pending)}"
    restarted = sorted(k for k, v in last.items() if v == 1)
    went_on = sorted(k for k, v in last.items() if v == 11)
    assert len(restarted) == lost and len(restarted) + len(went_on) == KEYS, \
        f"after the kill: {lost} keys should start again at 1, the rest go on at 11: {last}"
    assert rehost <= bound, f"re-hosted in {rehost:.2f} s, over T_down_closed + 3 s = {bound:.2f} s"
    print(f"kill -9: every key acknowledged again {rehost:.2f} s after (bound {bound:.2f} s: T_down_closed + 3 s); "
          f"{len(restarted)} keys of the killed node started again at 1, {len(went_on)} went on at 11")
