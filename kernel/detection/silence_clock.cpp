// The silence clock; the model is in silence_clock.hpp.
#include "kernel/detection/silence_clock.hpp"

#include <algorithm>

#include "kernel/assert.hpp"

namespace weft {

void SilenceClock::heartbeat_sent(Instant now, std::optional<Instant> heard) {
  // The first heartbeat after the last frame heard starts the clock; later
  // ones, while nothing is heard, leave it where it is.
  if (!unanswered_since_ || (heard && *heard >= *unanswered_since_)) unanswered_since_ = now;
  WEFT_ASSERT(*unanswered_since_ <= now);
}

void SilenceClock::heartbeat_received(Instant now) {
  if (heartbeat_in_) heartbeat_gap_ = now - *heartbeat_in_;
  heartbeat_in_ = now;
  WEFT_ASSERT(!heartbeat_gap_ || *heartbeat_gap_ >= Duration::zero());
}

void SilenceClock::forget() {
  unanswered_since_.reset();
  heartbeat_in_.reset();
  heartbeat_gap_.reset();
}

std::optional<Instant> SilenceClock::silent_since(std::optional<Instant> heard, Duration heartbeat_interval) const {
  std::optional<Instant> since;
  if (unanswered_since_ && !(heard && *heard >= *unanswered_since_)) since = unanswered_since_;
  if (heartbeat_in_ && heartbeat_gap_) {
    const Instant due = *heartbeat_in_ + std::max(heartbeat_interval, *heartbeat_gap_);
    if (!(heard && *heard > due)) since = since ? std::min(*since, due) : due;
  }
  WEFT_ASSERT(!since || !heard || *since >= *heard);
  return since;
}

}  // namespace weft
