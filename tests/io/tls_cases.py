"""Certificates a TLS member must refuse (issue 42, item 2), run by
test_cluster.py:

- tls_dialer_foreign_ca: a member dials a node whose certificate a foreign
  CA signed (the node trusts the cluster's CA, so only the dialer's check
  can keep it out): the dialer counts the refusal under `certificate`.
- tls_expired: a node whose certificate from the cluster's own CA has
  expired, both ways: the members it dials count `certificate`, and so
  does a node that dials it.

In both, the refused node appears in no member's view for 3 s more and
the members stay one view.
"""

import os
import subprocess
import time

from reload_cases import hup, nobody_suspected
from weftcluster import Ca


def refused(nodes, reason="certificate"):
    return sum(n.metric(f'weft_driver_tls_handshake_failures_total{{reason="{reason}"}}') or 0 for n in nodes)


def kept_out(c, members, strangers, seconds):
    """For `seconds`, every member answers, holds none of `strangers` and
    the members stay one view."""
    converged = c.all_up(members)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for n in members:
            view = n.view_required("while the strangers are kept out")
            seen = {m["address"] for m in view["members"]} & {s.address for s in strangers}
            assert not seen, f"n{n.index} lets {sorted(seen)} into its view"
        assert converged(), "the members lost convergence"
        time.sleep(0.2)


def case_tls_dialer_foreign_ca(c, ctl):
    ca, other = Ca(os.path.join(c.workdir, "pki"), "weft-test-ca"), Ca(os.path.join(c.workdir, "pki"), "other-ca")
    members, foreign = c.nodes[:3], c.nodes[3]
    for n in members:
        n.settings = ca.settings(n.host, f"n{n.index}")
    # Trusts the cluster's CA: it would take the member's certificate, so
    # only the dialer's own check refuses the link. It dials nobody, so every
    # handshake n3 fails is one n3 dialed.
    foreign.settings = other.settings(foreign.host, "foreign", trust=ca)
    foreign.seeds = []
    foreign.start()
    c.wait("the foreign node answers", lambda: foreign.view() is not None, 10)
    dialer = members[2]
    dialer.seeds = [members[0], foreign]  # dials the foreign node as it joins through n1
    for n in members:
        n.start()
    took = c.wait("3 TLS nodes see each other up", c.all_up(members), 20)
    # n3 counts `certificate` as the acceptor too, once the foreign node
    # knows its address; only a dialer's refusal reaches the foreign node
    # as an alert within its handshake (TLS 1.3: an acceptor's refusal
    # comes after the dialer's side of the handshake is over).
    took = c.wait("n3 refuses the foreign CA's certificate as the dialer (certificate; the foreign node: alert)",
                  lambda: refused([dialer]) >= 1 and refused([foreign], "alert") >= 1, 10)
    kept_out(c, members, [foreign], 3)
    view = foreign.view_required("the foreign node at the end")
    others = [m["address"] for m in view["members"] if m["address"] != foreign.address]
    assert not others, f"the foreign node holds {others}"
    nobody_suspected(c)
    print(f"a foreign CA's certificate, as the acceptor: n3 dialed it and refused it {refused([dialer]):.0f} time(s) "
          f"(reason certificate) within {took:.2f} s of the members' convergence; the foreign node heard "
          f"{refused([foreign], 'alert'):.0f} alert(s), held no member, and no member held it for 3 s")


def case_tls_expired(c, ctl):
    ca = Ca(os.path.join(c.workdir, "pki"), "weft-test-ca")
    members, expired, dialer = c.nodes[:3], c.nodes[3], c.nodes[4]
    for n in members + [dialer]:
        n.settings = ca.settings(n.host, f"n{n.index}")
    # weftd will not start with an expired certificate...
    cert, key = ca.issue_expired(expired.host, "expired")
    check = subprocess.run([c.weftd, "--check-config", "/dev/null", f"--advertise={expired.address}",
                            f"--set=tls_cert={cert}", f"--set=tls_key={key}", f"--set=tls_ca={ca.cert}"],
                           capture_output=True, text=True)
    assert check.returncode != 0 and "has expired" in check.stdout + check.stderr, \
        f"weftd --check-config takes an expired certificate: exit {check.returncode}"
    # ...but a certificate expires while weftd runs, as one reloaded
    # expired does: the next handshakes present it. The members are not
    # up yet, so the expired node's first dials are refused and retried.
    expired.settings = ca.settings(expired.host, "expired")
    expired.start()
    c.wait("the node to expire answers", lambda: expired.view() is not None, 10)
    ca.issue_expired(expired.host, "expired")  # in place: a new key and an expired certificate
    hup(c, [expired], "SIGHUP: reloaded TLS files")
    for n in members:
        n.start()
    c.wait("3 TLS nodes see each other up", c.all_up(members), 20)
    took = c.wait("the members refuse the expired certificate of the node dialing them (certificate)",
                  lambda: refused(members[:2]) >= 1, 15)
    dialer.seeds = [expired]  # dials the expired node, and nobody else
    dialer.start()
    took_dialer = c.wait("the dialer refuses the expired certificate of the node it dials (certificate)",
                         lambda: refused([dialer]) >= 1, 10)
    kept_out(c, members, [expired, dialer], 3)
    nobody_suspected(c)
    print(f"an expired certificate from the cluster's CA (weftd --check-config refuses it; reloaded into a running "
          f"node): refused as the dialer's by n1/n2 (certificate, {refused(members[:2]):.0f} in all, the first within "
          f"{took:.2f} s) and as the acceptor's by a node dialing it ({refused([dialer]):.0f} within "
          f"{took_dialer:.2f} s); neither joined; the members stayed one view")


def case_tls_dialer_plaintext(c, ctl):
    """A TLS member dialing a plaintext node: the plaintext node reads the
    ClientHello's first bytes as a frame length far over what a hello may
    be and closes (wire error frame_too_large), and the dialer counts its handshake failed
    as `closed` (docs/deploy.md). Neither side ever holds the other."""
    ca = Ca(os.path.join(c.workdir, "pki"), "weft-test-ca")
    members, plain = c.nodes[:3], c.nodes[3]
    for n in members:
        n.settings = ca.settings(n.host, f"n{n.index}")
    plain.seeds = []  # dials nobody: every close it counts is a link a member dialed
    plain.start()
    c.wait("the plaintext node answers", lambda: plain.view() is not None, 10)
    dialer = members[2]
    dialer.seeds = [members[0], plain]
    for n in members:
        n.start()
    c.wait("3 TLS nodes see each other up", c.all_up(members), 20)
    closes = 'weft_wire_errors_total{reason="frame_too_large"}'
    took = c.wait("n3's handshake with the plaintext node fails (closed; the plaintext node: frame_too_large)",
                  lambda: refused([dialer], "closed") >= 1 and (plain.metric(closes) or 0) >= 1, 10)
    kept_out(c, members, [plain], 3)
    view = plain.view_required("the plaintext node at the end")
    others = [m["address"] for m in view["members"] if m["address"] != plain.address]
    assert not others, f"the plaintext node holds {others}"
    other_reasons = {r: refused([dialer], r) for r in ("timeout", "certificate", "alert", "protocol")}
    assert not any(other_reasons.values()), f"n3 counted other failures too: {other_reasons}"
    nobody_suspected(c)
    print(f"a TLS member dialing a plaintext node: {refused([dialer], 'closed'):.0f} handshake(s) failed as closed "
          f"within {took:.2f} s, the plaintext node closed {plain.metric(closes) or 0:.0f} link(s) as frame_too_large; "
          f"neither held the other for 3 s")
