// The boundary between the machine's clock and the kernel's time: steady
// (monotonic) time only, as integer nanoseconds. The kernel never sees wall
// time; a process that starts again gets a newer steady reading anyway.
#pragma once

#include <chrono>

#include "kernel/time.hpp"

namespace weft::io {

using SteadyTime = std::chrono::steady_clock::time_point;

inline Instant to_instant(SteadyTime t) {
  return Instant::from_ns(std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

inline SteadyTime to_steady(Instant at) {
  if (at == Instant::never()) return SteadyTime::max();
  return SteadyTime(std::chrono::duration_cast<SteadyTime::duration>(std::chrono::nanoseconds(at.ns_since_epoch())));
}

inline Instant steady_now() { return to_instant(std::chrono::steady_clock::now()); }

}  // namespace weft::io
