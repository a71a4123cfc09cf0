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

#include <optional>
#include <string>
#include <vector>

#include "region_by_hand.hpp"

namespace weft::shard {
namespace {

using test_region::Fixture;

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
  EXPECT_EQ(f.context.count(region_of(test::member_id(2).address, "tally"), kHandoffEntityTag), 1u);
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
  f.handoff_from(3, key, count, true);
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
