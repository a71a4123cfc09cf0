// Goal: the time types are integer nanoseconds with no implicit conversions,
// exact unit constructors, and asserted overflow.
#include "kernel/time.hpp"

#include <gtest/gtest.h>

#include <type_traits>

namespace weft {
namespace {

static_assert(!std::is_convertible_v<std::int64_t, Duration>);
static_assert(!std::is_convertible_v<Duration, std::int64_t>);
static_assert(!std::is_convertible_v<std::int64_t, Instant>);
static_assert(!std::is_convertible_v<Instant, Duration>);
static_assert(!std::is_convertible_v<Duration, Instant>);
static_assert(!std::is_constructible_v<Duration, std::int64_t>);
static_assert(std::is_trivially_copyable_v<Duration> && sizeof(Duration) == 8);
static_assert(std::is_trivially_copyable_v<Instant> && sizeof(Instant) == 8);

template <class A, class B>
concept Addable = requires(A a, B b) { a + b; };
static_assert(!Addable<Instant, Instant>, "adding two points in time is meaningless");
static_assert(Addable<Instant, Duration>);
static_assert(!Addable<Duration, std::int64_t>, "a bare integer has no unit");

TEST(Duration, UnitConstructorsAreExact) {
  EXPECT_EQ(Duration::seconds(3).ns(), 3'000'000'000);
  EXPECT_EQ(Duration::milliseconds(50).ns(), 50'000'000);
  EXPECT_EQ(Duration::microseconds(7).ns(), 7'000);
  EXPECT_EQ(Duration::nanoseconds(-5).ns(), -5);
  EXPECT_EQ(Duration::milliseconds(1500).ms(), 1500);
  EXPECT_EQ(Duration::milliseconds(1500).us(), 1'500'000);
}

TEST(Duration, Arithmetic) {
  const Duration a = Duration::milliseconds(300);
  const Duration b = Duration::milliseconds(200);
  EXPECT_EQ(a + b, Duration::milliseconds(500));
  EXPECT_EQ(a - b, Duration::milliseconds(100));
  EXPECT_EQ(b - a, -Duration::milliseconds(100));
  EXPECT_EQ(a * 3, Duration::milliseconds(900));
  EXPECT_EQ(a / 3, Duration::milliseconds(100));
  EXPECT_EQ(Duration::seconds(1) / Duration::milliseconds(300), 3);
  EXPECT_LT(b, a);
  Duration c = a;
  c += b;
  c -= Duration::milliseconds(100);
  EXPECT_EQ(c, Duration::milliseconds(400));
}

TEST(Instant, PointsAndSpans) {
  const Instant start = Instant::from_ns(1'000);
  const Instant later = start + Duration::microseconds(2);
  EXPECT_EQ(later.ns_since_epoch(), 3'000);
  EXPECT_EQ(later - start, Duration::nanoseconds(2'000));
  EXPECT_EQ(start - later, Duration::nanoseconds(-2'000));
  EXPECT_EQ(later - Duration::microseconds(2), start);
  EXPECT_LT(start, later);
  EXPECT_LT(later, Instant::never());
  EXPECT_EQ(Instant::epoch().ns_since_epoch(), 0);
}

TEST(TimeDeathTest, OverflowAsserts) {
  EXPECT_DEATH((void)(Instant::never() + Duration::nanoseconds(1)), "assertion failed");
  EXPECT_DEATH((void)Duration::seconds(INT64_MAX / 1'000'000'000 + 1), "assertion failed");
  EXPECT_DEATH((void)(Duration::seconds(1) / 0), "assertion failed");
}

}  // namespace
}  // namespace weft
