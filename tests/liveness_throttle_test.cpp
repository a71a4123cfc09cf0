// Goal: LivenessThrottle passes a frame iff no observation passed in the
// window before it, which gives its two guarantees: passed observations are
// at least one window apart, and every frame has a passed observation in
// (t - window, t]. Scripted sequences pin the 49/50/51 ms edges and bursts.
#include "kernel/detection/liveness_throttle.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace weft {
namespace {

Instant at_ms(std::int64_t ms) { return Instant::epoch() + Duration::milliseconds(ms); }
Instant at_us(std::int64_t us) { return Instant::epoch() + Duration::microseconds(us); }

// Feeds frames at the given instants; returns which passed.
std::vector<bool> feed(LivenessThrottle& throttle, const std::vector<Instant>& frames) {
  std::vector<bool> passed;
  for (const Instant t : frames) passed.push_back(throttle.observe(t));
  return passed;
}

// Both guarantees over one scripted sequence, checked from the outside.
void expect_guarantees(const std::vector<Instant>& frames, const std::vector<bool>& passed,
                       Duration window) {
  ASSERT_EQ(frames.size(), passed.size());
  std::vector<Instant> observations;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (passed[i]) observations.push_back(frames[i]);
  }
  for (std::size_t i = 1; i < observations.size(); ++i) {
    EXPECT_GE(observations[i] - observations[i - 1], window) << "(a) broken at observation " << i;
  }
  for (const Instant t : frames) {
    bool covered = false;
    for (const Instant o : observations) covered |= o <= t && t - o < window;
    EXPECT_TRUE(covered) << "(b) broken for the frame at " << t.ns_since_epoch() << " ns";
  }
}

TEST(LivenessThrottle, DefaultWindowIsFiftyMilliseconds) {
  const LivenessThrottle throttle;
  EXPECT_EQ(throttle.window(), Duration::milliseconds(50));
  EXPECT_FALSE(throttle.has_passed());
}

