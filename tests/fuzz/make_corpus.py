#!/usr/bin/env python3
"""Writes the seed corpora for the wire fuzz targets into corpus/<target>/.

    python3 tests/fuzz/make_corpus.py

The MessagePack is written by hand below (no packages needed), following the
schemas in kernel/wire/envelope.hpp and kernel/wire/handshake.hpp. Each target
directory is emptied and rewritten, so the output is reproducible. Seeds are
deliberately small: libFuzzer mutates from them, it does not need volume.

File names say what a seed is; "bad_" seeds are meant to be rejected and the
name gives the expected error.
"""

import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")

# --- MessagePack, by hand ---------------------------------------------------


def uint(v, form=None):
    """Unsigned integer; shortest form unless `form` names one."""
    if form is None:
        form = ("fix" if v < 0x80 else "u8" if v <= 0xFF else "u16" if v <= 0xFFFF
                else "u32" if v <= 0xFFFFFFFF else "u64")
    return {
        "fix": lambda: bytes([v]),
        "u8": lambda: b"\xcc" + struct.pack(">B", v),
        "u16": lambda: b"\xcd" + struct.pack(">H", v),
        "u32": lambda: b"\xce" + struct.pack(">I", v),
        "u64": lambda: b"\xcf" + struct.pack(">Q", v),
        "i8": lambda: b"\xd0" + struct.pack(">b", v),
        "i16": lambda: b"\xd1" + struct.pack(">h", v),
        "i32": lambda: b"\xd2" + struct.pack(">i", v),
        "i64": lambda: b"\xd3" + struct.pack(">q", v),
    }[form]()


def neg(v):
    """A negative integer (negative fixint or int8)."""
    return bytes([v & 0xFF]) if v >= -32 else b"\xd0" + struct.pack(">b", v)


def string(s, form=None):
    if isinstance(s, str):
        s = s.encode()
    n = len(s)
    if form is None:
        form = "fix" if n < 32 else "s8" if n <= 0xFF else "s16" if n <= 0xFFFF else "s32"
    head = {
        "fix": lambda: bytes([0xA0 | n]),
        "s8": lambda: b"\xd9" + struct.pack(">B", n),
        "s16": lambda: b"\xda" + struct.pack(">H", n),
        "s32": lambda: b"\xdb" + struct.pack(">I", n),
    }[form]()
    return head + s


def binary(b, form=None):
    n = len(b)
    if form is None:
        form = "b8" if n <= 0xFF else "b16" if n <= 0xFFFF else "b32"
    head = {
        "b8": lambda: b"\xc4" + struct.pack(">B", n),
        "b16": lambda: b"\xc5" + struct.pack(">H", n),
        "b32": lambda: b"\xc6" + struct.pack(">I", n),
    }[form]()
    return head + b


def array_header(n, form=None):
    if form is None:
        form = "fix" if n < 16 else "a16" if n <= 0xFFFF else "a32"
    return {
        "fix": lambda: bytes([0x90 | n]),
        "a16": lambda: b"\xdc" + struct.pack(">H", n),
        "a32": lambda: b"\xdd" + struct.pack(">I", n),
    }[form]()


def map_header(n, form=None):
    if form is None:
        form = "fix" if n < 16 else "m16" if n <= 0xFFFF else "m32"
    return {
        "fix": lambda: bytes([0x80 | n]),
        "m16": lambda: b"\xde" + struct.pack(">H", n),
        "m32": lambda: b"\xdf" + struct.pack(">I", n),
    }[form]()


NIL = b"\xc0"


def msg(fields, header=None):
    """A message map from (key bytes, value bytes) pairs, in the given order."""
    out = header if header is not None else map_header(len(fields))
    for k, v in fields:
        out += (uint(k) if isinstance(k, int) else k) + v
    return out


# --- weft messages -----------------------------------------------------------

HELLO, HELLO_PROOF, TELL, ASK, REPLY = 0x01, 0x02, 0x40, 0x41, 0x42


def address(host="10.0.0.1", port=7000, port_form=None):
    return array_header(2) + string(host) + uint(port, port_form)


def ref(host="10.0.0.1", port=7000, name="worker", port_form=None):
    return array_header(3) + string(host) + uint(port, port_form) + string(name)


def envelope_fields(kind=TELL, target=None, sender=NIL, corr=0, tag=7, body=b"hi", raw_body=None):
    return [
        (0, uint(kind)),
        (1, target if target is not None else ref()),
        (2, sender),
        (3, uint(corr) if isinstance(corr, int) else corr),
        (4, uint(tag) if isinstance(tag, int) else tag),
        (5, binary(body) if raw_body is None else raw_body),
    ]


def envelope(**kw):
    return msg(envelope_fields(**kw))


