"""SIGHUP reloads (issue 31, item 3), run by test_cluster.py:

- reload_keys: a key rotation on a running cluster, no restart: A; A and
  B (A signs); B and A (B signs); B alone. After each SIGHUP a peer played
  by hand sees which key n1 signs with and which proofs it takes; a member
  restarted at the end with B alone joins; a reload of a key file others may
  read is refused and the keys in use stay; nobody is suspected throughout.
- reload_tls: n1's certificate renewed in place and SIGHUP: the next TLS
  handshake presents the new certificate while the cluster stays up; a
  reload of a broken certificate file is refused and the renewed one stays.
- tls_wrong_host: a valid certificate from the cluster's CA for another
  host is refused both ways (wrong_name): as a dialer whose hello claims
  an address its certificate does not name, and as the acceptor a node
  dialed at an address its certificate does not name.
"""

import os
import signal
import socket
import ssl
import subprocess
import time

import weftwire
from weftcluster import Ca

SIGHUP = signal.SIGHUP


def hup(c, nodes, expect):
    """SIGHUP each node and wait for its log to say `expect` once more."""
    before = {n.index: n.log().count(expect) for n in nodes}
    for n in nodes:
        n.proc.send_signal(SIGHUP)
    c.wait(f"each node logs {expect!r} after SIGHUP", lambda: all(n.log().count(expect) > before[n.index]
                                                                  for n in nodes), 10)


def closed_within(sock, seconds):
    sock.settimeout(seconds)
    try:
        return sock.recv(1) == b""
    except socket.timeout:
        return False
    except OSError:
        return True


def takes(c, node, key, port):
    """Whether `node` keeps a hand-played link proven with `key` open for
    1.5 s (past handshake_timeout, 1 s here)."""
    d = weftwire.Dialer(node.address, c.name, f"127.0.{c.net}.99", port)
    try:
        d.send_proof(d.proof_under(key))
        return not closed_within(d.sock, 1.5)
    finally:
        d.close()


def signs_with(c, node, key, port):
    d = weftwire.Dialer(node.address, c.name, f"127.0.{c.net}.99", port)
    try:
        return d.acceptor_proof_holds(key)
    finally:
        d.close()


def nobody_suspected(c):
    for n in c.nodes:
        assert "unreachable" not in n.log(), f"{n.address} suspected someone:\n{n.log()[-2000:]}"


def case_reload_keys(c, ctl):
    key_a, key_b = weftwire.new_key(), weftwire.new_key()
    files = {n.index: os.path.join(c.workdir, f"n{n.index}.keys") for n in c.nodes}
    for n in c.nodes:
        weftwire.write_key_file(files[n.index], [key_a])
        n.settings = [f"--set=auth_key_file={files[n.index]}", "--set=handshake_timeout=1s"]
    c.start_all()
    c.wait("3 nodes sharing key A see each other up", c.all_up(), 20)
    n1 = c.nodes[0]
    assert signs_with(c, n1, key_a, 7101) and not takes(c, n1, key_b, 7102), "before: A alone"
    steps = []
    for keys, label, signer, taken, refused in (
            ([key_a, key_b], "A, B", key_a, (key_a, key_b), ()),
            ([key_b, key_a], "B, A", key_b, (key_a, key_b), ()),
            ([key_b], "B", key_b, (key_b,), (key_a,))):
        for n in c.nodes:
            weftwire.write_key_file(files[n.index], keys)
        hup(c, c.nodes, f"SIGHUP: reloaded {len(keys)} key(s)")
        port = 7110 + 10 * len(steps)
        assert signs_with(c, n1, signer, port), f"after {label}: n1 does not sign with the first key"
        for i, k in enumerate(taken):
            assert takes(c, n1, k, port + 1 + i), f"after {label}: n1 refuses a proof with an accepted key"
        bad_before = n1.metric('weft_links_closed_total{reason="bad_proof"}')
        for i, k in enumerate(refused):
            assert not takes(c, n1, k, port + 5 + i), f"after {label}: n1 takes a proof with a dropped key"
        if refused:  # counted in the next snapshot (every 100 ms)
            c.wait("the refused proof counted bad_proof",
                   lambda: n1.metric('weft_links_closed_total{reason="bad_proof"}') > bad_before, 2)
        assert c.all_up()(), f"after {label}: the cluster is not one view"
        steps.append(label)
    n3 = c.nodes[2]
    n3.signal(signal.SIGTERM)
    c.wait("n3 exits after its leave", lambda: not n3.alive(), 15)
    n3.start()
    took = c.wait("n3, restarted with key B alone, up everywhere", c.all_up(), 20)

    os.chmod(files[1], 0o644)
    hup(c, [n1], "the keys in use stay")
    os.chmod(files[1], 0o600)
    assert signs_with(c, n1, key_b, 7190), "a refused reload changed the keys"
    nobody_suspected(c)
    print(f"key rotation by SIGHUP, no restart: {' -> '.join(['A'] + steps)}; after each n1 signed with the first "
          f"key and took exactly the listed ones (a dropped key counted bad_proof); n3 restarted with B alone up "
          f"everywhere in {took:.2f} s; a key file others may read refused on reload, B kept; nobody suspected")


