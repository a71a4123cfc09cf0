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

HELLO, HELLO_PROOF, GOSSIP_DIGEST, GOSSIP_STATE = 0x01, 0x02, 0x20, 0x21
JOIN = 0x10
PROTOCOL_VERSION = 2  # kernel/wire/handshake.hpp kProtocolVersion
DIALER, ACCEPTOR = 1, 2
# A member record's status (docs/protocol.md, "member"), as the admin
# endpoint spells them.
STATUSES = ("joining", "up", "leaving", "exiting", "down", "removed")
JOINING, UP, LEAVING, EXITING, DOWN, REMOVED = range(len(STATUSES))
MAX_GOSSIP_ENTRIES = 100_000  # per list of a gossip state or delta


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
        return _header(len(raw), 0xA0, 32, (0xD9, 0xDA, 0xDB)) + raw
    if isinstance(value, (bytes, bytearray)):
        return _header(len(value), None, 0, (0xC4, 0xC5, 0xC6)) + bytes(value)
    if isinstance(value, list):
        return _header(len(value), 0x90, 16, (None, 0xDC, 0xDD)) + b"".join(pack(v) for v in value)
    if isinstance(value, dict):
        return _header(len(value), 0x80, 16, (None, 0xDE, 0xDF)) + \
            b"".join(pack(k) + pack(v) for k, v in value.items())
    raise TypeError(type(value))


def _header(n, fix, fix_limit, wide):
    """The shortest header for a str, bin, array or map of n: the fix form
    (fix | n, below fix_limit), else the 8-, 16- or 32-bit one of `wide`
    (None where the type has no such form)."""
    if fix is not None and n < fix_limit:
        return bytes([fix | n])
    for tag, fmt, limit in zip(wide, (">B", ">H", ">I"), (1 << 8, 1 << 16, 1 << 32)):
        if tag is not None and n < limit:
            return bytes([tag]) + struct.pack(fmt, n)
    raise ValueError("too long")


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
    wide = {0xD9: ("str", 1), 0xDA: ("str", 2), 0xDB: ("str", 4), 0xC4: ("bin", 1), 0xC5: ("bin", 2),
            0xC6: ("bin", 4), 0xDC: ("array", 2), 0xDD: ("array", 4), 0xDE: ("map", 2), 0xDF: ("map", 4)}
    if b in wide:
        kind, width = wide[b]
        n = int.from_bytes(data[at:at + width], "big")
        at += width
        if kind == "str":
            return data[at:at + n].decode(), at + n
        if kind == "bin":
            return bytes(data[at:at + n]), at + n
        if kind == "array":
            items = []
            for _ in range(n):
                v, at = unpack(data, at)
                items.append(v)
            return items, at
        out = {}
        for _ in range(n):
            k, at = unpack(data, at)
            out[k], at = unpack(data, at)
        return out, at
    raise ValueError(f"msgpack byte 0x{b:02x} not in weft's subset")


def frame(message):
    return raw_frame(pack(message))


def raw_frame(payload):
    """Any bytes as one well-formed frame: a big-endian u32 length, then them."""
    return struct.pack(">I", len(payload)) + payload


def hello(cluster, host, port, incarnation, nonce, proof=b""):
    return {0: HELLO, 1: PROTOCOL_VERSION, 2: cluster, 3: [host, port], 4: incarnation, 5: nonce, 6: proof}


def hello_proof(proof):
    return {0: HELLO_PROOF, 1: proof}


# --- Gossip (docs/protocol.md, "Control messages")
#
# member    = [host, port, incarnation, status]
# member_id = [host, port, incarnation]
# row       = [observer member_id, version, [member_id, ...] unreachable]
# gossip_state = {0: 0x21, 1: [member...] by address, 2: [row...] by observer,
#                 3: seen bin, a bit per member carried}