NONCE = bytes(range(16))
PROOF = bytes(range(0x20, 0x40))


def hello_fields(version=1, cluster="prod", addr=None, incarnation=1, nonce=NONCE, proof=b""):
    return [
        (0, uint(HELLO)),
        (1, uint(version) if isinstance(version, int) else version),
        (2, string(cluster) if isinstance(cluster, str) else cluster),
        (3, addr if addr is not None else address()),
        (4, uint(incarnation) if isinstance(incarnation, int) else incarnation),
        (5, binary(nonce)),
        (6, binary(proof)),
    ]


def hello(**kw):
    return msg(hello_fields(**kw))


# Control messages (kernel/wire/control.hpp).
JOIN, HEARTBEAT, HEARTBEAT_ACK, PROBE_REQUEST, PROBE, PROBE_ACK, PROBE_ALIVE = range(0x10, 0x17)
GOSSIP_DIGEST, GOSSIP_STATE, GOSSIP_DELTA = 0x20, 0x21, 0x22


def member_id(host="10.0.0.1", port=7000, incarnation=1):
    return array_header(3) + string(host) + uint(port) + uint(incarnation)


def member(host="10.0.0.1", port=7000, incarnation=1, status=1):
    return array_header(4) + string(host) + uint(port) + uint(incarnation) + uint(status)


def row(observer, version, unreachable):
    return array_header(3) + observer + uint(version) + array_header(len(unreachable)) + b"".join(unreachable)


def listing(items):
    return array_header(len(items)) + b"".join(items)


