// Goal: the seen set starts at {self} with every new state, grows by equal
// digests and equal states (the sender, this node and everyone the sender
// knew of), stays sorted and unique, moves its version exactly when it
// changes, and covers a cluster when every live member it can reach is in
// it; and an equal digest is answered towards the larger set.
#include "kernel/membership/seen_set.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_ids.hpp"

namespace weft {
namespace {

MemberId id(int n, std::uint64_t incarnation = 1) { return test::member_id(n, incarnation); }

std::vector<MemberId> ids_of(const SeenSet& seen) { return {seen.ids().begin(), seen.ids().end()}; }

TEST(SeenSet, ResetLeavesOnlySelf) {
  SeenSet seen;
  seen.reset(id(2));
  seen.add(id(1));
  seen.add(id(3));
  seen.reset(id(2));
  EXPECT_EQ(ids_of(seen), std::vector<MemberId>{id(2)});
}

TEST(SeenSet, AddKeepsOrderAndReportsNews) {
  SeenSet seen;
  seen.reset(id(5));
  EXPECT_TRUE(seen.add(id(3)));
  EXPECT_TRUE(seen.add(id(7)));
  EXPECT_FALSE(seen.add(id(3))) << "already known";
  EXPECT_EQ(ids_of(seen), (std::vector<MemberId>{id(3), id(5), id(7)}));
  EXPECT_TRUE(seen.contains(id(7)));
  EXPECT_FALSE(seen.contains(id(7, 2))) << "another life of the same address has not seen it";
}

// add() remembers where it found an id (PositionHints): ids added in front
// move the others along, a reset empties the set, and an id of a later
// life is another id, so each add must still report news exactly when a
// search of the set would.
TEST(SeenSet, AddReportsNewsExactlyAfterTheSetMoves) {
  SeenSet seen;
  seen.reset(id(50));
  for (int n = 49; n >= 1; --n) {
    EXPECT_TRUE(seen.add(id(n))) << n;
    for (int m = n; m <= 50; ++m) EXPECT_FALSE(seen.add(id(m))) << n << " " << m;
  }
  EXPECT_FALSE(seen.add(id(7)));
  EXPECT_TRUE(seen.add(id(7, 2))) << "a later life of a member just found in the set";
  seen.reset(id(50));
  for (int n = 1; n < 50; ++n) EXPECT_TRUE(seen.add(id(n))) << n;
}

TEST(SeenSet, MergeTakesTheUnionWithSelfAndSender) {
  SeenSet seen;
  seen.reset(id(1));
  seen.add(id(4));
  const std::vector<MemberId> theirs{id(2), id(4), id(6)};
  EXPECT_TRUE(seen.merge(theirs, id(1), id(9)));
  EXPECT_EQ(ids_of(seen), (std::vector<MemberId>{id(1), id(2), id(4), id(6), id(9)}));
  EXPECT_FALSE(seen.merge(theirs, id(1), id(9))) << "nothing new the second time";
}

// Edge: a sender whose seen set is empty (or lacks itself) still counts,
// as does this node, even after a reset emptied nothing but self.
TEST(SeenSet, MergeOfAnEmptySetAddsTheSender) {
  SeenSet seen;
  seen.reset(id(3));
  EXPECT_TRUE(seen.merge({}, id(3), id(8)));
  EXPECT_EQ(ids_of(seen), (std::vector<MemberId>{id(3), id(8)}));
}

TEST(SeenSet, VersionMovesExactlyWhenTheSetChanges) {
  SeenSet seen;
  seen.reset(id(1));
  std::uint64_t version = seen.version();
  seen.reset(id(1));
  EXPECT_EQ(seen.version(), version) << "a reset to the same set changes nothing";
  seen.add(id(2));
  EXPECT_GT(seen.version(), version);
  version = seen.version();
  seen.add(id(2));
  seen.merge(std::vector<MemberId>{id(2)}, id(1), id(2));
  EXPECT_EQ(seen.version(), version);
  seen.reset(id(1));
  EXPECT_GT(seen.version(), version);
}

std::vector<Member> members(const std::vector<std::pair<int, MemberStatus>>& list) {
  std::vector<Member> out;
  for (const auto& [n, status] : list) out.push_back(Member{id(n), status});
  return out;
}

TEST(SeenSet, CoversEveryLiveReachableMember) {
  const std::vector<Member> table = members({{1, MemberStatus::up},
                                             {2, MemberStatus::joining},
                                             {3, MemberStatus::down},
                                             {4, MemberStatus::leaving},
                                             {5, MemberStatus::removed}});
  SeenSet seen;
  seen.reset(id(1));
  seen.add(id(2));
  EXPECT_FALSE(seen.covers(table, {})) << "the leaving member has not seen it";
  const std::vector<MemberId> unreachable{id(4)};
  EXPECT_TRUE(seen.covers(table, unreachable)) << "an unreachable member is not waited for";
  seen.add(id(4));
  EXPECT_TRUE(seen.covers(table, {})) << "down and removed members are never waited for";
}

// Edge: a table of one is covered by a set of that one; a superseded life
// in the set does not stand for the live one.
TEST(SeenSet, CoverNeedsTheCurrentLife) {
  SeenSet seen;
  seen.reset(id(1));
  EXPECT_TRUE(seen.covers(members({{1, MemberStatus::joining}}), {}));
  seen.add(id(2, 1));
  EXPECT_TRUE(seen.covers(members({{1, MemberStatus::up}, {2, MemberStatus::up}}), {}));
  std::vector<Member> restarted = members({{1, MemberStatus::up}});
  restarted.push_back(Member{id(2, 2), MemberStatus::joining});
  EXPECT_FALSE(seen.covers(restarted, {}));
}

TEST(SeenSet, EqualDigestAnswersTowardsTheLargerSet) {
  EXPECT_EQ(reply_to_equal_digest(3, 3), SeenReply::nothing);
  EXPECT_EQ(reply_to_equal_digest(4, 3), SeenReply::send_state);
  EXPECT_EQ(reply_to_equal_digest(2, 3), SeenReply::send_digest);
  EXPECT_EQ(reply_to_equal_digest(1, 0), SeenReply::send_state) << "an empty count is still smaller";
}

}  // namespace
}  // namespace weft
