// Tombstones (kernel/membership/tombstones.hpp): the leader's fall due at
// the TTL, the others' at twice it; a follower drops what its leader's
// whole state no longer holds, once half a TTL old; what is dropped is
// refused after, until a newer life.
#include <gtest/gtest.h>

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
  Tombstones t(Duration::seconds(10), 8);
  t.removed(kA, kT0);
  EXPECT_TRUE(t.due(kT0 + Duration::seconds(9), true).empty());
  EXPECT_EQ(t.due(kT0 + Duration::seconds(10), true), std::vector<NodeAddress>{kA});
  EXPECT_TRUE(t.due(kT0 + Duration::seconds(19), false).empty());
  EXPECT_EQ(t.due(kT0 + Duration::seconds(20), false), std::vector<NodeAddress>{kA});
  t.removed(kA, kT0 + Duration::seconds(5));  // seen again later: the first sighting counts
  EXPECT_EQ(t.due(kT0 + Duration::seconds(10), true), std::vector<NodeAddress>{kA});
}

TEST(Tombstones, AFollowerDropsWhatItsLeaderNoLongerHoldsOnceHalfATtlOld) {
  Tombstones t(Duration::seconds(10), 8);
  const MemberTable table = table_with_removed(3);
  t.removed(kA, kT0);
  const std::vector<NodeAddress> leader_without_a{kB};
  const std::vector<NodeAddress> leader_with_a{kA, kB};
  EXPECT_TRUE(t.unheld_by_leader(kT0 + Duration::seconds(4), leader_without_a, table).empty());  // too young
  EXPECT_EQ(t.unheld_by_leader(kT0 + Duration::seconds(5), leader_without_a, table), std::vector<NodeAddress>{kA});
  EXPECT_TRUE(t.unheld_by_leader(kT0 + Duration::seconds(5), leader_with_a, table).empty());  // the leader holds it
}

TEST(Tombstones, ADroppedLifeIsRefusedUntilANewerOne) {
  Tombstones t(Duration::seconds(10), 8);
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
  Tombstones t(Duration::seconds(10), 8);
  t.removed(kA, kT0);
  t.changed(kA);  // a newer life joined at kA before the TTL
  EXPECT_TRUE(t.due(kT0 + Duration::seconds(30), true).empty());
}

TEST(Tombstones, TheDefectRemembersNothing) {
  Tombstones t(Duration::seconds(10), 8);
  const MemberTable table = table_with_removed(3);
  t.removed(kA, kT0);
  t.dropped(kA, table.find(kA), false);  // Mutations::tombstone_echo
  EXPECT_FALSE(t.forgotten(Member{MemberId{kA, Incarnation{3}}, MemberStatus::removed}));
}

}  // namespace
}  // namespace weft
