// Goal: HandoffDone (shard/handoff_wire.hpp) carries the shards its sender
// still serves, and a body that does not say exactly one thing is refused:
// a serving list out of order, one naming a handed shard, a truncated or
// trailing byte, the version before the list. A HandoffQuery names the
// shards its asker awaits (an empty body, the query before it did, names
// none); a part or a HandoffDone sent again on one says so, and the
// versions before the flag still decode, as first copies. A HandoffDone
// names the receiver's life it was sent to; one of a version before that
// names none.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <utility>
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

TEST(HandoffWire, AQueryNamesTheShardsItsAskerAwaits) {
  const std::optional<HandoffQuery> back = decode_query(encode_query({{2, 7, 300}}));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->awaited, (std::set<ShardId>{2, 7, 300}));
  const std::optional<HandoffQuery> legacy = decode_query({});
  ASSERT_TRUE(legacy.has_value()) << "an empty body is the query before shards were named";
  EXPECT_TRUE(legacy->awaited.empty());
  std::vector<std::uint8_t> bytes = encode_query({{2, 7}});
  bytes.pop_back();
  EXPECT_FALSE(decode_query(bytes).has_value()) << "truncated";
  bytes = encode_query({{2, 7}});
  bytes.push_back(0);
  EXPECT_FALSE(decode_query(bytes).has_value()) << "a trailing byte";
  bytes = encode_query({{2, 7}});
  std::swap(bytes[5], bytes[9]);  // the two shards' low bytes: 7, 2
  EXPECT_FALSE(decode_query(bytes).has_value()) << "out of order";
  bytes = encode_query({{2}});
  bytes[0] = 9;
  EXPECT_FALSE(decode_query(bytes).has_value()) << "an unknown version";
}

TEST(HandoffWire, WhatIsSentAgainSaysSoAndFirstCopiesOfOldVersionsStillDecode) {
  const std::vector<std::uint8_t> state{1, 2, 3};
  HandoffEntity part{5, "k42", state};
  const std::vector<std::uint8_t> first = encode_entity(part);  // the key and state are views into it
  std::optional<HandoffEntity> back = decode_entity(first);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->again);
  EXPECT_EQ(back->key, "k42");
  part.again = true;
  const std::vector<std::uint8_t> again = encode_entity(part);
  back = decode_entity(again);
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->again);
  EXPECT_EQ(std::vector<std::uint8_t>(back->state.begin(), back->state.end()), state);
  // Version 1: no flags byte.
  std::vector<std::uint8_t> v1(again.begin(), again.end());
  v1.erase(v1.begin() + 1);
  v1[0] = 1;
  back = decode_entity(v1);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->again);
  EXPECT_EQ(back->shard, 5u);
  std::vector<std::uint8_t> unknown_flag = again;
  unknown_flag[1] = 2;
  EXPECT_FALSE(decode_entity(unknown_flag).has_value()) << "a flag this version does not know";

  HandoffDone done = sample();
  done.again = true;
  const std::vector<std::uint8_t> done_again = encode_done(done);
  const std::optional<HandoffDone> done_back = decode_done(done_again);
  ASSERT_TRUE(done_back.has_value());
  EXPECT_TRUE(done_back->again);
  EXPECT_EQ(done_back->shards, sample().shards);
  // Version 3: the flags, no receiver's life (any life takes it).
  std::vector<std::uint8_t> v3(done_again.begin(), done_again.end());
  v3.erase(v3.begin() + 2, v3.begin() + 10);
  v3[0] = 3;
  const std::optional<HandoffDone> v3_back = decode_done(v3);
  ASSERT_TRUE(v3_back.has_value());
  EXPECT_TRUE(v3_back->again);
  EXPECT_EQ(v3_back->to_life, 0u);
  EXPECT_EQ(v3_back->shards, sample().shards);
  // Version 2: no flags either.
  std::vector<std::uint8_t> v2(v3.begin(), v3.end());
  v2.erase(v2.begin() + 1);
  v2[0] = 2;
  const std::optional<HandoffDone> v2_back = decode_done(v2);
  ASSERT_TRUE(v2_back.has_value());
  EXPECT_FALSE(v2_back->again);
  EXPECT_EQ(v2_back->serving, sample().serving);
}

TEST(HandoffWire, ADoneCarriesTheLifeOfTheReceiverItWasSentTo) {
  HandoffDone done = sample();
  done.to_life = 0x0102030405060708;
  const std::optional<HandoffDone> back = decode_done(encode_done(done));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->to_life, 0x0102030405060708u);
  std::vector<std::uint8_t> bytes = encode_done(done);
  bytes[0] = 5;
  EXPECT_FALSE(decode_done(bytes).has_value()) << "a version after this one";
}

}  // namespace
}  // namespace weft::shard
