#include "kernel/actors/actor_timers.hpp"

#include "kernel/assert.hpp"

namespace weft {

void ActorTimers::start(Key key, Instant at) {
  (void)cancel(key);
  by_key_.emplace(key, at);
  by_time_.emplace(at, key);
  WEFT_ASSERT(by_key_.size() == by_time_.size());
}

bool ActorTimers::cancel(Key key) {
  const auto found = by_key_.find(key);
  if (found == by_key_.end()) return false;
  by_time_.erase({found->second, key});
  by_key_.erase(found);
  WEFT_ASSERT(by_key_.size() == by_time_.size());
  return true;
}

Instant ActorTimers::next_deadline() const {
  return by_time_.empty() ? Instant::never() : by_time_.begin()->first;
}

std::vector<ActorTimers::Key> ActorTimers::take_due(Instant now) {
  std::vector<Key> due;
  while (!by_time_.empty() && by_time_.begin()->first <= now) {
    const Key key = by_time_.begin()->second;
    by_time_.erase(by_time_.begin());
    by_key_.erase(key);
    due.push_back(key);
  }
  WEFT_ASSERT(by_key_.size() == by_time_.size());
  return due;
}

}  // namespace weft
