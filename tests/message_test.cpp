// Goal: decode_message routes each kind to its own decoder and agrees with
// them; the kind space splits control from user traffic by range.
#include "kernel/wire/message.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wire_test_support.hpp"

namespace weft::wire {
namespace {

using testing::ByteVector;
using testing::Pack;

TEST(Message, RoutesByKind) {
  const ByteVector hello_payload = testing::encode_payload(testing::sample_hello());
  const Decoded<Message> hello = decode_message(hello_payload);
  ASSERT_TRUE(hello.ok());
  EXPECT_TRUE(std::holds_alternative<Hello>(hello.value));
  EXPECT_EQ(std::get<Hello>(hello.value), testing::sample_hello());

  for (MessageKind kind : {MessageKind::tell, MessageKind::ask, MessageKind::reply}) {
    const ByteVector payload = testing::encode_payload(testing::sample_envelope(kind));
    const Decoded<Message> decoded = decode_message(payload);
    ASSERT_TRUE(decoded.ok());
    ASSERT_TRUE(std::holds_alternative<Envelope>(decoded.value));
    EXPECT_EQ(std::get<Envelope>(decoded.value), testing::sample_envelope(kind));
  }
}

TEST(Message, UnknownKindAndMissingKind) {
  EXPECT_EQ(decode_message(testing::Pack().map(1).uint(0).uint(0x30).bytes()).error,
            WireError::unknown_kind);
  EXPECT_EQ(decode_message(testing::Pack().map(1).uint(1).uint(1).bytes()).error,
            WireError::missing_field);
  EXPECT_EQ(decode_message(testing::Pack().map(0).bytes()).error, WireError::missing_field);
}

// A gossip state's seen set is a bin of one bit per member it carries
// (kernel/wire/control.hpp), packed here by msgpack-c, not by weft's writer:
// the bits must fit the members exactly, with no spare bit set.
ByteVector gossip_state_of_three(const ByteVector& seen) {
  Pack p;
  p.map(4).uint(0).uint(static_cast<std::uint8_t>(MessageKind::gossip_state)).uint(1).array(3);
  for (int n = 1; n <= 3; ++n) p.array(4).str("10.0.0." + std::to_string(n)).uint(7000).uint(1).uint(1);
  p.uint(2).array(0).uint(3).bin(seen);
  return p.bytes();
}

TEST(Message, AGossipStatesSeenBitsMustFitItsMembers) {
  const Decoded<GossipState> ok = decode_gossip_state(gossip_state_of_three({0x05}));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.value.seen, (std::vector<std::uint8_t>{0x05})) << "members 1 and 3";
  EXPECT_EQ(decode_gossip_state(gossip_state_of_three({0x08})).error, WireError::invalid_value)
      << "a bit past the third member";
  EXPECT_EQ(decode_gossip_state(gossip_state_of_three({0x01, 0x00})).error, WireError::invalid_value)
      << "a byte too many";
  EXPECT_EQ(decode_gossip_state(gossip_state_of_three({})).error, WireError::invalid_value)
      << "no bits for three members";
}

// A delta's bits are over the sender's whole table, which the message does
// not carry: the decoder bounds their length only, and the kernel reads them
// against its own table (Kernel::merge_gossip_delta).
TEST(Message, AGossipDeltasSeenBitsAreBoundedOnly) {
  Pack p;
  p.map(5).uint(0).uint(static_cast<std::uint8_t>(MessageKind::gossip_delta)).uint(1).uint(9);
  p.uint(2).array(0).uint(3).array(0).uint(4).bin(ByteVector{0xff, 0x01});
  const Decoded<GossipDelta> delta = decode_gossip_delta(p.bytes());
  ASSERT_TRUE(delta.ok());
  EXPECT_EQ(delta.value.seen, (std::vector<std::uint8_t>{0xff, 0x01}));
  Pack huge;
  huge.map(5).uint(0).uint(static_cast<std::uint8_t>(MessageKind::gossip_delta)).uint(1).uint(9);
  huge.uint(2).array(0).uint(3).array(0).uint(4).bin(ByteVector(seen_bytes_for(kMaxGossipEntries) + 1, 0));
  EXPECT_EQ(decode_gossip_delta(huge.bytes()).error, WireError::invalid_value) << "more bits than any table";
}

TEST(MessageKind, RangesSeparateControlFromUser) {
  EXPECT_TRUE(is_control(MessageKind::hello));
  EXPECT_FALSE(is_user(MessageKind::hello));
  for (MessageKind kind : {MessageKind::tell, MessageKind::ask, MessageKind::reply}) {
    EXPECT_TRUE(is_user(kind));
    EXPECT_FALSE(is_control(kind));
  }
  for (std::uint64_t raw = 0; raw < 256; ++raw) {
    MessageKind kind{};
    if (parse_kind(raw, kind) == WireError::none) {
      EXPECT_EQ(static_cast<std::uint64_t>(kind), raw);
      EXPECT_NE(is_control(kind), is_user(kind)) << raw;
    }
  }
}

TEST(WireError, EveryReasonHasADistinctName) {
  std::set<std::string_view> names;
  for (WireError e : kAllWireErrors) names.insert(to_string(e));
  EXPECT_EQ(names.size(), kAllWireErrors.size());
  EXPECT_EQ(names.count("invalid_wire_error"), 0u);
}

}  // namespace
}  // namespace weft::wire
