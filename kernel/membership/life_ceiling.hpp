// The highest life a node finds plausible: its estimate of the wall clock,
// in ms, plus an allowance for clock skew.
//
// Model. A member alone takes its lives, and refutes a newer life claimed
// of it by taking one above the claim (kernel_membership.cpp). The claim
// sets how far it must go: bounded only by max_incarnation_jump (2^40), a
// peer that kept claiming made its victim climb by whatever it claimed, at
// one new life a gossip_interval (issue 43, case 7: 50 claims in 10 s, each
// 1000 above, raised n2's incarnation by 50,002; each 2^30 above, by 50 *
// 2^30).
//
// weftd's incarnations are start times in ms, so an honest life is never
// far above the wall clock: a new start reads the clock, and a refutation
// goes one above a claim that was itself plausible. A node knows the clock
// without reading one (the kernel reads none): its driver tells it the wall
// time at its start (Config::start_wall_ms), and the kernel adds the
// monotonic time it has run since. A life above that estimate plus
// `skew` (Config::incarnation_clock_skew) is implausible: refused in gossip
// and in a hello at every node, and never refuted by its subject, as a jump
// past max_incarnation_jump is. So a forger can push a member at most to
// the clock plus the skew, once; from there its refutations rise no faster
// than the clock: a member's incarnation grows at most as fast as the clock,
// plus the skew. The cost: a node whose clock runs ahead of a peer's by more
// than the skew is refused by that peer (implausible_incarnation) until the
// clocks agree, which the log says.
//
// Off (start_wall_ms 0): the simulator, whose lives count from 1 unless a
// scenario file sets `wall-clock`, and drivers that take incarnations from
// anything but the clock.
#pragma once

#include <cstdint>
#include <optional>

#include "kernel/time.hpp"

namespace weft {

class LifeCeiling {
 public:
  // `start_wall_ms`: the wall clock in ms when the node started (0: off).
  LifeCeiling(std::uint64_t start_wall_ms, Duration skew);

  // The node's first instant: the monotonic time `start_wall_ms` was read at.
  void start(Instant now) { started_ = now; }
  // The highest plausible incarnation at `now`, none when off or not started.
  std::optional<std::uint64_t> at(Instant now) const;
  // True if `incarnation` is plausible at `now` (always, when off).
  bool allows(std::uint64_t incarnation, Instant now) const;

 private:
  std::uint64_t start_wall_ms_;
  std::uint64_t skew_ms_;
  std::optional<Instant> started_;
};

}  // namespace weft
