"""Limits that hold under floods (issue 31, item 3), run by test_cluster.py:

- handshake_flood, handshake_flood_tls: n1 takes at most 64 connections
  waiting for their handshake (max_pending_handshakes, set low here); for
  20 s a stranger keeps opening silent connections to it, 100 every half
  second. Each past the cap evicts the oldest waiting one, counted
  (handshake_capacity, or with TLS weft_driver_tls_handshakes_evicted_total);
  n1's memory stays bounded by the cap; a member that leaves and starts
  again mid-flood is up everywhere again within 15 s, its handshake with n1
  getting through; nobody is ever suspected.
"""

import os
import socket
import time

from weftcluster import Ca

PENDING_CAP = 64
FLOOD_SECONDS = 20.0
BURST = 100
BURST_EVERY = 0.5


def flood(c, tls):
    if tls:
        ca = Ca(os.path.join(c.workdir, "pki"), "weft-test-ca")
        for n in c.nodes:
            n.settings = ca.settings(n.host, f"n{n.index}")
    c.settings.append(f"--set=max_pending_handshakes={PENDING_CAP}")
    c.start_all()
    c.wait("3 nodes see each other up", c.all_up(), 20)
    n1, n3 = c.nodes[0], c.nodes[2]
    host, port = n1.address.split(":")
    if tls:
        evicted_metric = "weft_driver_tls_handshakes_evicted_total"
        timeout_metric = 'weft_driver_tls_handshake_failures_total{reason="timeout"}'
    else:
        evicted_metric = 'weft_links_closed_total{reason="handshake_capacity"}'
        timeout_metric = 'weft_links_closed_total{reason="handshake_timeout"}'
    evicted_before = n1.metric(evicted_metric, missing=None)
    assert evicted_before is not None, f"weftd exports no {evicted_metric}"
    timeouts_before = n1.metric(timeout_metric)
    rss_before = n1.rss_mib()
    rss_peak = rss_before
    held = []
    opened = 0
    rejoin_started = None
    rejoined_in = None
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < FLOOD_SECONDS:
            for _ in range(BURST):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.bind((f"127.0.{c.net}.200", 0))
                s.settimeout(1.0)
                try:
                    s.connect((host, int(port)))
                    held.append(s)
                    opened += 1
                except OSError:
                    s.close()
            rss_peak = max(rss_peak, n1.rss_mib())
            elapsed = time.monotonic() - t0
            if rejoin_started is None and elapsed > 5.0:
                # A graceful leave, then a new life: its hello to n1 must get
                # past the flood.
                n3.signal(15)
                c.wait("n3 exits after its leave", lambda: not n3.alive(), 15)
                n3.start()
                rejoin_started = time.monotonic()
            if rejoin_started is not None and rejoined_in is None and c.all_up()():
                rejoined_in = time.monotonic() - rejoin_started
            assert n1.alive(), "n1 died under the flood"
            time.sleep(BURST_EVERY)
        if rejoined_in is None:
            c.wait("n3 up everywhere again", c.all_up(), max(0.1, 15 - (time.monotonic() - rejoin_started)))
            rejoined_in = time.monotonic() - rejoin_started
    finally:
        for s in held:
            s.close()
    evicted = n1.metric(evicted_metric) - evicted_before
    timeouts = n1.metric(timeout_metric) - timeouts_before
    for n in c.nodes:
        assert "unreachable" not in n.log(), f"{n.address} suspected someone during the flood:\n{n.log()[-2000:]}"
    kind = "TLS" if tls else "plain"
    print(f"{kind} handshake flood: {opened} silent connections in {FLOOD_SECONDS:.0f} s at a cap of {PENDING_CAP} "
          f"waiting: {evicted:.0f} evicted oldest-first, {timeouts:.0f} closed at handshake_timeout; n1 RSS "
          f"{rss_before:.1f} -> peak {rss_peak:.1f} MiB; n3 left and came back up everywhere in {rejoined_in:.2f} s; "
          "nobody suspected")
    assert opened >= BURST * 10, f"only {opened} connections were opened"
    assert evicted > 0, "no waiting handshake was evicted past the cap"
    assert evicted + timeouts >= opened - PENDING_CAP - BURST, \
        f"{opened} opened, but only {evicted:.0f} evicted and {timeouts:.0f} timed out at a cap of {PENDING_CAP}"
    limit = 24.0 if tls else 8.0
    if c.sanitized():
        print("RSS not judged: this weftd is built with ASan, which quarantines freed memory")
    else:
        assert rss_peak - rss_before < limit, f"n1's RSS grew {rss_peak - rss_before:.1f} MiB under a capped flood"
    assert rejoined_in <= 15.0, f"n3 took {rejoined_in:.2f} s to be up everywhere again"


def case_handshake_flood(c, ctl):
    flood(c, tls=False)


def case_handshake_flood_tls(c, ctl):
    flood(c, tls=True)
