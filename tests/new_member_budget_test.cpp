// Goal: one peer brings at most `per_interval` members new to this node per
// gossip interval (kernel/membership/new_member_budget.hpp). A window opens
// at the first member a peer brings and lasts one interval; peers' windows
// are apart; nothing spent opens nothing; ended windows are forgotten.
#include "kernel/membership/new_member_budget.hpp"

#include <gtest/gtest.h>

#include "tests/test_ids.hpp"

namespace weft {
namespace {

using test::member_id;

Instant at_ms(std::int64_t ms) { return Instant::epoch() + Duration::milliseconds(ms); }

TEST(NewMemberBudget, APeerBringsAtMostItsBudgetInOneInterval) {
  NewMemberBudget budget(10, Duration::milliseconds(200));
  const NodeAddress peer = member_id(1).address;
  EXPECT_EQ(budget.left(peer, at_ms(0)), 10U);
  budget.spend(peer, at_ms(0), 7);
  EXPECT_EQ(budget.left(peer, at_ms(50)), 3U);
  budget.spend(peer, at_ms(50), 3);
  EXPECT_EQ(budget.left(peer, at_ms(199)), 0U) << "the window opened at 0 lasts 200 ms";
  EXPECT_EQ(budget.left(peer, at_ms(200)), 10U) << "a new window at its end";
}

TEST(NewMemberBudget, PeersHaveWindowsOfTheirOwn) {
  NewMemberBudget budget(4, Duration::milliseconds(200));
  budget.spend(member_id(1).address, at_ms(0), 4);
  EXPECT_EQ(budget.left(member_id(1).address, at_ms(10)), 0U);
  EXPECT_EQ(budget.left(member_id(2).address, at_ms(10)), 4U);
  budget.spend(member_id(2).address, at_ms(100), 1);
  EXPECT_EQ(budget.left(member_id(1).address, at_ms(250)), 4U);
  EXPECT_EQ(budget.left(member_id(2).address, at_ms(250)), 3U) << "n2's window opened at 100";
}

TEST(NewMemberBudget, SpendingNothingOpensNoWindow) {
  NewMemberBudget budget(4, Duration::milliseconds(200));
  budget.spend(member_id(1).address, at_ms(0), 0);
  EXPECT_EQ(budget.size(), 0U);
  budget.spend(member_id(1).address, at_ms(150), 2);
  EXPECT_EQ(budget.left(member_id(1).address, at_ms(300)), 2U) << "the window opened at 150, not 0";
}

TEST(NewMemberBudget, EndedWindowsAreForgotten) {
  NewMemberBudget budget(4, Duration::milliseconds(200));
  for (int n = 1; n <= 5; ++n) budget.spend(member_id(n).address, at_ms(n * 10), 1);
  budget.expire(at_ms(225));
  EXPECT_EQ(budget.size(), 3U) << "n1's (opened at 10) and n2's (20) ended; n3's, n4's and n5's remain";
}

}  // namespace
}  // namespace weft
