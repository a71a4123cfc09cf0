// Goal: the redial backoff waits min, 2 min, 4 min, ... up to max after
// each loss in a row, each plus a jitter in [0, wait / 4] drawn from the
// PRNG it is handed (and nothing else: the same seed gives the same
// schedule); a valid hello resets the wait to min; hurry() brings only a
// later dial forward; a revived record waits its current wait, unjittered.
#include "kernel/links/redial_backoff.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace weft {
namespace {

const RedialBackoff::Options kOptions{Duration::milliseconds(100), Duration::seconds(5)};

Instant at_ms(std::int64_t ms) { return Instant::epoch() + Duration::milliseconds(ms); }

TEST(RedialBackoff, ANewRecordDialsAtOnceAndWaitsMinAfterItsFirstLoss) {
  const RedialBackoff backoff(kOptions, at_ms(7));
  EXPECT_EQ(backoff.next_attempt(), at_ms(7));
  EXPECT_EQ(backoff.wait(), kOptions.min);
}

TEST(RedialBackoff, EachLossDoublesTheWaitUpToTheCapWithJitterOfAQuarterAtMost) {
  RedialBackoff backoff(kOptions, at_ms(0));
  Prng prng(42);
  Instant now = at_ms(0);
  Duration expected_wait = kOptions.min;
  for (int loss = 0; loss < 12; ++loss) {
    ASSERT_EQ(backoff.wait(), expected_wait) << "loss " << loss;
    backoff.lost(now, prng);
    const Duration waited = backoff.next_attempt() - now;
    EXPECT_GE(waited, expected_wait);
    EXPECT_LE(waited, expected_wait + expected_wait / 4);
    expected_wait = std::min(expected_wait * 2, kOptions.max);
    now = backoff.next_attempt();
  }
  EXPECT_EQ(backoff.wait(), kOptions.max);  // 100 ms * 2^6 > 5 s: capped
}

TEST(RedialBackoff, TheJitterIsDrawnFromTheGivenPrngOnly) {
  RedialBackoff a(kOptions, at_ms(0));
  RedialBackoff b(kOptions, at_ms(0));
  Prng prng_a = Prng::derive(9, 1);
  Prng prng_b = Prng::derive(9, 1);
  bool jittered = false;
  for (int loss = 0; loss < 8; ++loss) {
    const Duration wait = a.wait();
    a.lost(at_ms(10'000 * loss), prng_a);
    b.lost(at_ms(10'000 * loss), prng_b);
    EXPECT_EQ(a.next_attempt(), b.next_attempt());
    jittered |= a.next_attempt() != at_ms(10'000 * loss) + wait;
  }
  // One draw per loss: the two streams are still in step.
  EXPECT_EQ(prng_a.next_u64(), prng_b.next_u64());
  // Eight draws of zero from 25,000,001 values would be a broken draw.
  EXPECT_TRUE(jittered);
}

TEST(RedialBackoff, TheJitterIsAtMostAQuarterOfTheWaitOverManyDraws) {
  Prng prng(7);
  for (int draw = 0; draw < 2000; ++draw) {
    RedialBackoff backoff({Duration::nanoseconds(8), Duration::nanoseconds(8)}, at_ms(0));
    backoff.lost(at_ms(0), prng);
    const Duration waited = backoff.next_attempt() - at_ms(0);
    ASSERT_GE(waited, Duration::nanoseconds(8));
    ASSERT_LE(waited, Duration::nanoseconds(10));  // 8 + [0, 2], both ends reachable
  }
}

TEST(RedialBackoff, AValidHelloResetsTheWaitButNotAScheduledDial) {
  RedialBackoff backoff(kOptions, at_ms(0));
  Prng prng(1);
  for (int loss = 0; loss < 5; ++loss) backoff.lost(at_ms(0), prng);
  const Instant scheduled = backoff.next_attempt();
  ASSERT_GT(backoff.wait(), kOptions.min);
  backoff.reset();
  EXPECT_EQ(backoff.wait(), kOptions.min);
  EXPECT_EQ(backoff.next_attempt(), scheduled);
  backoff.lost(at_ms(10'000), prng);
  EXPECT_LE(backoff.next_attempt(), at_ms(10'000) + kOptions.min + kOptions.min / 4);
}

TEST(RedialBackoff, HurryBringsOnlyALaterDialForward) {
  RedialBackoff backoff(kOptions, at_ms(0));
  Prng prng(3);
  backoff.lost(at_ms(0), prng);
  ASSERT_GT(backoff.next_attempt(), at_ms(50));
  EXPECT_TRUE(backoff.hurry(at_ms(50)));
  EXPECT_EQ(backoff.next_attempt(), at_ms(50));
  EXPECT_FALSE(backoff.hurry(at_ms(60)));  // already due: left as it is
  EXPECT_EQ(backoff.next_attempt(), at_ms(50));
  EXPECT_FALSE(backoff.hurry(at_ms(50)));
  EXPECT_EQ(backoff.wait(), kOptions.min * 2);  // hurrying is not a reset
}

TEST(RedialBackoff, ARevivedRecordWaitsItsCurrentWaitWithoutJitterOrDoubling) {
  RedialBackoff backoff(kOptions, at_ms(0));
  Prng prng(5);
  backoff.lost(at_ms(0), prng);
  backoff.lost(at_ms(1000), prng);
  const Duration wait = backoff.wait();
  ASSERT_EQ(wait, kOptions.min * 4);
  backoff.wait_from(at_ms(2000));
  EXPECT_EQ(backoff.next_attempt(), at_ms(2000) + wait);
  EXPECT_EQ(backoff.wait(), wait);
}

TEST(RedialBackoffDeathTest, OptionsOutOfOrderStopTheProcess) {
  EXPECT_DEATH(RedialBackoff({Duration::seconds(5), Duration::milliseconds(100)}, at_ms(0)), "");
  EXPECT_DEATH(RedialBackoff({Duration::zero(), Duration::seconds(1)}, at_ms(0)), "");
}

}  // namespace
}  // namespace weft
