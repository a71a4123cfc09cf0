// The redial backoff's moves; the model is in redial_backoff.hpp.
#include "kernel/links/redial_backoff.hpp"

#include <algorithm>
#include <cstdint>

namespace weft {

RedialBackoff::RedialBackoff(Options options, Instant first_attempt)
    : options_(options), wait_(options.min), next_attempt_(first_attempt) {
  WEFT_ASSERT(options.max >= options.min);
  check();
}

void RedialBackoff::lost(Instant now, Prng& prng) {
  check();
  // The jitter's bound is wait / 4 + 1 so that [0, wait / 4] is drawn, both
  // ends included.
  const Duration jitter = Duration::nanoseconds(
      static_cast<std::int64_t>(prng.below(static_cast<std::uint64_t>(wait_.ns() / 4 + 1))));
  WEFT_ASSERT(jitter >= Duration::zero() && jitter <= wait_ / 4);
  next_attempt_ = now + wait_ + jitter;
  wait_ = std::min(wait_ * 2, options_.max);
  WEFT_ASSERT(next_attempt_ > now);
  check();
}

void RedialBackoff::wait_from(Instant now) {
  check();
  next_attempt_ = now + wait_;
  WEFT_ASSERT(next_attempt_ > now);
}

void RedialBackoff::reset() {
  wait_ = options_.min;
  check();
}

bool RedialBackoff::hurry(Instant now) {
  check();
  if (next_attempt_ <= now) return false;
  next_attempt_ = now;
  return true;
}

}  // namespace weft
