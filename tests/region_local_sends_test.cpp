// Goal: an entity message sent on a node is numbered as it is sent and goes
// straight to its owner's region only when nothing of its node's for the
// same shard still waits in the region's mailbox (shard/region.hpp, "sends
// from this node"): a message queued first is never overtaken, and a send
// that fails gives its number back. The region is driven by hand through a
// context that records every send, so each step's route is seen before
// anything is delivered.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shard/entity_ref.hpp"
#include "shard/envelope.hpp"
#include "shard/placement.hpp"
#include "shard/region.hpp"
#include "region_by_hand.hpp"
#include "test_ids.hpp"

namespace weft::shard {
namespace {

using test_region::Recorder;
using test_region::Sent;

class Quiet final : public Entity {
 public:
  void receive(Context&, const Delivery&) override {}
};

EntityMessage decoded(const Sent& sent) {
  const Decoded d = decode(sent.body);
  EXPECT_TRUE(d.message.has_value());
  return d.message.value_or(EntityMessage{});
}

using test_region::members_changed;

TEST(RegionLocalSends, AStraightTellNeverOvertakesOneQueuedForItsShard) {
  const NodeAddress one = test::member_id(1).address;
  const NodeAddress two = test::member_id(2).address;
  EntityKind kind;
  kind.name = "tally";
  kind.shards = 8;
  kind.make = [](std::string_view) { return std::make_unique<Quiet>(); };
  kind.batch_tells = false;  // each tell alone: batches keep this order too (region_batch_test.cpp)
  Region region(std::move(kind));
  Recorder context(one);
  context.region = &region;
  const std::vector<Member> both{Member{test::member_id(1), MemberStatus::up},
                                 Member{test::member_id(2), MemberStatus::up}};
  // A key node 2 owns once both are up.
  std::string key;
  for (int i = 0; i < 100 && key.empty(); ++i) {
    const std::string k = "k" + std::to_string(i);
    if (Placement::of_node(both, one).owner("tally", region.shard_of_key(k)) == two) key = k;
  }
  ASSERT_FALSE(key.empty());
  const ActorRef here = region_of(one, "tally");
  const ActorRef there = region_of(two, "tally");
  const Entities tallies(one, "tally");
  const std::vector<std::uint8_t> body{1, 2, 3};

  // Node 1 alone: it owns every shard, so the tell is queued here, numbered.
  context.members_ = {Member{test::member_id(1), MemberStatus::up}};
  region.receive(context, members_changed);
  ASSERT_EQ(tallies.tell(context, key, 7, body), SendResult::sent);
  ASSERT_EQ(context.sent.size(), 1u);
  EXPECT_EQ(context.sent[0].to, here);
  const Sent first = context.sent[0];
  const EntityMessage m1 = decoded(first);
  ASSERT_TRUE(m1.stamp.has_value());
  EXPECT_EQ(m1.hops, 0);

  // Node 2 comes up and owns the key's shard; the first tell still waits in
  // node 1's region's mailbox, so the next one queues behind it.
  context.members_ = both;
  region.receive(context, members_changed);
  context.sent.clear();
  ASSERT_EQ(tallies.tell(context, key, 8, body), SendResult::sent);
  ASSERT_EQ(context.sent.size(), 1u);
  EXPECT_EQ(context.sent[0].to, here);
  const Sent second = context.sent[0];
  EXPECT_EQ(decoded(second).stamp->number, m1.stamp->number + 1);

  // The region takes the first out and forwards it; the second still waits.
  context.sent.clear();
  region.receive(context, Delivery{DeliveryKind::tell, {}, 0, kEntityTag, first.body});
  ASSERT_EQ(context.sent.size(), 1u);
  EXPECT_EQ(context.sent[0].to, there);
  EXPECT_EQ(decoded(context.sent[0]).hops, 1);
  context.sent.clear();
  ASSERT_EQ(tallies.tell(context, key, 9, body), SendResult::sent);
  ASSERT_EQ(context.sent.size(), 1u);
  EXPECT_EQ(context.sent[0].to, here);
  const Sent third = context.sent[0];

  // Once the latest queued is out, a tell goes straight, numbered next.
  region.receive(context, Delivery{DeliveryKind::tell, {}, 0, kEntityTag, second.body});
  region.receive(context, Delivery{DeliveryKind::tell, {}, 0, kEntityTag, third.body});
  context.sent.clear();
  const std::uint64_t forwarded = region.counters().forwarded;
  ASSERT_EQ(tallies.tell(context, key, 10, body), SendResult::sent);
  ASSERT_EQ(context.sent.size(), 1u);
  EXPECT_EQ(context.sent[0].to, there);
  const EntityMessage straight = decoded(context.sent[0]);
  EXPECT_EQ(straight.hops, 1);
  EXPECT_EQ(straight.stamp->number, m1.stamp->number + 3);
  EXPECT_EQ(region.counters().forwarded, forwarded + 1);

  // A straight send that fails is counted as a failed forward and its
  // number is given to the next message: the owner sees no gap.
  context.sent.clear();
  context.result = SendResult::outbound_full;
  EXPECT_EQ(tallies.tell(context, key, 11, body), SendResult::outbound_full);
  EXPECT_EQ(region.counters().refused[static_cast<std::size_t>(Refusal::forward_failed)], 1u);
  context.result = SendResult::sent;
  context.sent.clear();
  ASSERT_EQ(tallies.tell(context, key, 12, body), SendResult::sent);
  ASSERT_EQ(context.sent.size(), 1u);
  EXPECT_EQ(decoded(context.sent[0]).stamp->number, straight.stamp->number + 1);
  EXPECT_EQ(decoded(context.sent[0]).tag, 12u);
}

TEST(RegionLocalSends, ASenderThatCannotReachItsRegionLeavesTheNumberingToIt) {
  // A context with no local behaviour (a detached one, a test's): the
  // message goes to this node's region unnumbered, which numbers it as it
  // arrives.
  const NodeAddress one = test::member_id(1).address;
  Recorder context(one);  // region stays nullptr
  const Entities tallies(one, "tally");
  ASSERT_EQ(tallies.tell(context, "k1", 7, std::vector<std::uint8_t>{1}), SendResult::sent);
  ASSERT_EQ(context.sent.size(), 1u);
  EXPECT_EQ(context.sent[0].to, region_of(one, "tally"));
  EXPECT_FALSE(decoded(context.sent[0]).stamp.has_value());
}

}  // namespace
}  // namespace weft::shard
