// Goal: a node counts a live record only once it has evidence of that life
// (kernel/membership/vouched_lives.hpp): a handshake noted, or the life's
// bit in a seen set over the table. The view is every live record but self
// without it, sorted; evidence of a life vouches for older lives of its
// address, never for a newer one; the instant a life became unvouched is
// kept while it stays so; `off` vouches for everyone.
#include "kernel/membership/vouched_lives.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "kernel/membership/seen_set.hpp"
#include "tests/test_ids.hpp"

namespace weft {
namespace {

using test::member_id;

Instant at_ms(std::int64_t ms) { return Instant::epoch() + Duration::milliseconds(ms); }

MemberTable table_of(const std::vector<Member>& members) {
  MemberTable table;
  for (const Member& m : members) (void)table.merge(m);
  return table;
}

std::vector<MemberId> view_of(const VouchedLives& lives) { return {lives.view().begin(), lives.view().end()}; }

// Bits over `table`, set for the members numbered in `numbers`.
std::vector<std::uint8_t> bits_for(const MemberTable& table, const std::vector<int>& numbers) {
  std::vector<std::uint8_t> bits(seen_bytes_for(table.size()), 0);
  for (const int n : numbers) {
    const Member* m = table.find(member_id(n).address);
    const auto i = static_cast<std::size_t>(m - table.members().data());
    bits[i / 8] |= static_cast<std::uint8_t>(1U << (i % 8));
  }
  return bits;
}

TEST(VouchedLives, LiveRecordsWithoutEvidenceAreTheView) {
  const MemberTable table = table_of({Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::up},
                                      Member{member_id(3), MemberStatus::joining},
                                      Member{member_id(4), MemberStatus::down}});
  VouchedLives lives;
  EXPECT_TRUE(lives.refresh(table, member_id(1), at_ms(100)));
  EXPECT_EQ(view_of(lives), (std::vector<MemberId>{member_id(2), member_id(3)})) << "not self, not the down";
  EXPECT_TRUE(lives.excuses(member_id(2)));
  EXPECT_FALSE(lives.excuses(member_id(1)));
  EXPECT_EQ(lives.since(member_id(3)), at_ms(100));
  const std::uint64_t version = lives.version();
  EXPECT_FALSE(lives.refresh(table, member_id(1), at_ms(200))) << "same table, no evidence: nothing moves";
  EXPECT_EQ(lives.version(), version);

  EXPECT_TRUE(lives.note(member_id(2)));
  EXPECT_FALSE(lives.note(member_id(2))) << "noted once";
  EXPECT_TRUE(lives.refresh(table, member_id(1), at_ms(300)));
  EXPECT_EQ(view_of(lives), std::vector<MemberId>{member_id(3)});
  EXPECT_EQ(lives.since(member_id(3)), at_ms(100)) << "the first instant is kept";
  EXPECT_FALSE(lives.since(member_id(2)).has_value());
  EXPECT_GT(lives.version(), version);
}

TEST(VouchedLives, SeenBitsVouchOnlyForTheMembersTheySet) {
  const MemberTable table = table_of({Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::up},
                                      Member{member_id(3), MemberStatus::up}, Member{member_id(4), MemberStatus::up}});
  VouchedLives lives;
  (void)lives.refresh(table, member_id(1), at_ms(0));
  ASSERT_EQ(lives.view().size(), 3U);
  EXPECT_FALSE(lives.note_seen(table, bits_for(table, {1})));
  EXPECT_TRUE(lives.note_seen(table, bits_for(table, {1, 3})));
  EXPECT_FALSE(lives.note_seen(table, bits_for(table, {3}))) << "already vouched for";
  (void)lives.refresh(table, member_id(1), at_ms(10));
  EXPECT_EQ(view_of(lives), (std::vector<MemberId>{member_id(2), member_id(4)}));
}

// Edge: evidence of a life covers its address's older lives, not a newer one
// (a record that claims a restart is hearsay until the restarted life shows).
TEST(VouchedLives, EvidenceCoversOlderLivesOnly) {
  VouchedLives lives;
  EXPECT_TRUE(lives.note(member_id(2, 5)));
  EXPECT_TRUE(lives.holds(member_id(2, 4)));
  EXPECT_TRUE(lives.holds(member_id(2, 5)));
  EXPECT_FALSE(lives.holds(member_id(2, 6)));
  EXPECT_FALSE(lives.note(member_id(2, 3))) << "an older life teaches nothing";
  const MemberTable table = table_of({Member{member_id(1), MemberStatus::up}, Member{member_id(2, 6), MemberStatus::up}});
  (void)lives.refresh(table, member_id(1), at_ms(0));
  EXPECT_EQ(view_of(lives), std::vector<MemberId>{member_id(2, 6)});
  EXPECT_TRUE(lives.note(member_id(2, 6)));
  (void)lives.refresh(table, member_id(1), at_ms(1));
  EXPECT_TRUE(lives.view().empty());
}

TEST(VouchedLives, PruneForgetsAddressesTheTableNoLongerHolds) {
  VouchedLives lives;
  (void)lives.note(member_id(2));
  (void)lives.note(member_id(3));
  (void)lives.note(member_id(4));
  const MemberTable table = table_of({Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::up}});
  lives.prune(table);
  EXPECT_EQ(lives.size(), 1U);
  EXPECT_TRUE(lives.holds(member_id(2)));
  EXPECT_FALSE(lives.holds(member_id(3)));
}

TEST(VouchedLives, OffVouchesForEveryone) {
  const MemberTable table = table_of({Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::up}});
  VouchedLives lives(/*off=*/true);
  EXPECT_FALSE(lives.refresh(table, member_id(1), at_ms(0)));
  EXPECT_TRUE(lives.view().empty());
  EXPECT_TRUE(lives.holds(member_id(2, 99)));
}

}  // namespace
}  // namespace weft
