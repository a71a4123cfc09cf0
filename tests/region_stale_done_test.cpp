// Goal: a HandoffDone sent to an earlier life of this node is not taken as
// this life's (shard/region_moves.cpp, Region::on_handoff_done), even one
// the region lived itself (it cannot tell which of its waits the Done
// predates); one to this life, a later one or none in particular ends the
// wait it answers; every HandoffDone names the life its receiver has in
// its sender's view. A ref
// names an address, not a life: seed 4959's n4 queued an empty HandoffDone
// for n5's first life behind a cut link, n5 crashed and restarted, and 8 s
// later the old frame reached n5's second life while it awaited n4's
// handoff of key 8. Taken as "n4 handed nothing", it ended the wait, n5
// started the key fresh, and n4's part (the count of three acknowledged
// Adds) arrived a millisecond later as a conflict. The region is driven by
// hand (region_by_hand.hpp); the planted defect shard_done_for_any_life is
// shown to turn the outcome.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "region_by_hand.hpp"

namespace weft::shard {
namespace {

using test_region::Fixture;

// Node 1, in its second life, reads its first view: 3 is up and owns
// nothing 1 owns now, but 1 has never heard from it, so 1 awaits 3's
// HandoffDone for every shard it owns (3 may have served them while 1 was
// away). Then a client's tell for `key`, kept while the wait lasts.
void restarted_awaiting_three(Fixture& f, std::string& key) {
  const std::vector<Member> view{Fixture::at(1, MemberStatus::up, 2), Fixture::at(3, MemberStatus::up)};
  key = f.key_owned_as({{view, 1}});
  ASSERT_FALSE(key.empty());
  f.view(view);
  f.tell(key);
  ASSERT_FALSE(f.region->hosts(key)) << "the tell waits for 3's handoff";
}

// What 3's region sends 1's: a HandoffDone addressed to `to_life`, naming
// `key`'s shard with its state when `count` is set, else naming nothing.
void three_sends_done(Fixture& f, const std::string& key, std::uint64_t to_life, std::optional<int> count) {
  f.handoff_from(3, key, count, count.has_value(), to_life);
}

TEST(RegionStaleDone, ADoneSentToAnEarlierLifeEndsNoWait) {
  Fixture f;
  std::string key;
  ASSERT_NO_FATAL_FAILURE(restarted_awaiting_three(f, key));
  three_sends_done(f, key, 1, std::nullopt);  // queued for life 1 before the restart
  EXPECT_FALSE(f.region->hosts(key)) << "still awaiting 3";
  EXPECT_EQ(f.region->counters().handoff_stale, 1u);
  three_sends_done(f, key, 2, 3);  // this life's: the key's state, then the wait's end
  EXPECT_EQ(f.count(key), 4) << "the handed count, then the kept tell";
  EXPECT_EQ(f.region->counters().handoff_conflicts, 0u);
}

TEST(RegionStaleDone, ADoneToThisLifeOrToNoneInParticularEndsTheWait) {
  for (const std::uint64_t to_life : {std::uint64_t{2}, std::uint64_t{0}}) {
    Fixture f;
    std::string key;
    ASSERT_NO_FATAL_FAILURE(restarted_awaiting_three(f, key));
    three_sends_done(f, key, to_life, std::nullopt);
    EXPECT_EQ(f.count(key), 1) << "to life " << to_life << ": 3 handed nothing, the key starts here";
    EXPECT_EQ(f.region->counters().handoff_stale, 0u);
  }
}

TEST(RegionStaleDone, ADoneToALaterLifeEndsTheWait) {  // `<`, not `!=`: a view this region has yet to read
  Fixture f;
  std::string key;
  ASSERT_NO_FATAL_FAILURE(restarted_awaiting_three(f, key));
  three_sends_done(f, key, 3, std::nullopt);
  EXPECT_EQ(f.count(key), 1);
  EXPECT_EQ(f.region->counters().handoff_stale, 0u);
}

// The same process through two lives: 1 reads a view as life 1 awaiting
// 3, is downed while alive and rejoins as life 2 before 3's HandoffDone,
// sent to life 1, arrives. The wait may have begun after 3 sent it, so it
// waits on, for the HandoffDone 3 sends life 2 once it sees it.
TEST(RegionStaleDone, ADoneToAnEarlierLifeTheRegionLivedWaitsForTheNewLifes) {
  Fixture f;
  const std::vector<Member> first{Fixture::at(1, MemberStatus::up, 1), Fixture::at(3, MemberStatus::up)};
  const std::vector<Member> rejoined{Fixture::at(1, MemberStatus::up, 2), Fixture::at(3, MemberStatus::up)};
  const std::string key = f.key_owned_as({{first, 1}, {rejoined, 1}});
  ASSERT_FALSE(key.empty());
  f.view(first);
  f.view(rejoined);
  f.tell(key);
  ASSERT_FALSE(f.region->hosts(key)) << "still awaiting 3 in its new life";
  three_sends_done(f, key, 1, std::nullopt);
  EXPECT_FALSE(f.region->hosts(key));
  EXPECT_EQ(f.region->counters().handoff_stale, 1u);
  three_sends_done(f, key, 2, 5);
  EXPECT_EQ(f.count(key), 6) << "the handed count, then the kept tell";
}

// What this node's region sends: the HandoffDone every member newly up
// gets, and the one that answers a query, each name the receiver's life
// in this node's view.
TEST(RegionStaleDone, EveryDoneNamesTheLifeItsReceiverHas) {
  Fixture f;
  f.view({Fixture::at(1, MemberStatus::up)});
  f.view({Fixture::at(1, MemberStatus::up), Fixture::at(2, MemberStatus::up, 4)});
  const ActorRef two = region_of(weft::test::member_id(2).address, "tally");
  std::optional<HandoffDone> done = f.context.last_done(two);
  ASSERT_TRUE(done.has_value()) << "a member newly up gets a HandoffDone";
  EXPECT_EQ(done->to_life, 4u);
  const std::size_t before = f.context.dones.size();
  const NodeAddress address = weft::test::member_id(2).address;
  const std::vector<std::uint8_t> query = encode_query({{0, 1}});
  f.region->receive(f.context, Delivery{DeliveryKind::tell, ActorRefView{address.host, address.port, "shard.tally"}, 0,
                                        kHandoffQueryTag, query});
  ASSERT_EQ(f.context.dones.size(), before + 1) << "a query is answered";
  done = f.context.last_done(two);
  ASSERT_TRUE(done.has_value());
  EXPECT_TRUE(done->again);
  EXPECT_EQ(done->to_life, 4u);
}

TEST(RegionStaleDone, TakingAnEarlierLifesDoneMakesTheStateAConflict) {  // the planted defect
  RegionMutations any_life;
  any_life.done_for_any_life = true;
  Fixture f(any_life);
  std::string key;
  ASSERT_NO_FATAL_FAILURE(restarted_awaiting_three(f, key));
  three_sends_done(f, key, 1, std::nullopt);
  EXPECT_EQ(f.count(key), 1) << "the wait ended: the key started fresh";
  three_sends_done(f, key, 2, 3);
  EXPECT_EQ(f.count(key), 1) << "and 3's count of three is lost";
  EXPECT_EQ(f.region->counters().handoff_conflicts, 1u);
}

}  // namespace
}  // namespace weft::shard
