"""Just enough of weft's wire format to play a peer by hand in the io tests:
MessagePack (the subset weft writes), length-prefixed frames, and the
authenticated handshake, written again from docs/protocol.md rather than
from the C++ (so a test that completes a handshake against weftd shows the
document and the code agree).
"""

import hashlib
import hmac
import os
import socket
import struct

HELLO, HELLO_PROOF, GOSSIP_DIGEST = 0x01, 0x02, 0x20
PROTOCOL_VERSION = 2  # kernel/wire/handshake.hpp kProtocolVersion
DIALER, ACCEPTOR = 1, 2


def pack(value):
    if isinstance(value, bool) or value is None:
        raise TypeError("weft writes no booleans or nil here")
    if isinstance(value, int):
        if value < 0:
            raise ValueError("unsigned only")
        if value < 0x80:
            return bytes([value])
        for tag, fmt, limit in ((0xCC, ">B", 1 << 8), (0xCD, ">H", 1 << 16), (0xCE, ">I", 1 << 32),
                                (0xCF, ">Q", 1 << 64)):
            if value < limit:
                return bytes([tag]) + struct.pack(fmt, value)
        raise ValueError("too large")
    if isinstance(value, str):
        raw = value.encode()
        if len(raw) < 32:
            return bytes([0xA0 | len(raw)]) + raw
        return bytes([0xD9, len(raw)]) + raw
    if isinstance(value, (bytes, bytearray)):
        return bytes([0xC4, len(value)]) + bytes(value)
    if isinstance(value, list):
        return bytes([0x90 | len(value)]) + b"".join(pack(v) for v in value)
    if isinstance(value, dict):
        return bytes([0x80 | len(value)]) + b"".join(pack(k) + pack(v) for k, v in value.items())
    raise TypeError(type(value))


def unpack(data, at=0):
    """Returns (value, next offset)."""
    b = data[at]
    at += 1
    if b < 0x80:
        return b, at
    if 0x80 <= b <= 0x8F or 0x90 <= b <= 0x9F:
        n = b & 0x0F
        if b <= 0x8F:
            out = {}
            for _ in range(n):
                k, at = unpack(data, at)
                out[k], at = unpack(data, at)
            return out, at
        items = []
        for _ in range(n):
            v, at = unpack(data, at)
            items.append(v)
        return items, at
    if 0xA0 <= b <= 0xBF:
        n = b & 0x1F
        return data[at:at + n].decode(), at + n
    sizes = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}
    if b in sizes:
        n = sizes[b]
        return int.from_bytes(data[at:at + n], "big"), at + n
    if b == 0xD9:
        n = data[at]
        return data[at + 1:at + 1 + n].decode(), at + 1 + n
    if b == 0xC4:
        n = data[at]
        return bytes(data[at + 1:at + 1 + n]), at + 1 + n
    raise ValueError(f"msgpack byte 0x{b:02x} not in weft's subset")


def frame(message):
    payload = pack(message)
    return struct.pack(">I", len(payload)) + payload


def hello(cluster, host, port, incarnation, nonce, proof=b""):
    return {0: HELLO, 1: PROTOCOL_VERSION, 2: cluster, 3: [host, port], 4: incarnation, 5: nonce, 6: proof}


def hello_proof(proof):
    return {0: HELLO_PROOF, 1: proof}


def transcript(role, cluster, dialer, acceptor):
    """docs/protocol.md: every number a big-endian u64, every (byte) string
    its u64 length and then its bytes; dialer and acceptor are
    (host, port, incarnation, nonce)."""
    def u64(v):
        return struct.pack(">Q", v)

    def text(b):
        b = b.encode() if isinstance(b, str) else b
        return u64(len(b)) + b

    def side(s):
        host, port, incarnation, nonce = s
        return text(host) + u64(port) + u64(incarnation) + text(nonce)

    return text("weft handshake v1") + u64(PROTOCOL_VERSION) + u64(role) + text(cluster) + side(dialer) + side(acceptor)


def mac(key, data):
    return hmac.new(key, data, hashlib.sha256).digest()


def new_key():
    return os.urandom(32)


def write_key_file(path, keys):
    with open(path, "w") as f:
        f.write("# weft shared secret: the first key signs, every key is accepted\n")
        for k in keys:
            f.write(k.hex() + "\n")
    os.chmod(path, 0o600)


def read_frame(sock):
    """One frame's payload, or None if the peer closed the connection."""
    header = _read_exactly(sock, 4)
    if header is None:
        return None
    (length,) = struct.unpack(">I", header)
    return _read_exactly(sock, length)


def _read_exactly(sock, n):
    data = b""
    while len(data) < n:
        try:
            chunk = sock.recv(n - len(data))
        except ConnectionResetError:
            return None
        if not chunk:
            return None
        data += chunk
    return data


def closed_by_peer(sock, within):
    """True if the peer closes the connection within `within` seconds."""
    sock.settimeout(within)
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


class Dialer:
    """A hand-played dialer: sends its hello, reads the acceptor's, and can
    answer with a proof computed under any key (or a recorded one)."""

    def __init__(self, address, cluster, claim_host, claim_port, incarnation=1, nonce=None):
        host, port = address.split(":")
        self.cluster = cluster
        self.me = (claim_host, claim_port, incarnation, nonce or os.urandom(16))
        self.sock = socket.create_connection((host, int(port)), timeout=3)
        self.hello_bytes = frame(hello(cluster, claim_host, claim_port, incarnation, self.me[3]))
        self.sock.sendall(self.hello_bytes)
        payload = read_frame(self.sock)
        if payload is None:
            raise AssertionError("the acceptor closed the link instead of answering the hello")
        reply, _ = unpack(payload)
        assert reply[0] == HELLO, reply
        self.acceptor = (reply[3][0], reply[3][1], reply[4], reply[5])
        self.acceptor_proof = reply[6]

    def acceptor_proof_holds(self, key):
        expected = mac(key, transcript(ACCEPTOR, self.cluster, self.me, self.acceptor))
        return hmac.compare_digest(expected, self.acceptor_proof)

    def proof_under(self, key):
        return mac(key, transcript(DIALER, self.cluster, self.me, self.acceptor))

    def send_proof(self, proof):
        data = frame(hello_proof(proof))
        self.sock.sendall(data)
        return data

    def close(self):
        self.sock.close()