def seen(*positions, members):
    """A seen set: one bit per member of the sender's table (bin)."""
    bits = bytearray((members + 7) // 8)
    for i in positions:
        bits[i // 8] |= 1 << (i % 8)
    return binary(bytes(bits))


def control_seeds():
    a, b = member_id("10.0.0.1", 7000, 3), member_id("10.0.0.2", 7000, 1)
    members = [member("10.0.0.1", 7000, 3, 1), member("10.0.0.2", 7000, 1, 4)]
    state = [(0, uint(GOSSIP_STATE)), (1, listing(members)), (2, listing([row(a, 2, [b])])),
             (3, seen(0, 1, members=2))]
    return {
        "control_join": msg([(0, uint(JOIN))]),
        "control_heartbeat": msg([(0, uint(HEARTBEAT)), (1, uint(41))]),
        "control_heartbeat_ack": msg([(1, uint(1 << 40)), (0, uint(HEARTBEAT_ACK))]),
        "control_probe_request": msg([(0, uint(PROBE_REQUEST)), (1, b), (2, uint(9))]),
        "control_probe": msg([(0, uint(PROBE)), (1, uint(9))]),
        "control_probe_ack": msg([(0, uint(PROBE_ACK)), (1, uint(9, "u32"))]),
        "control_probe_alive": msg([(0, uint(PROBE_ALIVE)), (1, a), (2, uint(9))]),
        "control_gossip_digest": msg([(0, uint(GOSSIP_DIGEST)), (1, uint(0xFFFFFFFFFFFFFFFF)), (2, uint(31))]),
        "control_gossip_state": msg(state),
        "control_gossip_delta": msg([(0, uint(GOSSIP_DELTA)), (1, uint(0x8000000000000001)),
                                     (2, listing(members[1:])), (3, listing([])), (4, seen(0, 1, members=2))]),
        "control_gossip_delta_seen_only": msg([(0, uint(GOSSIP_DELTA)), (1, uint(7)), (2, listing([])),
                                               (3, listing([])), (4, seen(1, members=2))]),
        "bad_control_gossip_delta_no_digest": msg([(0, uint(GOSSIP_DELTA)), (2, listing([])),
                                                   (3, listing([])), (4, seen(members=0))]),
        "control_gossip_state_empty": msg([(0, uint(GOSSIP_STATE)), (1, listing([])),
                                           (2, listing([])), (3, seen(members=0))]),
        "bad_control_gossip_state_seen_too_long": msg(state[:3] + [(3, seen(0, members=9))]),
        "bad_control_gossip_state_seen_spare_bit": msg(state[:3] + [(3, seen(0, 2, members=3))]),
        "bad_control_gossip_state_seen_is_list": msg(state[:3] + [(3, listing([a, b]))]),
        "bad_control_gossip_unsorted": msg([state[0], (1, listing(list(reversed(members))))] + state[2:]),
        "bad_control_member_status": msg([state[0], (1, listing([member(status=6)]))] + state[2:]),
        "bad_control_join_extra_field": msg([(0, uint(JOIN)), (1, uint(1))]),
        "bad_control_heartbeat_missing": msg([(0, uint(HEARTBEAT))]),
    }


# --- seeds -------------------------------------------------------------------

NESTED = array_header(2) + array_header(1) + map_header(1) + uint(1) + array_header(0) + NIL
EXOTIC = (array_header(6) + b"\xca\x3f\x80\x00\x00" + b"\xc3" + neg(-5)
          + b"\xd4\x01\x02" + b"\xc7\x02\x05ab" + string("x" * 40))


def envelope_seeds():
    sender = ref("10.0.0.2", 7001, "client")
    s = {
        "tell_nil_sender": envelope(),
        "tell_with_sender": envelope(sender=sender),
        "ask": envelope(kind=ASK, sender=sender, corr=1),
        "reply": envelope(kind=REPLY, sender=sender, corr=0xFFFFFFFFFFFFFFFF),
        "reply_nil_sender": envelope(kind=REPLY, corr=300),
        "empty_body": envelope(body=b""),
        "body_bin16": envelope(body=bytes(range(256)) + b"tail"),
        "max_tag_and_names": envelope(tag=0xFFFFFFFF, target=ref("h" * 253, 65535, "n" * 255)),
        "fields_reversed": msg(list(reversed(envelope_fields(sender=sender)))),
        "noncanonical": msg(
            [(uint(0, "u8"), uint(TELL, "u16")),
             (uint(1, "i8"), array_header(3, "a16") + string("host", "s16") +
              uint(80, "i32") + string("actor", "s8")),
             (uint(2, "u64"), NIL),
             (3, uint(0, "u64")),
             (4, uint(9, "i64")),
             (5, binary(b"body", "b32"))],
            header=map_header(6, "m32")),
        # Rejected ones.
        "bad_truncated": envelope()[:-1],
        "bad_trailing_bytes": envelope() + b"\x00",
        "bad_duplicate_field": msg(envelope_fields()[:5] + [(4, uint(1)), (5, binary(b""))]),
        "bad_unknown_field_nested": msg(envelope_fields() + [(9, NESTED)]),
        "bad_unknown_field_exotic": msg(envelope_fields() + [(31, EXOTIC)]),
        "bad_unknown_field_key": msg(envelope_fields() + [(32, NIL)]),
        "bad_missing_field": msg(envelope_fields()[:5]),
        "bad_too_many_fields": msg([(k, NIL) for k in range(17)]),
        "bad_map_count_lies": map_header(0xFFFF, "m16") + uint(0) + uint(TELL),
        "bad_not_a_map": array_header(1) + uint(0),
        "bad_empty": b"",
        "bad_ask_without_sender": envelope(kind=ASK, corr=5),
        "bad_tell_with_correlation": envelope(corr=5),
        "bad_port_zero": envelope(target=ref(port=0)),
        "bad_empty_name": envelope(target=ref(name="")),
        "bad_ref_two_elements": envelope(target=address()),
        "bad_tag_too_big": envelope(tag=1 << 32),
        "bad_body_is_str": envelope(raw_body=string("hi")),
        "bad_negative_corr": envelope(kind=REPLY, corr=neg(-1)),
        "bad_unknown_kind": envelope(kind=0x43),
        "bad_kind_is_hello": hello(),
        "bad_host_too_long": envelope(target=ref(host="h" * 254)),
        "bad_str_length_lies": msg([(0, uint(TELL)), (1, array_header(3) + b"\xd9\xff" + b"ab")]),
    }
    return s


def handshake_seeds():
    s = {
        "hello": hello(),
        "hello_proof": hello(proof=PROOF),
        "hello_limits": hello(version=0xFFFF, cluster="c" * 64, incarnation=(1 << 64) - 1,
                              addr=address("a" * 253, 65535)),
        "hello_reordered": msg([hello_fields()[i] for i in (6, 3, 0, 5, 1, 4, 2)]),
        "hello_noncanonical": msg(
            [(uint(0, "i8"), uint(HELLO, "u32")),
             (1, uint(1, "u16")),
             (2, string("prod", "s32")),
             (3, array_header(2, "a32") + string("::1", "s8") + uint(7000, "u32")),
             (4, uint(3, "i16")),
             (5, binary(NONCE, "b16")),
             (6, binary(PROOF, "b32"))],
            header=map_header(7, "m16")),
        # The dialer's proof on authenticated links (kind 0x02).
        "hello_proof_message": msg([(0, uint(HELLO_PROOF)), (1, binary(PROOF))]),
        "bad_hello_proof_short": msg([(0, uint(HELLO_PROOF)), (1, binary(PROOF[:31]))]),
        "bad_hello_proof_empty": msg([(0, uint(HELLO_PROOF)), (1, binary(b""))]),
        "bad_hello_proof_extra": msg([(0, uint(HELLO_PROOF)), (1, binary(PROOF)), (2, uint(0))]),
        # User messages, for decode_message agreement.
        "tell": envelope(),
        "ask": envelope(kind=ASK, sender=ref("10.0.0.2", 7001, "client"), corr=2),
        # Rejected ones.
        "bad_version_zero": hello(version=0),
        "bad_version_too_big": hello(version=uint(0x10000)),
        "bad_cluster_empty": hello(cluster=""),
        "bad_cluster_too_long": hello(cluster="c" * 65),
        "bad_cluster_is_bin": hello(cluster=binary(b"prod")),
        "bad_nonce_short": hello(nonce=NONCE[:15]),
        "bad_proof_short": hello(proof=PROOF[:31]),
        "bad_address_three": hello(addr=ref()),
        "bad_address_port_zero": hello(addr=address(port=0)),
        "bad_address_port_too_big": hello(addr=address(port=0x10000)),
        "bad_missing_proof": msg(hello_fields()[:6]),
        "bad_kind_missing": msg(hello_fields()[1:]),
        "bad_kind_unknown": msg([(0, uint(0x3F))] + hello_fields()[1:]),
        "bad_kind_negative": msg([(0, neg(-1))] + hello_fields()[1:]),
        "bad_unknown_field": msg(hello_fields() + [(7, EXOTIC)]),
        "bad_truncated": hello()[:-3],
        "bad_trailing_bytes": hello() + NIL,
        "bad_empty_map": map_header(0),
        "bad_array_count_lies": msg([(0, uint(HELLO)), (3, array_header(0xFFFF, "a16"))]),
        "bad_bin_length_lies": msg([(0, uint(HELLO)), (5, b"\xc6\x7f\xff\xff\xff")]),
    }
    # decode_message is fuzzed here too, so every other kind gets seeds.
    s.update(control_seeds())
    return s


def frame(payload, length=None):
    return struct.pack(">I", len(payload) if length is None else length) + payload


def frame_seeds():
    # Byte 0: feed pattern (low two bits: 0 fixed size (byte >> 2) + 1,
    # 1 random 1..8, 2 random around a frame, 3 random with empty feeds).
    # Byte 1: max_frame_bytes index into
    # {1, 2, 3, 4, 5, 7, 8, 16, 31, 64, 100, 255, 256, 1024, 4095, 4096}.
    MAX_4096, MAX_16, MAX_1, MAX_255 = 15, 7, 0, 11
    tell, ask, hi = envelope(), envelope(kind=ASK, sender=ref(), corr=1), hello()
    three = frame(tell) + frame(hi) + frame(ask)
    s = {
        "one_frame_oneshot": bytes([0x00 | (63 << 2), MAX_4096]) + frame(tell),
        "three_frames_bytewise": bytes([0x00, MAX_4096]) + three,
        "three_frames_random_small": bytes([0x01, MAX_4096]) + three,
        "three_frames_random_wide": bytes([0x02, MAX_255]) + three,
        "three_frames_empty_feeds": bytes([0x07, MAX_4096]) + three,
        "tiny_frames_max1": bytes([0x04, MAX_1]) + frame(b"\x01") * 6,
        "exact_max16": bytes([0x0C, MAX_16]) + frame(bytes(16)) + frame(b"x"),
        "partial_header_tail": bytes([0x01, MAX_4096]) + frame(tell) + b"\x00\x00",
        "partial_body_tail": bytes([0x02, MAX_4096]) + frame(tell) + frame(hi)[:20],
        "max4096_frame": bytes([0x02 | (17 << 2), MAX_4096]) + frame(bytes(range(256)) * 16),
        "bad_oversize_after_frame": bytes([0x01, MAX_16]) + frame(b"ok") + frame(b"", 17),
        "bad_oversize_4097": bytes([0x03, MAX_4096]) + frame(tell) + frame(b"", 4097) + frame(tell),
        "bad_oversize_huge": bytes([0x00, MAX_4096]) + b"\xff\xff\xff\xff" + bytes(8),
        "bad_empty_frame": bytes([0x05, MAX_4096]) + frame(hi) + frame(b"") + frame(hi),
        "bad_empty_frame_split": bytes([0x00, MAX_255]) + frame(b"abc") + b"\x00\x00\x00\x00",
        "empty_stream": bytes([0x00, MAX_4096]),
    }
    return s


def write(target, seeds):
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):
        os.remove(os.path.join(directory, name))
    for name, data in sorted(seeds.items()):
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
    print(f"{target}: {len(seeds)} seeds, {sum(map(len, seeds.values()))} bytes")


def main():
    write("fuzz_frame_decoder", frame_seeds())
    write("fuzz_envelope_decoder", envelope_seeds())
    write("fuzz_handshake_decoder", handshake_seeds())
    return 0


if __name__ == "__main__":
    sys.exit(main())
