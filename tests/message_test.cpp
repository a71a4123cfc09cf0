// Goal: decode_message routes each kind to its own decoder and agrees with
// them; the kind space splits control from user traffic by range.
#include "kernel/wire/message.hpp"

#include <gtest/gtest.h>

#include "wire_test_support.hpp"

namespace weft::wire {
namespace {

using testing::ByteVector;

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
