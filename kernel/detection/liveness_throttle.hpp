// LivenessThrottle: turns "a frame arrived from this peer" into at most one
// detector observation per window (50 ms by default).
//
// Every inbound frame is evidence that its sender lives, but feeding every
// frame to the phi detector would fill its window with near-zero intervals
// under load, shrinking mean and variance until an ordinary pause looks like
// death, and would put per-message work on the membership path exactly when
// the cluster is busiest.
//
// Rule: a frame at `now` passes iff no observation passed within the window
// before it, i.e. the last passed observation is at or before now - window.
// Hence, for one peer:
//   (a) passed observations are at least `window` apart;
//   (b) for every frame at t, some observation passed in (t - window, t]:
//       the frame itself, or the one that suppressed it.
// (a) bounds the detector's input at 1/window per peer; (b) bounds its
// staleness by one window. Property F5 checks both.
#pragma once

#include "kernel/time.hpp"

namespace weft {

class LivenessThrottle {
 public:
  explicit LivenessThrottle(Duration window = Duration::milliseconds(50)) : window_(window) {
    WEFT_ASSERT(window > Duration::zero());
  }

  // A frame from the peer arrived at `now`; true if it should reach the
  // detector as an observation.
  bool observe(Instant now) {
    if (has_passed_ && now - last_passed_ < window_) return false;
    has_passed_ = true;
    last_passed_ = now;
    return true;
  }

  Duration window() const { return window_; }
  bool has_passed() const { return has_passed_; }
  Instant last_passed() const { return last_passed_; }

 private:
  Duration window_;
  bool has_passed_ = false;
  Instant last_passed_;
};

}  // namespace weft