def peer_certificate(node, ca, client_cert, client_key):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.check_hostname = False
    context.load_verify_locations(ca.cert)
    context.load_cert_chain(client_cert, client_key)
    host, port = node.address.split(":")
    with socket.create_connection((host, int(port)), timeout=5) as raw:
        with context.wrap_socket(raw) as tls:
            return tls.getpeercert(binary_form=True)


def der_of(path):
    return ssl.PEM_cert_to_DER_cert(open(path).read())


def case_reload_tls(c, ctl):
    ca = Ca(os.path.join(c.workdir, "pki"), "weft-test-ca")
    for n in c.nodes:
        n.settings = ca.settings(n.host, f"n{n.index}")
    c.start_all()
    c.wait("3 TLS nodes see each other up", c.all_up(), 20)
    n1 = c.nodes[0]
    client_cert, client_key = ca.issue(f"127.0.{c.net}.99", "client")
    first = der_of(os.path.join(ca.directory, "n1.crt"))
    assert peer_certificate(n1, ca, client_cert, client_key) == first, "n1 does not present its certificate"
    ca.issue(n1.host, "n1")  # renewed in place: a new key and certificate under the same paths
    renewed = der_of(os.path.join(ca.directory, "n1.crt"))
    assert renewed != first
    hup(c, [n1], "SIGHUP: reloaded TLS files")
    assert peer_certificate(n1, ca, client_cert, client_key) == renewed, "after SIGHUP n1 still presents the old one"
    handshakes = n1.metric("weft_driver_tls_handshakes_total")
    assert c.all_up()(), "the cluster lost a node over the reload"

    with open(os.path.join(ca.directory, "n1.crt"), "w") as f:
        f.write("not a certificate\n")
    hup(c, [n1], "the TLS files in use stay")
    assert peer_certificate(n1, ca, client_cert, client_key) == renewed, "a refused reload changed the certificate"
    n3 = c.nodes[2]
    n3.signal(signal.SIGTERM)
    c.wait("n3 exits after its leave", lambda: not n3.alive(), 15)
    n3.start()
    took = c.wait("n3 up everywhere again, its links to n1 made with the renewed certificate", c.all_up(), 20)
    assert n1.metric("weft_driver_tls_handshakes_total") > handshakes, "n3's new links made no TLS handshake with n1"
    nobody_suspected(c)
    print(f"TLS reload by SIGHUP: n1's renewed certificate presented on the next handshake; a broken certificate "
          f"file refused on reload, the renewed one kept; n3 restarted up everywhere in {took:.2f} s; nobody "
          "suspected")


def case_tls_wrong_host(c, ctl):
    ca = Ca(os.path.join(c.workdir, "pki"), "weft-test-ca")
    members, imposter, dialer = c.nodes[:3], c.nodes[3], c.nodes[4]
    for n in members + [dialer]:
        n.settings = ca.settings(n.host, f"n{n.index}")
    # The CA's own certificate, for a host that is not the imposter's.
    imposter.settings = ca.settings(f"127.0.{c.net}.77", "imposter")
    for n in members:
        n.start()
    converged = c.all_up(members)
    c.wait("3 TLS nodes see each other up", converged, 20)

    def wrong_name(nodes):
        return sum(n.metric('weft_links_closed_total{reason="wrong_name"}') or 0 for n in nodes)
    imposter.start()  # dials n1 and n2, its hello naming 127.0.<net>.4
    took = c.wait("the members refuse the imposter's hello (wrong_name)", lambda: wrong_name(members[:2]) >= 1, 10)
    dialer.seeds = [imposter]  # dials the imposter at 127.0.<net>.4, whose certificate names .77
    dialer.start()
    took_dialer = c.wait("the dialer refuses the imposter's certificate (wrong_name)",
                         lambda: wrong_name([dialer]) >= 1, 10)
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        for n in members:
            view = n.view()
            assert view is not None, f"{n.address} stopped answering"
            seen = {m["address"] for m in view["members"]} & {imposter.address, dialer.address}
            assert not seen, f"{n.address} lets {seen} into its view"
        assert converged(), "the members lost convergence"
        time.sleep(0.2)
    nobody_suspected(c)
    print(f"wrong host: a CA-signed certificate for 127.0.{c.net}.77 refused as the dialer's (members counted "
          f"wrong_name in {took:.2f} s) and as the acceptor's (its dialer counted wrong_name in {took_dialer:.2f} s); "
          "neither joined; the members stayed one view")
