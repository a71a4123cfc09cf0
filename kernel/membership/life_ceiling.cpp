// The highest plausible life; the model is in life_ceiling.hpp.
#include "kernel/membership/life_ceiling.hpp"

#include <algorithm>
#include <limits>

#include "kernel/assert.hpp"

namespace weft {

LifeCeiling::LifeCeiling(std::uint64_t start_wall_ms, Duration skew)
    : start_wall_ms_(start_wall_ms), skew_ms_(static_cast<std::uint64_t>(std::max<std::int64_t>(skew.ms(), 0))) {}

std::optional<std::uint64_t> LifeCeiling::at(Instant now) const {
  if (start_wall_ms_ == 0 || !started_) return std::nullopt;
  WEFT_ASSERT(now >= *started_);
  const auto ran_ms = static_cast<std::uint64_t>((now - *started_).ms());
  const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  // Saturating: a wall time near the top of the range allows everything.
  if (start_wall_ms_ > top - ran_ms || start_wall_ms_ + ran_ms > top - skew_ms_) return top;
  return start_wall_ms_ + ran_ms + skew_ms_;
}

bool LifeCeiling::allows(std::uint64_t incarnation, Instant now) const {
  const std::optional<std::uint64_t> ceiling = at(now);
  return !ceiling || incarnation <= *ceiling;
}

}  // namespace weft
