// Goal: HandoffDone (shard/handoff_wire.hpp) carries the shards its sender
// still serves, and a body that does not say exactly one thing is refused:
// a serving list out of order, one naming a handed shard, a truncated or
// trailing byte, the version before the list.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "shard/handoff_wire.hpp"

namespace weft::shard {
namespace {

HandoffDone sample() {
  HandoffDone done;
  done.shards[3] = {{Source{"10.0.0.2", 7000, 5}, 42}};
  done.shards[9] = {};
  done.serving = {1, 4, 60};
  return done;
}

TEST(HandoffWire, ADoneRoundTripsItsShardsAndWhatItStillServes) {
  const std::optional<HandoffDone> back = decode_done(encode_done(sample()));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->shards, sample().shards);
  EXPECT_EQ(back->serving, (std::set<ShardId>{1, 4, 60}));
  const std::optional<HandoffDone> empty = decode_done(encode_done({}));
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->shards.empty());
  EXPECT_TRUE(empty->serving.empty());
}

// The serving list is the body's last 4 + 4n bytes, ascending.
std::vector<std::uint8_t> with_serving(const std::vector<ShardId>& serving) {
  HandoffDone done = sample();
  done.serving.clear();
  const std::vector<std::uint8_t> full = encode_done(done);
  if (full.size() < 4) return full;  // never: the count alone is 4 bytes
  std::vector<std::uint8_t> bytes(full.begin(), full.end() - 4);
  const auto put = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  put(static_cast<std::uint32_t>(serving.size()));
  for (const ShardId s : serving) put(s);
  return bytes;
}

TEST(HandoffWire, ADoneThatDoesNotSayOneThingIsRefused) {
  ASSERT_TRUE(decode_done(with_serving({1, 4})).has_value());
  EXPECT_FALSE(decode_done(with_serving({4, 1})).has_value()) << "out of order";
  EXPECT_FALSE(decode_done(with_serving({4, 4})).has_value()) << "twice";
  EXPECT_FALSE(decode_done(with_serving({1, 3})).has_value()) << "handed and still served";
  std::vector<std::uint8_t> bytes = encode_done(sample());
  bytes.pop_back();
  EXPECT_FALSE(decode_done(bytes).has_value()) << "truncated";
  bytes = encode_done(sample());
  bytes.push_back(0);
  EXPECT_FALSE(decode_done(bytes).has_value()) << "a trailing byte";
  bytes = encode_done(sample());
  bytes[0] = 1;
  EXPECT_FALSE(decode_done(bytes).has_value()) << "version 1 had no serving list";
}

}  // namespace
}  // namespace weft::shard
