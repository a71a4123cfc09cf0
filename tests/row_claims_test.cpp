// Goal: only an observer writes its reachability row
// (kernel/membership/row_claims.hpp). A row under this node's own life that
// differs from the one it holds, at its version or above, is refuted; an
// equal copy or an older one is taken (it loses the merge); another
// observer's row is taken; a version more than max_jump above the held one,
// or at the top of the range, is refused; and a rewrite above a claim wins
// the merge against it everywhere.
#include "kernel/membership/row_claims.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "tests/test_ids.hpp"

namespace weft {
namespace {

using test::member_id;

constexpr std::uint64_t kJump = 1000;

TEST(RowClaims, ARowUnderOurNameThatWeDidNotWriteIsRefuted) {
  const MemberId self = member_id(1);
  ReachabilityTable mine;
  ASSERT_TRUE(mine.mark_unreachable(self, member_id(3)));
  const ReachabilityRow held = *mine.row(self);
  EXPECT_EQ(judge_row(held, &held, self, kJump), RowVerdict::take) << "our own row coming back";
  EXPECT_EQ(judge_row(ReachabilityRow{self, held.version + 1, {member_id(2)}}, &held, self, kJump),
            RowVerdict::refute);
  EXPECT_EQ(judge_row(ReachabilityRow{self, held.version, {member_id(2)}}, &held, self, kJump), RowVerdict::refute)
      << "same version, other content: a tie the larger content would win";
  EXPECT_EQ(judge_row(ReachabilityRow{self, held.version - 1, {member_id(2)}}, &held, self, kJump),
            RowVerdict::take)
      << "older: it loses the merge";
  EXPECT_EQ(judge_row(ReachabilityRow{self, 1, {member_id(2)}}, nullptr, self, kJump), RowVerdict::refute)
      << "we hold no row: any claim is another's word";
}

TEST(RowClaims, AnotherObserversRowIsTakenUnlessItsVersionJumpsTooFar) {
  const MemberId self = member_id(1);
  const ReachabilityRow held{member_id(2), 10, {}};
  EXPECT_EQ(judge_row(ReachabilityRow{member_id(2), 10 + kJump, {member_id(3)}}, &held, self, kJump),
            RowVerdict::take);
  EXPECT_EQ(judge_row(ReachabilityRow{member_id(2), 11 + kJump, {member_id(3)}}, &held, self, kJump),
            RowVerdict::refuse);
  EXPECT_EQ(judge_row(ReachabilityRow{member_id(2), kJump + 1, {}}, nullptr, self, kJump), RowVerdict::refuse)
      << "judged against 0 when no row is held";
  const ReachabilityRow near_top{member_id(2), std::numeric_limits<std::uint64_t>::max() - 1, {}};
  EXPECT_EQ(judge_row(ReachabilityRow{member_id(2), std::numeric_limits<std::uint64_t>::max(), {member_id(3)}},
                      &near_top, self, kJump),
            RowVerdict::refuse)
      << "no version above it: its observer could not refute it";
}

TEST(RowClaims, ARewriteAboveTheClaimWinsTheMergeEverywhere) {
  const MemberId self = member_id(1);
  ReachabilityTable mine;
  const ReachabilityRow claim{self, 40, {member_id(4)}};
  mine.rewrite_above(self, claim.version);
  ASSERT_NE(mine.row(self), nullptr);
  EXPECT_EQ(mine.row(self)->version, 41U);
  EXPECT_TRUE(mine.row(self)->unreachable.empty()) << "the content is ours, unchanged";
  ReachabilityTable elsewhere;  // a peer that took the claim
  ASSERT_TRUE(elsewhere.merge(claim));
  EXPECT_TRUE(elsewhere.merge(*mine.row(self)));
  EXPECT_EQ(*elsewhere.row(self), *mine.row(self));
  EXPECT_FALSE(elsewhere.is_unreachable(member_id(4)));
}

}  // namespace
}  // namespace weft
