// The kernel's timed duties, one named timer each, in one table (the shape of
// quinn-proto's TimerTable). A timer holds the instant its duty falls due, or
// Instant::never() when nothing is waiting. Kernel::next_deadline() is the
// minimum over the table, and Kernel::handle_tick() runs the duty of each
// timer that is due, in the order of the enum below: expiries first, so a
// round never works from a link, ask or probe that is already over.
//
// Some timers are owned: the duty re-arms its own timer when it runs
// (heartbeat, gossip, down check, join, heal probe). The others are derived: their
// deadline is the earliest of a structure the kernel keeps anyway (the
// accepted links awaiting a hello, the ask table, the probes, the links
// waiting out a backoff), and Kernel::timers() reads it from there, so no
// code path that changes such a structure can forget to re-arm its timer.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernel/assert.hpp"
#include "kernel/time.hpp"

namespace weft {

enum class Timer : std::uint8_t {
  handshake,   // derived: an accepted link's hello (or proof) is overdue; the link is closed
  ask,         // derived: a pending ask times out
  probe,       // derived: an indirect probe this node runs or helps with times out
  heartbeat,   // owned: heartbeats to the subjects this node monitors, every heartbeat_interval
  gossip,      // owned: a gossip round, every gossip_interval (sooner while a change spreads)
  down_check,  // owned: the leader's earliest unreachable member falls due for downing
  join,        // owned: a join attempt through the seeds, while no other live member is known
  heal_probe,  // owned: a digest to one seed or gone member, every join_retry_interval
  dial,        // derived: an outbound link waiting out its backoff may dial
  actor,       // derived: a timer an actor started fires (kernel/actors/actor_timers.hpp)
};
inline constexpr std::size_t kTimerCount = 10;
static_assert(static_cast<std::size_t>(Timer::actor) + 1 == kTimerCount);

std::string_view to_string(Timer timer);

class TimerTable {
 public:
  TimerTable() { deadlines_.fill(Instant::never()); }

  void arm(Timer timer, Instant at) { deadlines_[index(timer)] = at; }
  void disarm(Timer timer) { deadlines_[index(timer)] = Instant::never(); }
  // Arms `timer` for `at` unless it is already due sooner.
  void arm_no_later(Timer timer, Instant at) {
    Instant& deadline = deadlines_[index(timer)];
    deadline = std::min(deadline, at);
  }

  Instant deadline(Timer timer) const { return deadlines_[index(timer)]; }
  bool armed(Timer timer) const { return deadline(timer) != Instant::never(); }
  bool due(Timer timer, Instant now) const { return deadline(timer) <= now; }

  // The earliest deadline in the table; Instant::never() when none is armed.
  Instant next() const { return *std::min_element(deadlines_.begin(), deadlines_.end()); }

 private:
  static std::size_t index(Timer timer) {
    const auto i = static_cast<std::size_t>(timer);
    WEFT_ASSERT(i < kTimerCount);
    return i;
  }

  std::array<Instant, kTimerCount> deadlines_;
};

}  // namespace weft
