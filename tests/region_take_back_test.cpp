// Goal: a shard this node handed to a member that is not live by the time
// the shard comes back is taken back with the state it handed: at once if
// no view since named a third owner, else once the shard's wait on that
// owner ends, for the keys it did not hand here newer (shard/region_moves.cpp,
// Region::take_back_returned; docs/sharding.md). The region is driven by
// hand through a context that records every send, view by view, so what
// it keeps and what it takes back is seen at each step. Each rule's planted
// defect (shard_forget_returned, shard_return_past_third_owner) is shown
// to turn the outcome its test asserts.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shard/envelope.hpp"
#include "shard/handoff_wire.hpp"
#include "shard/placement.hpp"
#include "shard/region.hpp"
#include "test_ids.hpp"

namespace weft::shard {
namespace {

class Recorder final : public Context {
 public:
  explicit Recorder(const NodeAddress& self) : self_{self, region_name("tally")} {}

  const ActorRef& self() const override { return self_; }
  Instant now() const override { return Instant::from_ns(1'000'000'000); }
  SendResult tell(const ActorRef& to, std::uint32_t tag, std::span<const std::uint8_t>) override {
    tags.push_back({to, tag});
    return SendResult::sent;
  }
  AskId ask(const ActorRef& to, std::uint32_t tag, std::span<const std::uint8_t>, Duration) override {
    tags.push_back({to, tag});
    return ++asks_;
  }
  SendResult reply(std::uint32_t, std::span<const std::uint8_t>) override { return SendResult::sent; }
  std::span<const Member> members() const override { return members_; }
  SendResult forward(const ActorRef& to, const Delivery&, std::uint32_t tag, std::span<const std::uint8_t>) override {
    tags.push_back({to, tag});
    return SendResult::sent;
  }
  SendResult reply_to(const Delivery&, std::uint32_t, std::span<const std::uint8_t>) override {
    return SendResult::sent;
  }
  void start_timer(std::uint32_t, Duration) override {}
  void cancel_timer(std::uint32_t) override {}
  Behavior* local_behavior(std::string_view) const override { return nullptr; }

  std::size_t sent(const ActorRef& to, std::uint32_t tag) const {
    std::size_t n = 0;
    for (const auto& [t, g] : tags) n += t == to && g == tag;
    return n;
  }

  std::vector<Member> members_;
  std::vector<std::pair<ActorRef, std::uint32_t>> tags;

 private:
  ActorRef self_;
  AskId asks_ = 0;
};

// Counts the messages it is handed; its state is the count.
class Counter final : public Entity {
 public:
  void receive(Context&, const Delivery&) override { ++count; }
  bool hand_over(std::vector<std::uint8_t>& state) override {
    state.push_back(static_cast<std::uint8_t>(count));
    return true;
  }
  void take_over(std::span<const std::uint8_t> state) override { count = state.empty() ? 0 : state[0]; }
  int count = 0;
};

const Delivery members_changed{DeliveryKind::members_changed, {}, 0, 0, {}};

struct Fixture {
  explicit Fixture(const RegionMutations& mutations = {}) : context(test::member_id(1).address) {
    EntityKind kind;
    kind.name = "tally";
    kind.shards = 8;
    kind.mutations = mutations;
    kind.make = [](std::string_view) { return std::make_unique<Counter>(); };
    region = std::make_unique<Region>(std::move(kind));
  }
  static Member at(int n, MemberStatus status) { return Member{test::member_id(n), status}; }
  void view(std::vector<Member> members) {
    context.members_ = std::move(members);
    region->receive(context, members_changed);
  }
  // An entity message as one arrives from a node without a region: the
  // region numbers it and, owning its shard, hands it to the entity.
  void tell(const std::string& key) {
    const std::vector<std::uint8_t> envelope = encode(EntityMessage{0, 7, key, {}});
    region->receive(context, Delivery{DeliveryKind::tell, ActorRefView{client_.node.host, client_.node.port, client_.name}, 0,
                                      kEntityTag, envelope});
  }
  int count(const std::string& key) const {
    const auto* counter = dynamic_cast<const Counter*>(region->entity(key));
    return counter == nullptr ? -1 : counter->count;
  }
  // A key whose shard each view in `owners` gives the member named beside it.
  std::string key_owned_as(const std::vector<std::pair<std::vector<Member>, int>>& owners) const {
    for (int i = 0; i < 1000; ++i) {
      const std::string k = "k" + std::to_string(i);
      bool all = true;
      for (const auto& [members, owner] : owners) {
        all = all && Placement::of_node(members, context.self().node).owner("tally", region->shard_of_key(k)) ==
                         test::member_id(owner).address;
      }
      if (all) return k;
    }
    return {};
  }

  Recorder context;
  std::unique_ptr<Region> region;
  ActorRef client_{test::member_id(3).address, "client"};
};

// 1 alone serves the key (count 3), hands it to 2 when 2 is up (the part on
// a link that, say, a partition cut), and 2 goes down before any view of
// 1's names anyone else: the shard is back, nobody owes 1 a handoff, and
// 1 takes back the count it handed.
void hand_to_one_gone(Fixture& f, std::string& key) {
  const std::vector<Member> alone{Fixture::at(1, MemberStatus::up)};
  const std::vector<Member> both{Fixture::at(1, MemberStatus::up), Fixture::at(2, MemberStatus::up)};
  key = f.key_owned_as({{both, 2}});
  ASSERT_FALSE(key.empty());
  f.view(alone);
  for (int i = 0; i < 3; ++i) f.tell(key);
  ASSERT_EQ(f.count(key), 3);
  f.view(both);
  EXPECT_FALSE(f.region->hosts(key));
  EXPECT_EQ(f.context.sent(region_of(test::member_id(2).address, "tally"), kHandoffEntityTag), 1u);
}

TEST(RegionTakeBack, AShardBackFromAReceiverGoneTakesBackWhatItHanded) {
  Fixture f;
  std::string key;
  ASSERT_NO_FATAL_FAILURE(hand_to_one_gone(f, key));
  f.view({Fixture::at(1, MemberStatus::up), Fixture::at(2, MemberStatus::down)});
  EXPECT_TRUE(f.region->hosts(key)) << "the copy handed to 2 is taken back";
  EXPECT_TRUE(f.region->restored(key));
  EXPECT_EQ(f.count(key), 3);
  f.tell(key);
  EXPECT_EQ(f.count(key), 4) << "and goes on from the count handed";
}

TEST(RegionTakeBack, ForgettingTheCopyStartsTheKeyFresh) {  // the planted defect, seen to break the test above
  RegionMutations forget;
  forget.forget_returned = true;
  Fixture f(forget);
  std::string key;
  ASSERT_NO_FATAL_FAILURE(hand_to_one_gone(f, key));
  f.view({Fixture::at(1, MemberStatus::up), Fixture::at(2, MemberStatus::down)});
  EXPECT_FALSE(f.region->hosts(key));
  f.tell(key);
  EXPECT_EQ(f.count(key), 1);
}

// As above, but a view between names 3 the owner (2 down, 3 up, and 3
// outscores 1 for the shard): 3 may have served the key since. When the
// shard comes back to 1 (3 leaving: live, no longer a host), 1 awaits 3's
// handoff, and the copy handed to 2 is set aside until the wait ends: a
// newer part from 3 wins, and if 3 hands nothing of the key the copy
// comes back then.
void hand_on_past_a_third_owner(Fixture& f, std::string& key) {
  const std::vector<Member> both{Fixture::at(1, MemberStatus::up), Fixture::at(2, MemberStatus::up)};
  const std::vector<Member> third{Fixture::at(1, MemberStatus::up), Fixture::at(2, MemberStatus::down),
                                  Fixture::at(3, MemberStatus::up)};
  key = f.key_owned_as({{both, 2}, {third, 3}});
  ASSERT_FALSE(key.empty());
  f.view({Fixture::at(1, MemberStatus::up)});
  for (int i = 0; i < 3; ++i) f.tell(key);
  ASSERT_EQ(f.count(key), 3);
  f.view(both);
  ASSERT_FALSE(f.region->hosts(key));
  f.view(third);
  ASSERT_FALSE(f.region->hosts(key));
  f.view({Fixture::at(1, MemberStatus::up), Fixture::at(2, MemberStatus::down),
          Fixture::at(3, MemberStatus::leaving)});
}

// What node 3's region sends node 1's: `key`'s state (if any), then the
// HandoffDone that names the shard.
void third_owner_hands(Fixture& f, const std::string& key, std::optional<int> count) {
  const NodeAddress three = test::member_id(3).address;
  const ActorRefView from{three.host, three.port, "shard.tally"};
  const ShardId shard = f.region->shard_of_key(key);
  if (count) {
    const std::vector<std::uint8_t> state{static_cast<std::uint8_t>(*count)};
    const std::vector<std::uint8_t> part = encode_entity({shard, key, state});
    f.region->receive(f.context, Delivery{DeliveryKind::tell, from, 0, kHandoffEntityTag, part});
  }
  HandoffDone done;
  done.shards[shard];
  const std::vector<std::uint8_t> body = encode_done(done);
  f.region->receive(f.context, Delivery{DeliveryKind::tell, from, 0, kHandoffDoneTag, body});
}

TEST(RegionTakeBack, ANewerStateFromAThirdOwnerWinsOverTheCopy) {
  Fixture f;
  std::string key;
  ASSERT_NO_FATAL_FAILURE(hand_on_past_a_third_owner(f, key));
  EXPECT_FALSE(f.region->hosts(key)) << "set aside while 3's handoff is awaited";
  third_owner_hands(f, key, 7);
  EXPECT_EQ(f.count(key), 7);
  EXPECT_EQ(f.region->counters().handoff_conflicts, 0u);
}

TEST(RegionTakeBack, TakingTheCopyBackAtOnceMakesTheNewerStateAConflict) {  // the planted defect
  RegionMutations past;
  past.return_past_third_owner = true;
  Fixture f(past);
  std::string key;
  ASSERT_NO_FATAL_FAILURE(hand_on_past_a_third_owner(f, key));
  EXPECT_EQ(f.count(key), 3);
  third_owner_hands(f, key, 7);
  EXPECT_EQ(f.count(key), 3);
  EXPECT_EQ(f.region->counters().handoff_conflicts, 1u);
}

TEST(RegionTakeBack, TheCopyComesBackWhenTheThirdOwnerHandsNothingOfTheKey) {
  Fixture f;
  std::string key;
  ASSERT_NO_FATAL_FAILURE(hand_on_past_a_third_owner(f, key));
  third_owner_hands(f, key, std::nullopt);
  EXPECT_EQ(f.count(key), 3);
  EXPECT_TRUE(f.region->restored(key));
}

}  // namespace
}  // namespace weft::shard
