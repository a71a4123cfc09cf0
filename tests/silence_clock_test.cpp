// Goal: the silence clock proves a silence from the first heartbeat left
// unanswered or from the subject's missed heartbeat, whichever is earlier;
// hearing the subject voids a clock; the missed-heartbeat clock waits out
// the longest gap it has seen; and a pause of this node forgets both.
#include "kernel/detection/silence_clock.hpp"

#include <gtest/gtest.h>

namespace weft {
namespace {

Instant at_ms(std::int64_t ms) { return Instant::epoch() + Duration::milliseconds(ms); }
constexpr Duration kInterval = Duration::seconds(1);

TEST(SilenceClock, TheFirstUnansweredHeartbeatStartsIt) {
  SilenceClock clock;
  EXPECT_FALSE(clock.silent_since(at_ms(0), kInterval)) << "nothing sent, nothing proven";
  clock.heartbeat_sent(at_ms(1000), at_ms(900));
  EXPECT_EQ(clock.silent_since(at_ms(900), kInterval), at_ms(1000));
  // Later rounds, nothing heard: the clock stays at the first.
  clock.heartbeat_sent(at_ms(2000), at_ms(900));
  EXPECT_EQ(clock.silent_since(at_ms(900), kInterval), at_ms(1000));
  // Heard after it (the answer): void until the next round...
  EXPECT_FALSE(clock.silent_since(at_ms(2001), kInterval));
  // ...which starts it again.
  clock.heartbeat_sent(at_ms(3000), at_ms(2001));
  EXPECT_EQ(clock.silent_since(at_ms(2001), kInterval), at_ms(3000));
  // Heard at the very instant it went out counts as heard after it.
  EXPECT_FALSE(clock.silent_since(at_ms(3000), kInterval));
}

TEST(SilenceClock, TheSubjectsMissedHeartbeatIsTheEarlierClock) {
  SilenceClock clock;
  clock.heartbeat_received(at_ms(100));
  EXPECT_FALSE(clock.silent_since(at_ms(100), kInterval)) << "one heartbeat: its cadence is unknown";
  clock.heartbeat_received(at_ms(1100));
  // Due at 2100; frames heard before it change nothing.
  EXPECT_EQ(clock.silent_since(at_ms(1500), kInterval), at_ms(2100));
  // This node's own round at 1900 is unanswered too: the earlier wins.
  clock.heartbeat_sent(at_ms(1900), at_ms(1500));
  EXPECT_EQ(clock.silent_since(at_ms(1500), kInterval), at_ms(1900));
  // Heard after the due time (its heartbeats stopped, it lives): both void.
  EXPECT_FALSE(clock.silent_since(at_ms(2200), kInterval));
}

TEST(SilenceClock, ASlowerHeartbeatWaitsOutItsGap) {
  // The subject heartbeats every 2 s (its own heartbeat_interval); this
  // node's is 1 s. Its next is due 2 s after the last, not 1 s.
  SilenceClock clock;
  clock.heartbeat_received(at_ms(0));
  clock.heartbeat_received(at_ms(2000));
  EXPECT_EQ(clock.silent_since(at_ms(2900), kInterval), at_ms(4000));
  // A faster one is held to this node's interval, the later of the two.
  SilenceClock fast;
  fast.heartbeat_received(at_ms(0));
  fast.heartbeat_received(at_ms(500));
  EXPECT_EQ(fast.silent_since(at_ms(500), kInterval), at_ms(1500));
}

TEST(SilenceClock, ThisNodesOwnPauseForgetsBoth) {
  SilenceClock clock;
  clock.heartbeat_received(at_ms(0));
  clock.heartbeat_received(at_ms(1000));
  clock.heartbeat_sent(at_ms(1500), at_ms(1000));
  ASSERT_TRUE(clock.silent_since(at_ms(1000), kInterval));
  clock.forget();
  EXPECT_FALSE(clock.silent_since(at_ms(1000), kInterval));
  // Never heard: the first round starts it.
  clock.heartbeat_sent(at_ms(9000), std::nullopt);
  EXPECT_EQ(clock.silent_since(std::nullopt, kInterval), at_ms(9000));
}

}  // namespace
}  // namespace weft
