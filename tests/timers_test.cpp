// Goal: the timer table's next() is the earliest armed deadline, a disarmed
// timer never falls due, and arm_no_later only ever brings a deadline
// forward; and a kernel's next_deadline() follows its timers (a gossip
// round re-arms gossip one interval on; a kernel not yet started asks for a
// tick at once).
#include "kernel/timers.hpp"

#include <gtest/gtest.h>

#include "kernel/kernel.hpp"

namespace weft {
namespace {

Instant at_ms(std::int64_t ms) { return Instant::epoch() + Duration::milliseconds(ms); }

TEST(TimerTable, EmptyTableIsNeverDue) {
  const TimerTable table;
  EXPECT_EQ(table.next(), Instant::never());
  for (std::size_t i = 0; i < kTimerCount; ++i) {
    const auto timer = static_cast<Timer>(i);
    EXPECT_FALSE(table.armed(timer)) << to_string(timer);
    EXPECT_FALSE(table.due(timer, at_ms(1'000'000))) << to_string(timer);
  }
}

TEST(TimerTable, NextIsTheEarliestArmedDeadline) {
  TimerTable table;
  table.arm(Timer::gossip, at_ms(200));
  table.arm(Timer::heartbeat, at_ms(1000));
  table.arm(Timer::dial, at_ms(50));
  EXPECT_EQ(table.next(), at_ms(50));
  table.disarm(Timer::dial);
  EXPECT_EQ(table.next(), at_ms(200));
  EXPECT_TRUE(table.due(Timer::gossip, at_ms(200)));
  EXPECT_FALSE(table.due(Timer::gossip, at_ms(199)));
  EXPECT_FALSE(table.due(Timer::dial, at_ms(10'000)));
}

TEST(TimerTable, ArmNoLaterOnlyBringsADeadlineForward) {
  TimerTable table;
  table.arm_no_later(Timer::down_check, at_ms(500));
  EXPECT_EQ(table.deadline(Timer::down_check), at_ms(500));
  table.arm_no_later(Timer::down_check, at_ms(900));
  EXPECT_EQ(table.deadline(Timer::down_check), at_ms(500));
  table.arm_no_later(Timer::down_check, at_ms(100));
  EXPECT_EQ(table.deadline(Timer::down_check), at_ms(100));
  table.arm(Timer::down_check, at_ms(900));  // arm() sets, whatever was there
  EXPECT_EQ(table.deadline(Timer::down_check), at_ms(900));
}

TEST(TimerTable, EveryTimerHasAName) {
  for (std::size_t i = 0; i < kTimerCount; ++i) EXPECT_FALSE(to_string(static_cast<Timer>(i)).empty());
}

Config lone_seed() {
  Config config;
  config.self = NodeAddress{"10.0.0.1", 7000};
  config.seeds = {config.self};
  return config;
}

TEST(KernelTimers, UnstartedKernelAsksForATickAtOnce) {
  const Kernel kernel(lone_seed(), 1);
  EXPECT_EQ(kernel.next_deadline(), Instant{});
}

TEST(KernelTimers, GossipRoundRearmsOneIntervalOn) {
  Kernel kernel(lone_seed(), 1);
  const Instant start = at_ms(1000);
  kernel.handle_tick(start);  // starts the kernel; its first round runs at once
  const Duration interval = kernel.config().gossip_interval;
  EXPECT_GT(kernel.next_deadline(), start);
  EXPECT_LE(kernel.next_deadline(), start + interval);
  // Ticking at each deadline never goes backwards and never skips a round.
  Instant now = start;
  for (int i = 0; i < 20; ++i) {
    const Instant next = kernel.next_deadline();
    ASSERT_GT(next, now);
    ASSERT_LE(next, now + interval);
    now = next;
    kernel.handle_tick(now);
  }
}

}  // namespace
}  // namespace weft
