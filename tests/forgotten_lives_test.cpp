// The memory of pruned lives (kernel/membership/forgotten_lives.hpp): a
// pruned life and older ones of its address are covered at any status, a
// newer one is not, and the memory holds at most `capacity` addresses,
// oldest forgotten first.
#include <gtest/gtest.h>

#include "kernel/membership/forgotten_lives.hpp"

namespace weft {
namespace {

MemberId life(std::uint16_t port, std::uint64_t incarnation) {
  return MemberId{NodeAddress{"10.0.0.1", port}, Incarnation{incarnation}};
}

TEST(ForgottenLives, APrunedLifeAndOlderOnesAreCoveredAtAnyStatus) {
  ForgottenLives f(4);
  f.remember(life(7001, 5));
  for (const MemberStatus s : kAllMemberStatuses) {
    EXPECT_TRUE(f.covers(Member{life(7001, 5), s})) << to_string(s);
    EXPECT_TRUE(f.covers(Member{life(7001, 4), s})) << to_string(s);
    EXPECT_FALSE(f.covers(Member{life(7001, 6), s})) << to_string(s);  // a new life
  }
  EXPECT_FALSE(f.covers(Member{life(7002, 1), MemberStatus::removed}));  // another address
  f.remember(life(7001, 3));  // an older one pruned later keeps the newer bound
  EXPECT_TRUE(f.covers(Member{life(7001, 5), MemberStatus::up}));
}

TEST(ForgottenLives, ANewerLifeEndsTheMemoryOfItsAddress) {
  ForgottenLives f(4);
  f.remember(life(7001, 5));
  f.forget(NodeAddress{"10.0.0.1", 7001});
  EXPECT_FALSE(f.covers(Member{life(7001, 5), MemberStatus::removed}));
  EXPECT_EQ(f.size(), 0u);
  f.forget(NodeAddress{"10.0.0.1", 7001});  // nothing to forget: no change
  EXPECT_EQ(f.size(), 0u);
}

TEST(ForgottenLives, AtCapacityTheOldestIsForgottenFirst) {
  ForgottenLives f(3);
  for (std::uint16_t port = 7001; port <= 7004; ++port) f.remember(life(port, 1));
  EXPECT_EQ(f.size(), 3u);
  EXPECT_FALSE(f.covers(Member{life(7001, 1), MemberStatus::removed}));  // the first in, out
  for (std::uint16_t port = 7002; port <= 7004; ++port) {
    EXPECT_TRUE(f.covers(Member{life(port, 1), MemberStatus::removed})) << port;
  }
  f.remember(life(7002, 2));  // known already: no eviction, the bound raised
  EXPECT_EQ(f.size(), 3u);
  EXPECT_TRUE(f.covers(Member{life(7004, 1), MemberStatus::removed}));
  EXPECT_TRUE(f.covers(Member{life(7002, 2), MemberStatus::removed}));
}

TEST(ForgottenLives, CapacityZeroRemembersNothing) {
  ForgottenLives f(0);
  f.remember(life(7001, 5));
  EXPECT_EQ(f.size(), 0u);
  EXPECT_FALSE(f.covers(Member{life(7001, 5), MemberStatus::removed}));
}

}  // namespace
}  // namespace weft
