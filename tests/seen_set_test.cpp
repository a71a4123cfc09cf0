// Goal: the seen set starts at {self} with every new state, grows by equal
// digests (one member) and equal states (the bits of the sender's set, an
// OR), is over exactly one version of one table, moves its version exactly
// when it changes, and covers a cluster when every live member it can reach
// is in it; and an equal digest is answered towards the larger set.
#include "kernel/membership/seen_set.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "tests/test_ids.hpp"

namespace weft {
namespace {

MemberId id(int n, std::uint64_t incarnation = 1) { return test::member_id(n, incarnation); }

std::vector<Member> members(std::initializer_list<std::pair<int, MemberStatus>> list) {
  std::vector<Member> out;
  for (const auto& [n, status] : list) out.push_back(Member{id(n), status});
  return out;
}

// Members 1..n (n at most 9, so address order is number order), all up.
MemberTable table_of(int n) {
  std::vector<Member> records;
  for (int i = 1; i <= n; ++i) records.push_back(Member{id(i), MemberStatus::up});
  return MemberTable::from_sorted(std::move(records));
}

std::vector<std::uint8_t> bits_of(const SeenSet& seen) { return {seen.bits().begin(), seen.bits().end()}; }

// The positions whose bits are set.
std::vector<std::size_t> positions(const SeenSet& seen) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < seen.table_size(); ++i) {
    if (seen.contains(i)) out.push_back(i);
  }
  return out;
}

// A kernel asked before its first input holds a new set and an empty
// table: the set is over it (empty), not stale.
TEST(SeenSet, ANewSetIsOverANewTable) {
  const SeenSet seen;
  const MemberTable table;
  EXPECT_TRUE(seen.over(table));
  EXPECT_EQ(seen.size(), 0U);
  EXPECT_TRUE(seen.covers(table.members(), {}));
  EXPECT_FALSE(seen.over(table_of(1)));
}

TEST(SeenSet, ResetLeavesOnlySelf) {
  const MemberTable table = table_of(5);
  SeenSet seen;
  seen.reset(table, id(2));
  EXPECT_EQ(positions(seen), std::vector<std::size_t>{1});
  seen.add(0);
  seen.add(4);
  seen.reset(table, id(2));
  EXPECT_EQ(positions(seen), std::vector<std::size_t>{1});
  EXPECT_EQ(seen.size(), 1U);
  EXPECT_TRUE(seen.over(table));
  EXPECT_EQ(bits_of(seen), std::vector<std::uint8_t>{0x02});
}

// A self that is not a record of the table (another life of its address)
// has no bit: the set starts empty.
TEST(SeenSet, ResetWithoutSelfsRecordIsEmpty) {
  SeenSet seen;
  seen.reset(table_of(3), id(2, 7));
  EXPECT_EQ(seen.size(), 0U);
  EXPECT_TRUE(positions(seen).empty());
}

TEST(SeenSet, AddReportsNews) {
  const MemberTable table = table_of(9);
  SeenSet seen;
  seen.reset(table, id(5));
  EXPECT_TRUE(seen.add(2));
  EXPECT_TRUE(seen.add(8));
  EXPECT_FALSE(seen.add(2)) << "already known";
  EXPECT_FALSE(seen.add(4)) << "self";
  EXPECT_EQ(positions(seen), (std::vector<std::size_t>{2, 4, 8}));
  EXPECT_EQ(seen.size(), 3U);
  EXPECT_EQ(bits_of(seen), (std::vector<std::uint8_t>{0x14, 0x01})) << "nine members take two bytes";
}

TEST(SeenSet, MergeIsTheUnionOfTheBits) {
  const MemberTable table = table_of(9);
  SeenSet seen;
  seen.reset(table, id(1));
  seen.add(3);
  EXPECT_TRUE(seen.merge(std::vector<std::uint8_t>{0x12, 0x01}));  // positions 1, 4, 8
  EXPECT_EQ(positions(seen), (std::vector<std::size_t>{0, 1, 3, 4, 8}));
  EXPECT_EQ(seen.size(), 5U);
  EXPECT_FALSE(seen.merge(std::vector<std::uint8_t>{0x01, 0x00})) << "a subset teaches nothing";
  EXPECT_FALSE(seen.merge(std::vector<std::uint8_t>{0x00, 0x00}));
  EXPECT_EQ(seen.size(), 5U);
}

