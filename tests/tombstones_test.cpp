// Tombstones (kernel/membership/tombstones.hpp): the leader's fall due at
// the TTL, the others' at twice it; a follower drops what its leader's
// whole state no longer holds, once half a TTL old; what is dropped is
// refused after, until a newer life. Past the cap the leader drops the
// oldest early, a follower follows its leader at any age, and one that
// never hears its leader drops its oldest past twice the cap.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/membership/tombstones.hpp"

namespace weft {
namespace {

const NodeAddress kA{"10.0.0.1", 7000};
const NodeAddress kB{"10.0.0.2", 7000};
const Instant kT0 = Instant::from_ns(1'000'000'000);

MemberTable table_with_removed(std::uint64_t incarnation) {
  MemberTable t;
  t.merge(Member{MemberId{kA, Incarnation{incarnation}}, MemberStatus::removed});
  t.merge(Member{MemberId{kB, Incarnation{1}}, MemberStatus::up});
  return t;
}

TEST(Tombstones, TheLeadersFallDueAtTheTtlTheOthersAtTwice) {
  Tombstones t(Duration::seconds(10), 8, 100);
  t.removed(kA, kT0);
  EXPECT_TRUE(t.due(kT0 + Duration::seconds(9), true).empty());
  EXPECT_EQ(t.due(kT0 + Duration::seconds(10), true), std::vector<NodeAddress>{kA});
  EXPECT_TRUE(t.due(kT0 + Duration::seconds(19), false).empty());
  EXPECT_EQ(t.due(kT0 + Duration::seconds(20), false), std::vector<NodeAddress>{kA});
  t.removed(kA, kT0 + Duration::seconds(5));  // seen again later: the first sighting counts
  EXPECT_EQ(t.due(kT0 + Duration::seconds(10), true), std::vector<NodeAddress>{kA});
}

TEST(Tombstones, AFollowerDropsWhatItsLeaderNoLongerHoldsOnceHalfATtlOld) {
  Tombstones t(Duration::seconds(10), 8, 100);
  const MemberTable table = table_with_removed(3);
  t.removed(kA, kT0);
  const std::vector<NodeAddress> leader_without_a{kB};
  const std::vector<NodeAddress> leader_with_a{kA, kB};
  EXPECT_TRUE(t.unheld_by_leader(kT0 + Duration::seconds(4), leader_without_a, table).empty());  // too young
  EXPECT_EQ(t.unheld_by_leader(kT0 + Duration::seconds(5), leader_without_a, table), std::vector<NodeAddress>{kA});
  EXPECT_TRUE(t.unheld_by_leader(kT0 + Duration::seconds(5), leader_with_a, table).empty());  // the leader holds it
}

TEST(Tombstones, ADroppedLifeIsRefusedUntilANewerOne) {
  Tombstones t(Duration::seconds(10), 8, 100);
  const MemberTable table = table_with_removed(3);
  t.removed(kA, kT0);
  t.dropped(kA, table.find(kA), true);
  EXPECT_TRUE(t.due(kT0 + Duration::seconds(30), true).empty());  // nothing left due
  EXPECT_TRUE(t.forgotten(Member{MemberId{kA, Incarnation{3}}, MemberStatus::removed}));
  EXPECT_TRUE(t.forgotten(Member{MemberId{kA, Incarnation{3}}, MemberStatus::up}));
  EXPECT_FALSE(t.forgotten(Member{MemberId{kA, Incarnation{4}}, MemberStatus::joining}));
  t.changed(kA);  // the newer life was taken
  EXPECT_FALSE(t.forgotten(Member{MemberId{kA, Incarnation{3}}, MemberStatus::removed}));
}

TEST(Tombstones, ANewLifeEndsWhatWasDueOfTheOld) {
  Tombstones t(Duration::seconds(10), 8, 100);
  t.removed(kA, kT0);
  t.changed(kA);  // a newer life joined at kA before the TTL
  EXPECT_TRUE(t.due(kT0 + Duration::seconds(30), true).empty());
}

TEST(Tombstones, TheDefectRemembersNothing) {
  Tombstones t(Duration::seconds(10), 8, 100);
  const MemberTable table = table_with_removed(3);
  t.removed(kA, kT0);
  t.dropped(kA, table.find(kA), false);  // Mutations::tombstone_echo
  EXPECT_FALSE(t.forgotten(Member{MemberId{kA, Incarnation{3}}, MemberStatus::removed}));
}

NodeAddress nth(int n) { return NodeAddress{"10.1.0." + std::to_string(n), 7000}; }

TEST(Tombstones, PastTheCapTheLeaderDropsTheOldestEarly) {
  Tombstones t(Duration::seconds(3600), 8, 3);
  for (int n = 1; n <= 5; ++n) t.removed(nth(n), kT0 + Duration::seconds(n));
  const Instant now = kT0 + Duration::seconds(10);
  EXPECT_EQ(t.due(now, true), (std::vector<NodeAddress>{nth(1), nth(2)})) << "the two oldest, an hour early";
  EXPECT_TRUE(t.due(now, false).empty()) << "a follower alone waits for twice the cap";
  for (int n = 6; n <= 7; ++n) t.removed(nth(n), kT0 + Duration::seconds(n));
  EXPECT_EQ(t.due(now, false), (std::vector<NodeAddress>{nth(1)})) << "7 held, twice the cap is 6";
  EXPECT_EQ(t.due(now, true, Duration::seconds(8)), (std::vector<NodeAddress>{nth(1), nth(2)}))
      << "only those 8 s old may go early: two, not four";
  EXPECT_TRUE(t.due(now, true, Duration::seconds(20)).empty()) << "none has settled";
}

TEST(Tombstones, ACrowdedFollowerFollowsItsLeaderAtAnyAge) {
  Tombstones t(Duration::seconds(3600), 8, 1);
  MemberTable table;
  table.merge(Member{MemberId{kA, Incarnation{1}}, MemberStatus::removed});
  table.merge(Member{MemberId{kB, Incarnation{1}}, MemberStatus::removed});
  t.removed(kA, kT0);
  t.removed(kB, kT0);
  const std::vector<NodeAddress> leader_holds_b{kB};
  EXPECT_EQ(t.unheld_by_leader(kT0 + Duration::seconds(1), leader_holds_b, table), std::vector<NodeAddress>{kA})
      << "two held, the cap is one: not half a TTL old, dropped all the same";
  Tombstones roomy(Duration::seconds(3600), 8, 2);
  roomy.removed(kA, kT0);
  roomy.removed(kB, kT0);
  EXPECT_TRUE(roomy.unheld_by_leader(kT0 + Duration::seconds(1), leader_holds_b, table).empty())
      << "within the cap, a fresh tombstone waits half a TTL";
}

}  // namespace
}  // namespace weft