def member(host, port, incarnation, status):
    if status not in range(len(STATUSES)):
        raise ValueError(f"status {status} is none of 0..{len(STATUSES) - 1}")
    return [host, port, incarnation, status]


def member_id(host, port, incarnation):
    return [host, port, incarnation]


def row(observer, version, unreachable=()):
    return [list(observer), version, sorted((list(u) for u in unreachable), key=_id_order)]


def _address_order(entry):
    # A host's bytes, unsigned, shorter first on a common prefix, then the
    # port (kernel/ids.hpp NodeAddress): "127.0.0.10" sorts before "127.0.0.2".
    return entry[0].encode(), entry[1]


def _id_order(entry):
    return entry[0].encode(), entry[1], entry[2]


def seen_bits(count, holders=()):
    """A seen set over `count` records: bit i (byte i // 8, from the least
    significant bit) set for each position i in `holders`; exactly
    ceil(count / 8) bytes, the spare bits clear (a state's bits must be)."""
    bits = bytearray((count + 7) // 8)
    for i in holders:
        if not 0 <= i < count:
            raise ValueError(f"seen bit {i} outside {count} records")
        bits[i // 8] |= 1 << (i % 8)
    return bytes(bits)


def _strictly_increasing(items, key, what):
    keys = [key(x) for x in items]
    for a, b in zip(keys, keys[1:]):
        if not a < b:
            raise ValueError(f"{what}: two entries at {b} (the decoder refuses a list that is not strictly "
                             "increasing: invalid_value)")


def gossip_state(members, rows=(), seen=None):
    """A gossip_state message carrying `members` (member() lists, any order:
    sorted here by address, as the decoder requires) and `rows` (row()
    lists, sorted by observer). `seen` is a seen set over the members as
    sorted (seen_bits()); by default no member is claimed to hold the state."""
    members = sorted((list(m) for m in members), key=_address_order)
    rows = sorted((list(r) for r in rows), key=lambda r: _id_order(r[0]))
    _strictly_increasing(members, _address_order, "members")
    _strictly_increasing(rows, lambda r: _id_order(r[0]), "rows")
    if len(members) > MAX_GOSSIP_ENTRIES or len(rows) > MAX_GOSSIP_ENTRIES:
        raise ValueError("more than 100,000 entries in a list")
    seen = seen_bits(len(members)) if seen is None else bytes(seen)
    if len(seen) != (len(members) + 7) // 8 or (len(members) % 8 and seen[-1] >> (len(members) % 8)):
        raise ValueError(f"seen bits {seen.hex()} do not fit {len(members)} members")
    return {0: GOSSIP_STATE, 1: members, 2: rows, 3: seen}


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


def refused_hello(address, cluster, claim_host, claim_port, incarnation, within):
    """Dials `address`, sends a hello naming `cluster` and claiming
    claim_host:claim_port at `incarnation`, and reads until the peer closes
    or `within` seconds pass; returns (closed by the peer, bytes it sent)."""
    return refused_frame(address, frame(hello(cluster, claim_host, claim_port, incarnation, os.urandom(16))), within)


def refused_frame(address, data, within):
    """Dials `address`, sends `data` (without closing its own side), and
    reads until the peer closes or `within` seconds pass; returns (closed by
    the peer, bytes it sent)."""
    host, port = address.split(":")
    sock = socket.create_connection((host, int(port)), timeout=3)
    try:
        sock.sendall(data)
        sock.settimeout(within)
        answer = b""
        try:
            while True:
                chunk = sock.recv(4096)
                if not chunk:
                    return True, answer
                answer += chunk
        except ConnectionResetError:
            return True, answer
        except socket.timeout:
            return False, answer
    finally:
        sock.close()


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

    def send(self, message):
        """Any message as one frame behind the handshake (unauthenticated, a
        dialer may pipeline them behind its hello); returns the bytes sent."""
        data = frame(message)
        self.sock.sendall(data)
        return data

    def close(self):
        self.sock.close()
