// Goal: with incarnations that are start times in ms, the highest life a
// node finds plausible is the wall clock at its start, plus the monotonic
// time since, plus the skew (kernel/membership/life_ceiling.hpp); off (no
// wall time given) it allows every life, and near the top of the range it
// saturates instead of wrapping.
#include "kernel/membership/life_ceiling.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace weft {
namespace {

constexpr std::uint64_t kWall = 1'798'761'600'000;  // 2027-01-01 in ms

Instant at_ms(std::int64_t ms) { return Instant::epoch() + Duration::milliseconds(ms); }

TEST(LifeCeiling, TheClockPlusTheSkewRisesWithTheTimeRun) {
  LifeCeiling ceiling(kWall, Duration::seconds(2));
  EXPECT_EQ(ceiling.at(at_ms(500)), std::nullopt) << "not started: no estimate yet";
  ceiling.start(at_ms(500));
  EXPECT_EQ(ceiling.at(at_ms(500)), kWall + 2000);
  EXPECT_EQ(ceiling.at(at_ms(10'500)), kWall + 10'000 + 2000) << "10 s later, 10 s higher";
  EXPECT_TRUE(ceiling.allows(kWall + 2000, at_ms(500)));
  EXPECT_FALSE(ceiling.allows(kWall + 2001, at_ms(500)));
  EXPECT_TRUE(ceiling.allows(kWall + 2001, at_ms(501))) << "a ms later it is the clock's";
  EXPECT_TRUE(ceiling.allows(1, at_ms(500))) << "any life below the clock";
}

TEST(LifeCeiling, WithoutAWallTimeEveryLifeIsAllowed) {
  LifeCeiling off(0, Duration::seconds(2));
  off.start(at_ms(0));
  EXPECT_EQ(off.at(at_ms(0)), std::nullopt);
  EXPECT_TRUE(off.allows(std::numeric_limits<std::uint64_t>::max(), at_ms(0)));
}

TEST(LifeCeiling, NearTheTopOfTheRangeItSaturates) {
  LifeCeiling high(std::numeric_limits<std::uint64_t>::max() - 10, Duration::seconds(1));
  high.start(at_ms(0));
  EXPECT_EQ(high.at(at_ms(5)), std::numeric_limits<std::uint64_t>::max());
  EXPECT_TRUE(high.allows(std::numeric_limits<std::uint64_t>::max(), at_ms(5)));
}

}  // namespace
}  // namespace weft