// A peer's bits past the table (its last byte's spare bits) name nobody,
// so bits with any set do not fit and never reach merge (the decoder and the
// kernel ask seen_bits_fit first); nor do bits of another length.
TEST(SeenSet, BitsFitATableExactly) {
  EXPECT_FALSE(seen_bits_fit(std::vector<std::uint8_t>{0x00, 0xfe}, 9)) << "spare bits set";
  EXPECT_TRUE(seen_bits_fit(std::vector<std::uint8_t>{0xff, 0x01}, 9));
  EXPECT_FALSE(seen_bits_fit(std::vector<std::uint8_t>{0xff, 0x02}, 9)) << "the tenth bit of nine";
  EXPECT_TRUE(seen_bits_fit(std::vector<std::uint8_t>{0xff}, 8)) << "no spare bits at all";
  EXPECT_FALSE(seen_bits_fit(std::vector<std::uint8_t>{0x01, 0x00}, 8)) << "a byte too many";
  EXPECT_FALSE(seen_bits_fit(std::vector<std::uint8_t>{}, 1));
  EXPECT_TRUE(seen_bits_fit(std::vector<std::uint8_t>{}, 0));
  const MemberTable table = table_of(9);
  SeenSet seen;
  seen.reset(table, id(1));
  EXPECT_TRUE(seen_bits_fit(seen.bits(), seen.table_size())) << "a set's own bits fit its table";
}

TEST(SeenSet, VersionMovesExactlyWhenTheSetChanges) {
  MemberTable table = table_of(3);
  SeenSet seen;
  seen.reset(table, id(1));
  std::uint64_t v = seen.version();
  seen.reset(table, id(1));
  EXPECT_EQ(seen.version(), v) << "already {self} over this table";
  EXPECT_TRUE(seen.add(1));
  EXPECT_GT(seen.version(), v);
  v = seen.version();
  EXPECT_FALSE(seen.add(1));
  EXPECT_FALSE(seen.merge(std::vector<std::uint8_t>{0x03}));
  EXPECT_EQ(seen.version(), v);
  EXPECT_TRUE(seen.merge(std::vector<std::uint8_t>{0x04}));
  EXPECT_GT(seen.version(), v);
  // The table moves on: the old bits are over positions that mean nothing
  // now, so the set is no longer over it, and a reset starts again.
  v = seen.version();
  ASSERT_TRUE(table.merge(Member{id(4), MemberStatus::joining}));
  EXPECT_FALSE(seen.over(table));
  seen.reset(table, id(1));
  EXPECT_TRUE(seen.over(table));
  EXPECT_GT(seen.version(), v);
  EXPECT_EQ(positions(seen), std::vector<std::size_t>{0});
}

// The set is over a table's version, not only its size: a change of status
// keeps the size and still ends it (a reset with the same {self} must move
// the version on, since readers cache per table and set).
TEST(SeenSet, ASameSizedChangeOfTheTableEndsTheSet) {
  MemberTable table = table_of(3);
  SeenSet seen;
  seen.reset(table, id(1));
  ASSERT_TRUE(table.merge(Member{id(3), MemberStatus::leaving}));
  EXPECT_FALSE(seen.over(table));
  const std::uint64_t v = seen.version();
  seen.reset(table, id(1));
  EXPECT_TRUE(seen.over(table));
  EXPECT_GT(seen.version(), v);
}

TEST(SeenSet, CoversEveryLiveReachableMember) {
  const MemberTable table = MemberTable::from_sorted(members({{1, MemberStatus::up},
                                                              {2, MemberStatus::joining},
                                                              {3, MemberStatus::down},
                                                              {4, MemberStatus::leaving},
                                                              {5, MemberStatus::removed}}));
  SeenSet seen;
  seen.reset(table, id(1));
  seen.add(1);
  EXPECT_FALSE(seen.covers(table.members(), {})) << "the leaving member has not seen it";
  const std::vector<MemberId> unreachable{id(4)};
  EXPECT_TRUE(seen.covers(table.members(), unreachable)) << "an unreachable member is not waited for";
  seen.add(3);
  EXPECT_TRUE(seen.covers(table.members(), {})) << "down and removed members are never waited for";
}

// Edge: a table of one is covered by a set of that one; an unreachable mark
// on a superseded life does not excuse the live one.
TEST(SeenSet, CoverNeedsTheCurrentLife) {
  const MemberTable alone = MemberTable::from_sorted(members({{1, MemberStatus::joining}}));
  SeenSet seen;
  seen.reset(alone, id(1));
  EXPECT_TRUE(seen.covers(alone.members(), {}));
  std::vector<Member> records = members({{1, MemberStatus::up}});
  records.push_back(Member{id(2, 2), MemberStatus::joining});
  const MemberTable restarted = MemberTable::from_sorted(records);
  seen.reset(restarted, id(1));
  const std::vector<MemberId> old_life{id(2, 1)};
  EXPECT_FALSE(seen.covers(restarted.members(), old_life));
  seen.add(1);
  EXPECT_TRUE(seen.covers(restarted.members(), old_life));
}

TEST(SeenSet, EqualDigestAnswersTowardsTheLargerSet) {
  EXPECT_EQ(reply_to_equal_digest(3, 3), SeenReply::nothing);
  EXPECT_EQ(reply_to_equal_digest(4, 3), SeenReply::send_state);
  EXPECT_EQ(reply_to_equal_digest(2, 3), SeenReply::send_digest);
  EXPECT_EQ(reply_to_equal_digest(1, 0), SeenReply::send_state) << "an empty count is still smaller";
}

}  // namespace
}  // namespace weft