TEST(LivenessThrottle, FirstFramePasses) {
  LivenessThrottle throttle;
  EXPECT_TRUE(throttle.observe(at_ms(12'345)));
  EXPECT_TRUE(throttle.has_passed());
  EXPECT_EQ(throttle.last_passed(), at_ms(12'345));
}

TEST(LivenessThrottle, FirstFramePassesEvenAtTheEpoch) {
  LivenessThrottle throttle;
  EXPECT_TRUE(throttle.observe(Instant::epoch()));
  EXPECT_FALSE(throttle.observe(at_ms(49)));
  EXPECT_TRUE(throttle.observe(at_ms(50)));
}

TEST(LivenessThrottle, FortyNineMillisecondsLaterIsSuppressed) {
  LivenessThrottle throttle;
  ASSERT_TRUE(throttle.observe(at_ms(1000)));
  EXPECT_FALSE(throttle.observe(at_ms(1049)));
  EXPECT_EQ(throttle.last_passed(), at_ms(1000));  // a suppressed frame does not move the window
}

TEST(LivenessThrottle, FiftyMillisecondsLaterPasses) {
  LivenessThrottle throttle;
  ASSERT_TRUE(throttle.observe(at_ms(1000)));
  EXPECT_TRUE(throttle.observe(at_ms(1050)));
  EXPECT_EQ(throttle.last_passed(), at_ms(1050));
}

TEST(LivenessThrottle, FiftyOneMillisecondsLaterPasses) {
  LivenessThrottle throttle;
  ASSERT_TRUE(throttle.observe(at_ms(1000)));
  EXPECT_TRUE(throttle.observe(at_ms(1051)));
}

TEST(LivenessThrottle, OneNanosecondShortOfTheWindowIsSuppressed) {
  LivenessThrottle throttle;
  ASSERT_TRUE(throttle.observe(at_ms(1000)));
  EXPECT_FALSE(throttle.observe(at_ms(1050) - Duration::nanoseconds(1)));
  EXPECT_TRUE(throttle.observe(at_ms(1050)));
}

TEST(LivenessThrottle, WindowIsMeasuredFromTheLastPassedFrameNotTheLastFrame) {
  // 0 passes; 49 is suppressed; 98 is 49 ms after the suppressed frame but
  // 98 ms after the last passed one, so it passes.
  LivenessThrottle throttle;
  const std::vector<Instant> frames = {at_ms(0), at_ms(49), at_ms(98), at_ms(147), at_ms(148)};
  const std::vector<bool> passed = feed(throttle, frames);
  EXPECT_EQ(passed, (std::vector<bool>{true, false, true, false, true}));
  expect_guarantees(frames, passed, throttle.window());
}

TEST(LivenessThrottle, BurstAtOneInstantPassesOnce) {
  LivenessThrottle throttle;
  const std::vector<Instant> frames(1000, at_ms(500));
  const std::vector<bool> passed = feed(throttle, frames);
  EXPECT_TRUE(passed[0]);
  for (std::size_t i = 1; i < passed.size(); ++i) EXPECT_FALSE(passed[i]) << i;
  expect_guarantees(frames, passed, throttle.window());
}

TEST(LivenessThrottle, FloodEveryMicrosecondPassesOncePerWindow) {
  // One frame per microsecond for one second: exactly 20 observations, at 0,
  // 50, 100, ... 950 ms.
  LivenessThrottle throttle;
  std::vector<Instant> frames;
  for (std::int64_t us = 0; us < 1'000'000; ++us) frames.push_back(at_us(us));
  const std::vector<bool> passed = feed(throttle, frames);
  std::vector<std::int64_t> passed_at_us;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (passed[i]) passed_at_us.push_back(frames[i].ns_since_epoch() / 1000);
  }
  std::vector<std::int64_t> expected;
  for (std::int64_t ms = 0; ms < 1000; ms += 50) expected.push_back(ms * 1000);
  EXPECT_EQ(passed_at_us, expected);
}

TEST(LivenessThrottle, BurstsSeparatedByQuietGapsPassTheFirstFrameOfEachBurst) {
  // Bursts of 5 frames 1 ms apart, starting every 200 ms.
  LivenessThrottle throttle;
  std::vector<Instant> frames;
  for (std::int64_t burst = 0; burst < 5; ++burst) {
    for (std::int64_t k = 0; k < 5; ++k) frames.push_back(at_ms(burst * 200 + k));
  }
  const std::vector<bool> passed = feed(throttle, frames);
  for (std::size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(passed[i], i % 5 == 0) << i;
  expect_guarantees(frames, passed, throttle.window());
}

TEST(LivenessThrottle, SteadyStreamEveryTwentyMillisecondsPassesEveryThird) {
  // Frames at 0, 20, 40, 60, ...: 0 passes, 20 and 40 are inside its window,
  // 60 passes (60 >= 50), and so on: every third frame.
  LivenessThrottle throttle;
  std::vector<Instant> frames;
  for (std::int64_t ms = 0; ms <= 600; ms += 20) frames.push_back(at_ms(ms));
  const std::vector<bool> passed = feed(throttle, frames);
  for (std::size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(passed[i], i % 3 == 0) << i;
  expect_guarantees(frames, passed, throttle.window());
}

TEST(LivenessThrottle, EdgeSequenceFortyNineFiftyFiftyOne) {
  // Gaps of 49, 50 and 51 ms in one sequence, each measured from the last
  // passed frame: 0 P, 49 S, 50 P, 99 S, 100 P, 151 P, 200 S, 201 P.
  LivenessThrottle throttle;
  const std::vector<Instant> frames = {at_ms(0),   at_ms(49),  at_ms(50),  at_ms(99),
                                       at_ms(100), at_ms(151), at_ms(200), at_ms(201)};
  const std::vector<bool> passed = feed(throttle, frames);
  EXPECT_EQ(passed, (std::vector<bool>{true, false, true, false, true, true, false, true}));
  expect_guarantees(frames, passed, throttle.window());
}

TEST(LivenessThrottle, CustomWindow) {
  LivenessThrottle throttle(Duration::milliseconds(10));
  EXPECT_EQ(throttle.window(), Duration::milliseconds(10));
  EXPECT_TRUE(throttle.observe(at_ms(0)));
  EXPECT_FALSE(throttle.observe(at_ms(9)));
  EXPECT_TRUE(throttle.observe(at_ms(10)));
}

TEST(LivenessThrottle, LongSilenceThenFramePasses) {
  LivenessThrottle throttle;
  ASSERT_TRUE(throttle.observe(at_ms(0)));
  EXPECT_TRUE(throttle.observe(at_ms(3'600'000)));
}

}  // namespace
}  // namespace weft
