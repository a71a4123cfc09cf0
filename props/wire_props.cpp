// W1 (decode(encode(x)) == x) for every wire message, the frame decoder's
// split-invariance, and containment of corrupted input (W2), as rapidcheck
// properties. Each property is written against a codec parameter so the same
// property can be aimed at a deliberately broken codec and shown to fail.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <vector>

#include "catches.hpp"
#include "generators.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/message.hpp"

namespace weft::props {
namespace {

using ByteVector = std::vector<std::uint8_t>;

template <class Message>
ByteVector payload_of(const Message& message) {
  ByteVector frame;
  RC_ASSERT(wire::append_frame(frame, message) == wire::WireError::none);
  return ByteVector(frame.begin() + wire::kFrameHeaderBytes, frame.end());
}

struct RealEnvelopeCodec {
  static ByteVector encode(const wire::Envelope& e) { return payload_of(e); }
  static wire::Decoded<wire::Envelope> decode(wire::Bytes b) { return wire::decode_envelope(b); }
};

// Broken on purpose: keeps only the low 32 bits of a correlation id, the
// kind of slip a hand-written codec makes with a uint32 field.
struct CorrelationTruncatingCodec {
  static ByteVector encode(wire::Envelope e) {
    if (e.correlation_id != 0) e.correlation_id = (e.correlation_id & 0xffffffffULL) | 1;
    return payload_of(e);
  }
  static wire::Decoded<wire::Envelope> decode(wire::Bytes b) { return wire::decode_envelope(b); }
};

// Broken on purpose: a decoder that loses the body past a bin8's 255 bytes.
struct BodyClippingCodec {
  static ByteVector encode(const wire::Envelope& e) { return payload_of(e); }
  static wire::Decoded<wire::Envelope> decode(wire::Bytes b) {
    wire::Decoded<wire::Envelope> d = wire::decode_envelope(b);
    if (d.ok() && d.value.body.size() > 255) d.value.body = d.value.body.first(255);
    return d;
  }
};

template <class Codec>
void envelope_round_trips() {
  const OwnedEnvelope owned = *gen_envelope();
  const wire::Envelope original = owned.view();
  const ByteVector payload = Codec::encode(original);
  const wire::Decoded<wire::Envelope> decoded = Codec::decode(payload);
  PROP_ASSERT("W1", decoded.ok());
  PROP_ASSERT("W1", decoded.value == original);
}

RC_GTEST_PROP(W1RoundTrip, Envelope, ()) { envelope_round_trips<RealEnvelopeCodec>(); }

RC_GTEST_PROP(W1RoundTrip, Hello, ()) {
  const OwnedHello owned = *gen_hello();
  const ByteVector payload = payload_of(owned.view());
  PROP_ASSERT("W1", payload.size() == wire::encoded_size(owned.view()));
  const wire::Decoded<wire::Hello> decoded = wire::decode_hello(payload);
  PROP_ASSERT("W1", decoded.ok());
  PROP_ASSERT("W1", decoded.value == owned.view());
}

RC_GTEST_PROP(W1RoundTrip, AnyMessageThroughDecodeMessage, ()) {
  const bool hello = *rc::gen::arbitrary<bool>();
  const OwnedHello h = *gen_hello();
  const OwnedEnvelope e = *gen_envelope();
  const ByteVector payload = hello ? payload_of(h.view()) : payload_of(e.view());
  const wire::Decoded<wire::Message> decoded = wire::decode_message(payload);
  PROP_ASSERT("W1", decoded.ok());
  if (hello) {
    PROP_ASSERT("W1", std::get<wire::Hello>(decoded.value) == h.view());
  } else {
    PROP_ASSERT("W1", std::get<wire::Envelope>(decoded.value) == e.view());
  }
}

MemberId gen_member_id() {
  return MemberId{NodeAddress{*gen_text(1, 12), *rc::gen::inRange<std::uint16_t>(1, 65535)},
                  Incarnation{*rc::gen::arbitrary<std::uint64_t>()}};
}

// A seen set over `members` records: a bit each, the spare bits clear.
std::vector<std::uint8_t> gen_seen_bits(std::size_t members) {
  std::vector<std::uint8_t> bits(seen_bytes_for(members), 0);
  for (std::size_t i = 0; i < members; ++i) {
    if (*rc::gen::arbitrary<bool>()) bits[i / 8] |= static_cast<std::uint8_t>(1U << (i % 8));
  }
  return bits;
}

// A gossip state as a node would send it: sorted, unique lists.
wire::GossipState gen_gossip_state() {
  wire::GossipState state;
  MemberTable table;
  const auto members = *rc::gen::inRange(0, 40);
  for (int i = 0; i < members; ++i) {
    table.merge(Member{gen_member_id(), *rc::gen::element(MemberStatus::joining, MemberStatus::up,
                                                           MemberStatus::leaving, MemberStatus::exiting,
                                                           MemberStatus::down, MemberStatus::removed)});
  }
  state.members.assign(table.members().begin(), table.members().end());
  ReachabilityTable reachability;
  const auto marks = *rc::gen::inRange(0, 20);
  for (int i = 0; i < marks; ++i) reachability.mark_unreachable(gen_member_id(), gen_member_id());
  state.rows.assign(reachability.rows().begin(), reachability.rows().end());
  state.seen = gen_seen_bits(state.members.size());
  return state;
}

// A delta as a node would send it: a state's sorted lists under a digest.
wire::GossipDelta gen_gossip_delta() {
  wire::GossipState state = gen_gossip_state();
  return wire::GossipDelta{*rc::gen::arbitrary<std::uint64_t>(), std::move(state.members), std::move(state.rows),
                           std::move(state.seen)};
}

template <class T>
void control_round_trips(const T& original) {
  const ByteVector payload = payload_of(original);
  const wire::Decoded<wire::Message> decoded = wire::decode_message(payload);
  PROP_ASSERT("W1", decoded.ok());
  PROP_ASSERT("W1", std::get<T>(decoded.value) == original);
}

RC_GTEST_PROP(W1RoundTrip, ControlMessages, ()) {
  const std::uint64_t n = *rc::gen::arbitrary<std::uint64_t>();
  switch (*rc::gen::inRange(0, 10)) {
    case 0: control_round_trips(wire::Join{}); break;
    case 1: control_round_trips(wire::Heartbeat{n}); break;
    case 2: control_round_trips(wire::HeartbeatAck{n}); break;
    case 3: control_round_trips(wire::ProbeRequest{gen_member_id(), n}); break;
    case 4: control_round_trips(wire::Probe{n}); break;
    case 5: control_round_trips(wire::ProbeAck{n}); break;
    case 6: control_round_trips(wire::ProbeAlive{gen_member_id(), n}); break;
    case 7: control_round_trips(wire::GossipDigest{n, n / 3}); break;
    case 8: control_round_trips(gen_gossip_delta()); break;
    default: control_round_trips(gen_gossip_state()); break;
  }
}

// Broken on purpose: gossip that loses the last member of the table.
TEST(W1RoundTripCatches, GossipStateLosingItsLastMember) {
  EXPECT_TRUE(fails_as("W1", "gossip through an encoder that drops a member", [] {
    const wire::GossipState original = gen_gossip_state();
    wire::GossipState sent = original;
    if (!sent.members.empty()) {
      sent.members.pop_back();
      sent.seen = gen_seen_bits(sent.members.size());  // what the encoder requires of a state
    }
    const ByteVector payload = payload_of(sent);
    const wire::Decoded<wire::GossipState> decoded = wire::decode_gossip_state(payload);
    PROP_ASSERT("W1", decoded.ok());
    PROP_ASSERT("W1", decoded.value == original);
  }));
}

// Broken on purpose: a delta whose digest loses its top bit on the way.
TEST(W1RoundTripCatches, GossipDeltaDigestLosingItsTopBit) {
  EXPECT_TRUE(fails_as("W1", "a delta through an encoder that clips the digest", [] {
    wire::GossipDelta original = gen_gossip_delta();
    original.digest |= 1ULL << 63;
    wire::GossipDelta sent = original;
    sent.digest &= ~(1ULL << 63);
    const ByteVector payload = payload_of(sent);
    const wire::Decoded<wire::GossipDelta> decoded = wire::decode_gossip_delta(payload);
    PROP_ASSERT("W1", decoded.ok());
    PROP_ASSERT("W1", decoded.value == original);
  }));
}

TEST(W1RoundTripCatches, CorrelationIdTruncatedToThirtyTwoBits) {
  EXPECT_TRUE(fails_as("W1", "round trip through a codec that truncates correlation ids",
                       [] { envelope_round_trips<CorrelationTruncatingCodec>(); }));
}

TEST(W1RoundTripCatches, BodyClippedAtTwoHundredFiftyFiveBytes) {
  EXPECT_TRUE(fails_as("W1", "round trip through a decoder that clips bodies",
                       [] { envelope_round_trips<BodyClippingCodec>(); }));
}

// --- Frame stream: any split of a stream into reads yields the same frames.

struct StreamCase {
  std::vector<ByteVector> payloads;
  ByteVector stream;
  std::vector<std::size_t> cuts;  // sorted read boundaries inside the stream
};

StreamCase gen_stream_case() {
  StreamCase c;
  c.payloads = *rc::gen::container<std::vector<ByteVector>>(rc::gen::mapcat(
      rc::gen::inRange<std::size_t>(1, 3000), [](std::size_t n) {
        return rc::gen::container<ByteVector>(n, rc::gen::arbitrary<std::uint8_t>());
      }));
  for (const ByteVector& p : c.payloads) {
    std::uint8_t header[wire::kFrameHeaderBytes];
    wire::store_be32(header, static_cast<std::uint32_t>(p.size()));
    c.stream.insert(c.stream.end(), header, header + wire::kFrameHeaderBytes);
    c.stream.insert(c.stream.end(), p.begin(), p.end());
  }
  if (!c.stream.empty()) {
    c.cuts = *rc::gen::container<std::vector<std::size_t>>(
        rc::gen::inRange<std::size_t>(0, c.stream.size()));
    std::sort(c.cuts.begin(), c.cuts.end());
  }
  return c;
}

// Feeds the stream in reads bounded by `cuts`; a fresh decoder per read when
// `forget_between_reads` (the broken variant: partial frames are lost).
std::vector<ByteVector> decode_in_reads(const StreamCase& c, bool forget_between_reads) {
  std::vector<ByteVector> frames;
  wire::FrameDecoder decoder;
  std::size_t at = 0;
  std::vector<std::size_t> bounds = c.cuts;
  bounds.push_back(c.stream.size());
  for (std::size_t end : bounds) {
    if (forget_between_reads) decoder = wire::FrameDecoder();
    const wire::WireError e = decoder.feed(wire::Bytes(c.stream.data() + at, end - at), [&](wire::Bytes p) {
      frames.emplace_back(p.begin(), p.end());
    });
    PROP_ASSERT("FRAME", e == wire::WireError::none);
    at = end;
  }
  return frames;
}

RC_GTEST_PROP(FrameStream, AnySplitYieldsTheSameFrames, ()) {
  const StreamCase c = gen_stream_case();
  PROP_ASSERT("FRAME", decode_in_reads(c, false) == c.payloads);
}

TEST(FrameStreamCatches, DecoderThatForgetsPartialFrames) {
  EXPECT_TRUE(fails_as("FRAME", "frames through a decoder that drops partial frames between reads", [] {
    const StreamCase c = gen_stream_case();
    PROP_ASSERT("FRAME", decode_in_reads(c, true) == c.payloads);
  }));
}

// --- W2: corrupted input is contained: an error, or a message that
// re-encodes to bytes decoding to the same message.

RC_GTEST_PROP(W2Containment, CorruptedEnvelopesDecodeToErrorsOrStableValues, ()) {
  const OwnedEnvelope owned = *gen_envelope();
  ByteVector payload = payload_of(owned.view());
  const auto flips = *rc::gen::inRange(1, 6);
  for (int i = 0; i < flips; ++i) {
    const std::size_t at = *rc::gen::inRange<std::size_t>(0, payload.size());
    payload[at] = *rc::gen::arbitrary<std::uint8_t>();
  }
  if (*rc::gen::arbitrary<bool>()) payload.resize(*rc::gen::inRange<std::size_t>(0, payload.size() + 1));
  const wire::Decoded<wire::Message> decoded = wire::decode_message(payload);
  RC_CLASSIFY(decoded.ok(), "still valid");
  if (!decoded.ok()) return;
  const ByteVector again = std::visit([](const auto& m) { return payload_of(m); }, decoded.value);
  const wire::Decoded<wire::Message> redecoded = wire::decode_message(again);
  PROP_ASSERT("W2", redecoded.ok());
  PROP_ASSERT("W2", redecoded.value == decoded.value);
}

RC_GTEST_PROP(W2Containment, ArbitraryBytesNeverCrashTheDecoders, (const ByteVector& bytes)) {
  const wire::Decoded<wire::Message> decoded = wire::decode_message(bytes);
  const wire::Decoded<wire::Envelope> envelope = wire::decode_envelope(bytes);
  const wire::Decoded<wire::Hello> hello = wire::decode_hello(bytes);
  // The specific decoders agree with the generic one about validity.
  if (decoded.ok()) {
    PROP_ASSERT("W2", envelope.ok() == std::holds_alternative<wire::Envelope>(decoded.value));
    PROP_ASSERT("W2", hello.ok() == std::holds_alternative<wire::Hello>(decoded.value));
  }
  if (envelope.ok() || hello.ok()) PROP_ASSERT("W2", decoded.ok());
}

}  // namespace
}  // namespace weft::props
