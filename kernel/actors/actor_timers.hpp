// Timers actors start on themselves (Context::start_timer), for duties no
// message announces: an idle entity's passivation, a retry, a lease.
//
// Model. A timer is keyed by (actor, tag) and fires once, as a delivery of
// kind `timer` with that tag to its actor. Starting a timer whose key is
// armed replaces it (Akka's startSingleTimer), so an actor that re-arms on
// every message holds one timer, not one per message: the table never holds
// more entries than actors times the tags they use. Timers fire in the order
// of (instant, actor, tag), a total order on values, so a seed replays the
// same firings; nothing here reads a clock, the kernel passes its instant.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "kernel/time.hpp"

namespace weft {

class ActorTimers {
 public:
  struct Key {
    std::uint32_t actor = 0;
    std::uint32_t tag = 0;
    auto operator<=>(const Key&) const = default;
  };

  // Arms `key` to fire at `at`, replacing an armed timer of that key.
  void start(Key key, Instant at);
  // Disarms `key`; false if it was not armed.
  bool cancel(Key key);
  bool armed(Key key) const { return by_key_.contains(key); }
  std::size_t size() const { return by_key_.size(); }

  // The earliest armed instant; Instant::never() when none is.
  Instant next_deadline() const;
  // Disarms and returns the timers due by `now`, in firing order.
  std::vector<Key> take_due(Instant now);

 private:
  std::map<Key, Instant> by_key_;
  std::set<std::pair<Instant, Key>> by_time_;  // the same entries, in firing order
};

}  // namespace weft
