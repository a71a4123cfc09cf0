// Placement of sharded entities (shard/placement.hpp), as properties:
//   H1  the owner of every shard is a function of the members up in a view,
//       whatever order the view lists them in and whatever else it holds;
//   H2  one member going up moves only the shards it now owns, and one
//       member leaving `up` moves only the shards it owned.
// Each is aimed at a broken placement it must catch: one that picks by the
// view's order (H1), and `shard mod N` over the sorted hosts (H2), which is
// deterministic but moves most shards on every join.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "catches.hpp"
#include "shard/entity_batch.hpp"
#include "shard/envelope.hpp"
#include "shard/placement.hpp"

namespace weft::props {
namespace {

using shard::Placement;
using shard::ShardId;

using OwnerOf = std::function<std::optional<NodeAddress>(std::span<const Member> view, std::string_view kind,
                                                         ShardId shard)>;

constexpr ShardId kShards = 64;
const std::vector<std::string> kKinds = {"account", "cart", "room"};

std::optional<NodeAddress> rendezvous(std::span<const Member> view, std::string_view kind, ShardId shard) {
  return Placement(view).owner(kind, shard);
}

// Broken: the n-th member up in the order the view lists them.
std::optional<NodeAddress> by_view_order(std::span<const Member> view, std::string_view, ShardId shard) {
  std::vector<NodeAddress> up;
  for (const Member& m : view) {
    if (m.status == MemberStatus::up) up.push_back(m.address());
  }
  if (up.empty()) return std::nullopt;
  return up[shard % up.size()];
}

// Broken: shard mod N over the hosts in address order.
std::optional<NodeAddress> mod_n(std::span<const Member> view, std::string_view, ShardId shard) {
  const Placement placement(view);
  if (placement.hosts().empty()) return std::nullopt;
  return placement.hosts()[shard % placement.hosts().size()];
}

// Up to 12 members on distinct addresses, at any status.
rc::Gen<std::vector<Member>> gen_view() {
  return rc::gen::exec([] {
    const auto count = *rc::gen::inRange<std::size_t>(0, 13);
    std::vector<Member> view;
    for (std::size_t i = 0; i < count; ++i) {
      const auto host = *rc::gen::inRange(1, 250);
      const auto port = *rc::gen::inRange(7000, 7004);
      const NodeAddress address{"10.0.0." + std::to_string(host), static_cast<std::uint16_t>(port)};
      if (std::any_of(view.begin(), view.end(), [&](const Member& m) { return m.address() == address; })) continue;
      const auto status = static_cast<MemberStatus>(*rc::gen::inRange(0, 6));
      view.push_back(Member{MemberId{address, Incarnation{*rc::gen::inRange<std::uint64_t>(1, 1000)}}, status});
    }
    return view;
  });
}

std::map<std::pair<std::string, ShardId>, std::optional<NodeAddress>> owners(const OwnerOf& owner_of,
                                                                            std::span<const Member> view) {
  std::map<std::pair<std::string, ShardId>, std::optional<NodeAddress>> out;
  for (const std::string& kind : kKinds) {
    for (ShardId s = 0; s < kShards; ++s) out[{kind, s}] = owner_of(view, kind, s);
  }
  return out;
}

void placement_is_a_function_of_the_members_up(const OwnerOf& owner_of) {
  const std::vector<Member> view = *gen_view();
  // The same members up, listed in another order, the others at other
  // statuses or left out, and other lives of the same addresses.
  std::vector<Member> other;
  for (const Member& m : view) {
    if (m.status == MemberStatus::up) {
      other.push_back(Member{MemberId{m.address(), Incarnation{m.incarnation().value + 1}}, MemberStatus::up});
    } else if (*rc::gen::arbitrary<bool>()) {
      other.push_back(Member{m.id, static_cast<MemberStatus>(*rc::gen::elementOf(std::vector<int>{0, 2, 3, 4, 5}))});
    }
  }
  const auto order = *rc::gen::container<std::vector<int>>(other.size(), rc::gen::arbitrary<int>());
  std::vector<std::size_t> index(other.size());
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = i;
  std::stable_sort(index.begin(), index.end(), [&](std::size_t a, std::size_t b) { return order[a] < order[b]; });
  std::vector<Member> shuffled;
  for (std::size_t i : index) shuffled.push_back(other[i]);
  PROP_ASSERT("H1", owners(owner_of, view) == owners(owner_of, shuffled));
}

void one_change_moves_only_its_shards(const OwnerOf& owner_of) {
  std::vector<Member> view = *gen_view();
  const auto before = owners(owner_of, view);
  const NodeAddress newcomer{"10.0.1." + std::to_string(*rc::gen::inRange(1, 250)), 7000};
  std::vector<Member> joined = view;
  joined.push_back(Member{MemberId{newcomer, Incarnation{1}}, MemberStatus::up});
  for (const auto& [shard, owner] : owners(owner_of, joined)) {
    // Moved only to the newcomer (an empty view: everything goes to it).
    PROP_ASSERT("H2", owner == before.at(shard) || owner == newcomer);
  }
  const Placement placement(view);
  const std::vector<NodeAddress> hosts(placement.hosts().begin(), placement.hosts().end());
  if (hosts.empty()) return;
  const NodeAddress leaver = *rc::gen::elementOf(hosts);
  std::vector<Member> left = view;
  for (Member& m : left) {
    if (m.address() == leaver) m.status = MemberStatus::leaving;
  }
  for (const auto& [shard, owner] : owners(owner_of, left)) {
    PROP_ASSERT("H2", owner == before.at(shard) || before.at(shard) == leaver);
  }
}

RC_GTEST_PROP(H1Placement, OwnersAreAFunctionOfTheMembersUp, ()) {
  placement_is_a_function_of_the_members_up(rendezvous);
}

RC_GTEST_PROP(H2Placement, OneJoinOrLeaveMovesOnlyItsShards, ()) { one_change_moves_only_its_shards(rendezvous); }

TEST(H1Catches, PlacementByTheViewsOrder) {
  EXPECT_TRUE(fails_as("H1", "placement by the order the view lists its members in",
                       [] { placement_is_a_function_of_the_members_up(by_view_order); }));
}

TEST(H2Catches, ShardModN) {
  EXPECT_TRUE(fails_as("H2", "shard mod N over the hosts in address order",
                       [] { one_change_moves_only_its_shards(mod_n); }));
}

// Not a property: how evenly 4096 shards of one kind spread over ten fixed
// hosts (a check of the hash, which H1 and H2 do not judge). The expected
// share is 409.6 with a standard deviation of about 19.
TEST(Placement, ShardsSpreadEvenlyOverTenHosts) {
  std::vector<Member> view;
  for (int n = 1; n <= 10; ++n) {
    view.push_back(Member{MemberId{NodeAddress{"10.0.0." + std::to_string(n), 7000}, Incarnation{1}}, MemberStatus::up});
  }
  const Placement placement(view);
  std::map<NodeAddress, int> count;
  for (ShardId s = 0; s < 4096; ++s) ++count[*placement.owner("account", s)];
  ASSERT_EQ(count.size(), 10U);
  for (const auto& [host, n] : count) {
    EXPECT_GE(n, 307) << host.to_string();
    EXPECT_LE(n, 512) << host.to_string();
  }
}

// A leaving node's own region still places shards on it until it exits;
// every other view, and its own once exiting, leave it out.
TEST(Placement, ALeaverHostsInItsOwnPlacementUntilItExits) {
  std::vector<Member> view;
  for (int n = 1; n <= 5; ++n) {
    view.push_back(Member{MemberId{NodeAddress{"10.0.0." + std::to_string(n), 7000}, Incarnation{1}}, MemberStatus::up});
  }
  const NodeAddress leaver = view[2].address();
  const Placement before(view);
  view[2].status = MemberStatus::leaving;
  const Placement others(view);
  const Placement own = Placement::of_node(view, leaver);
  const Placement bystander = Placement::of_node(view, view[0].address());
  EXPECT_EQ(others.hosts().size(), 4U);
  EXPECT_EQ(bystander.hosts().size(), 4U);
  ASSERT_EQ(own.hosts().size(), 5U);
  for (ShardId s = 0; s < kShards; ++s) {
    EXPECT_EQ(own.owner("account", s), before.owner("account", s)) << "shard " << s;
    EXPECT_EQ(bystander.owner("account", s), others.owner("account", s)) << "shard " << s;
  }
  view[2].status = MemberStatus::exiting;
  EXPECT_EQ(Placement::of_node(view, leaver).hosts().size(), 4U);
}

TEST(Placement, KeysSpreadOverShardsAndTheHashIsStable) {
  EXPECT_EQ(shard::stable_hash(""), shard::stable_hash("", 0));
  EXPECT_NE(shard::shard_of("a", "bc", 1U << 20), shard::shard_of("ab", "c", 1U << 20))
      << "kind and key are joined with their lengths";
  std::map<ShardId, int> count;
  for (int k = 0; k < 64'000; ++k) ++count[shard::shard_of("account", "user-" + std::to_string(k), 64)];
  ASSERT_EQ(count.size(), 64U);
  for (const auto& [s, n] : count) EXPECT_NEAR(n, 1000, 200) << "shard " << s;
}

// Entity envelopes (shard/envelope.hpp) are read from any peer: every valid
// one round-trips, and any bytes either decode to views inside them with a
// valid key or are refused; every strict prefix of a valid one is refused
// or decodes to the same header with a shorter body.
RC_GTEST_PROP(ShardEnvelope, RoundTripsAndRefusesWhatItCannotRead, ()) {
  const auto key_bytes = *rc::gen::inRange<std::size_t>(1, shard::kMaxKeyBytes + 1);
  const std::string key = *rc::gen::container<std::string>(key_bytes, rc::gen::arbitrary<char>());
  const auto body = *rc::gen::arbitrary<std::vector<std::uint8_t>>();
  shard::EntityMessage message{*rc::gen::arbitrary<std::uint8_t>(), *rc::gen::arbitrary<std::uint32_t>(), key,
                               body};
  const std::string host = "10.0.0." + std::to_string(*rc::gen::inRange(1, 250));
  if (*rc::gen::arbitrary<bool>()) {
    message.stamp = shard::Stamp{host, *rc::gen::inRange<std::uint16_t>(1, 65535),
                                 *rc::gen::arbitrary<std::uint64_t>(), *rc::gen::arbitrary<std::uint64_t>()};
  }
  const std::vector<std::uint8_t> bytes = shard::encode(message);
  RC_ASSERT(bytes.size() == shard::encoded_size(message));
  const shard::Decoded back = shard::decode(bytes);
  RC_ASSERT(back.message.has_value());
  RC_ASSERT(back.message->hops == message.hops && back.message->tag == message.tag);
  RC_ASSERT(back.message->key == key);
  RC_ASSERT(back.message->stamp.has_value() == message.stamp.has_value());
  if (message.stamp) {
    const shard::Stamp& a = *back.message->stamp;
    const shard::Stamp& b = *message.stamp;
    RC_ASSERT(a.host == b.host && a.port == b.port && a.life == b.life && a.number == b.number);
  }
  RC_ASSERT(std::equal(back.message->body.begin(), back.message->body.end(), body.begin(), body.end()));
  const auto cut = *rc::gen::inRange<std::size_t>(0, bytes.size());
  const shard::Decoded prefix = shard::decode(std::span(bytes).first(cut));
  if (prefix.message) {
    RC_ASSERT(prefix.message->key == key && prefix.message->body.size() < body.size());
  }
  const auto noise = *rc::gen::arbitrary<std::vector<std::uint8_t>>();
  const shard::Decoded any = shard::decode(noise);
  if (any.message) {
    RC_ASSERT(shard::valid_key(any.message->key));
    RC_ASSERT(any.message->body.data() + any.message->body.size() == noise.data() + noise.size());
  }
}

// Entity batches (shard/entity_batch.hpp) are read from any peer too: every
// batch written reads back entry for entry, every strict prefix and any
// bytes after it are refused, and any bytes that do decode give entries
// with valid keys inside them.
RC_GTEST_PROP(ShardBatch, RoundTripsAndRefusesWhatItCannotRead, ()) {
  const auto count = *rc::gen::inRange<std::size_t>(1, 20);
  const auto host_bytes = *rc::gen::inRange<std::size_t>(1, shard::kMaxBatchHostBytes + 1);
  const std::string host = *rc::gen::container<std::string>(host_bytes, rc::gen::arbitrary<char>());
  const auto port = *rc::gen::inRange<std::uint16_t>(1, 65535);
  const auto life = *rc::gen::arbitrary<std::uint64_t>();
  struct Entry {
    std::uint32_t tag;
    std::uint64_t number;
    std::string sender, key;
    std::vector<std::uint8_t> body;
  };
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < count; ++i) {
    const auto key_bytes = *rc::gen::inRange<std::size_t>(1, shard::kMaxKeyBytes + 1);
    const auto sender_bytes = *rc::gen::inRange<std::size_t>(0, 256);
    const auto body_bytes = *rc::gen::inRange<std::size_t>(0, shard::kMaxBatchedBytes - key_bytes - sender_bytes + 1);
    entries.push_back({*rc::gen::arbitrary<std::uint32_t>(), *rc::gen::arbitrary<std::uint64_t>(),
                       *rc::gen::container<std::string>(sender_bytes, rc::gen::arbitrary<char>()),
                       *rc::gen::container<std::string>(key_bytes, rc::gen::arbitrary<char>()),
                       *rc::gen::container<std::vector<std::uint8_t>>(body_bytes, rc::gen::arbitrary<std::uint8_t>())});
  }
  shard::BatchWriter writer;
  writer.start(life, host, port);
  for (const Entry& e : entries) writer.append({e.tag, e.number, e.sender, e.key, e.body});
  const std::vector<std::uint8_t> bytes(writer.view().begin(), writer.view().end());
  shard::DecodedBatch back;
  RC_ASSERT(shard::decode_batch(bytes, back));
  RC_ASSERT(back.host == host && back.port == port && back.life == life && back.entries.size() == count);
  for (std::size_t i = 0; i < count; ++i) {
    const shard::BatchEntry& b = back.entries[i];
    const Entry& e = entries[i];
    RC_ASSERT(b.tag == e.tag && b.number == e.number && b.sender == e.sender && b.key == e.key);
    RC_ASSERT(std::equal(b.body.begin(), b.body.end(), e.body.begin(), e.body.end()));
  }
  const auto cut = *rc::gen::inRange<std::size_t>(0, bytes.size());
  RC_ASSERT(!shard::decode_batch(std::span(bytes).first(cut), back));
  std::vector<std::uint8_t> longer = bytes;
  longer.push_back(*rc::gen::arbitrary<std::uint8_t>());
  RC_ASSERT(!shard::decode_batch(longer, back));
  // One byte of a valid batch changed: read safely either way (what a
  // corrupted batch would be; noise alone seldom gets past the header).
  std::vector<std::uint8_t> noise = bytes;
  noise[*rc::gen::inRange<std::size_t>(0, noise.size())] = *rc::gen::arbitrary<std::uint8_t>();
  if (shard::decode_batch(noise, back)) {
    RC_ASSERT(!back.host.empty() && back.host.size() <= shard::kMaxBatchHostBytes && back.port != 0);
    for (const shard::BatchEntry& b : back.entries) {
      RC_ASSERT(shard::valid_key(b.key));
      RC_ASSERT(b.body.data() >= noise.data() && b.body.data() + b.body.size() <= noise.data() + noise.size());
    }
  }
}

// The layout envelope.hpp gives, byte by byte: two nodes of different
// builds must read each other's envelopes.
TEST(ShardEnvelope, LayoutIsPinned) {
  const std::vector<std::uint8_t> body{0xee};
  shard::EntityMessage message{1, 0x01020304, "ab", body};
  message.stamp = shard::Stamp{"h", 7, 0x11, 0x22};
  const std::vector<std::uint8_t> expected{
      1, 1, 1,                 // version, hops, flags (stamped)
      0x04, 0x03, 0x02, 0x01,  // user tag
      2, 0,                    // key length
      1, 'h', 7, 0,            // host, port
      0x11, 0, 0, 0, 0, 0, 0, 0, 0x22, 0, 0, 0, 0, 0, 0, 0,  // life, number
      'a', 'b', 0xee};         // key, body
  EXPECT_EQ(shard::encode(message), expected);
  message.stamp.reset();
  EXPECT_EQ(shard::encode(message), (std::vector<std::uint8_t>{1, 1, 0, 0x04, 0x03, 0x02, 0x01, 2, 0, 'a', 'b', 0xee}));
}

TEST(ShardEnvelope, RefusalsNameTheirReason) {
  EXPECT_EQ(shard::decode({}).error, shard::DecodeError::truncated);
  std::vector<std::uint8_t> bytes = shard::encode({0, 7, "key", {}});
  bytes[0] = 9;
  EXPECT_EQ(shard::decode(bytes).error, shard::DecodeError::bad_version);
  bytes = shard::encode({0, 7, "key", {}});
  bytes[7] = 0;  // key length 0
  EXPECT_EQ(shard::decode(bytes).error, shard::DecodeError::bad_key);
  bytes[7] = 4;  // one byte more than there is
  EXPECT_EQ(shard::decode(bytes).error, shard::DecodeError::truncated);
  bytes = shard::encode({0, 7, "key", {}, shard::Stamp{"h", 1, 2, 3}});
  bytes[2] = 3;  // a flag no version-1 writer sets
  EXPECT_EQ(shard::decode(bytes).error, shard::DecodeError::bad_version);
  bytes[2] = 1;
  bytes[11] = 0;  // the stamp's port, 0
  bytes[12] = 0;
  EXPECT_EQ(shard::decode(bytes).error, shard::DecodeError::bad_stamp);
  EXPECT_FALSE(shard::valid_key(std::string(shard::kMaxKeyBytes + 1, 'k')));
}

}  // namespace
}  // namespace weft::props
