// Phi-accrual failure detector for one monitored peer (Hayashibara et al.,
// "The phi accrual failure detector", SRDS 2004), with Akka's refinements.
//
// Model. Heartbeat inter-arrival times are kept in a sliding window of at
// most `max_sample_size` samples. Given the time elapsed since the last
// heartbeat,
//
//     phi(elapsed) = -log10( P(an interval is longer than elapsed) )
//
// where intervals are taken as normally distributed with
//     mean  = window mean + acceptable_pause
//     sigma = max(window std-dev, min_std_deviation)
// and the normal tail uses the logistic approximation
// 1 / (1 + exp(-y (1.5976 + 0.070566 y^2))), y = (elapsed - mean) / sigma
// (max error 0.00014 at y = +-3.16). phi = 1 means a 10 % chance the peer is
// merely late, phi = 8 one in 10^8.
//
// Bootstrap: the first heartbeat seeds the window with two samples,
// estimate - estimate/4 and estimate + estimate/4, so a peer heard from only
// once is judged against the configured heartbeat interval.
// An interval that ends while phi is already at or above the threshold is not
// recorded: a failure's gap must not teach the detector that gaps are normal.
// Nor is one that starts at a forgiven silence (forgive_silence): it measures
// the observer's pause, not the peer's heartbeats.
//
// All window state is integer nanoseconds. Since phi grows with
// y = (elapsed - mean) / sigma alone, the decision "phi >= threshold" is
// made once per window change: the threshold's y is solved at construction
// (bisection on the formula itself) and each heartbeat turns it into a trip
// time, so available() is one comparison and no float feeds back into state.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/int128.hpp"
#include "kernel/time.hpp"

namespace weft {

struct PhiParameters {
  double threshold = 8.0;
  Duration min_std_deviation = Duration::milliseconds(100);
  Duration acceptable_pause = Duration::seconds(3);
  std::uint32_t max_sample_size = 1000;
  Duration first_heartbeat_estimate = Duration::seconds(1);
};

class PhiDetector {
 public:
  explicit PhiDetector(const PhiParameters& parameters);

  // Records an observation of the peer at `now` (monotonic across calls).
  void heartbeat(Instant now);
  // Suspicion level at `now`; 0 before the first heartbeat.
  double phi(Instant now) const;
  // phi below the threshold (true before the first heartbeat).
  bool available(Instant now) const {
    return !has_heartbeat_ || static_cast<double>((now - last_heartbeat_).ns()) < trip_elapsed_ns_;
  }
  // How long after the last heartbeat phi reaches the threshold, given the
  // window as it is now.
  double trip_elapsed_ns() const { return trip_elapsed_ns_; }

  bool has_heartbeat() const { return has_heartbeat_; }
  Instant last_heartbeat() const { return last_heartbeat_; }
  // Restarts the silence clock at `now` without recording an interval: used
  // when the observer itself was paused, so its own silence blames nobody.
  void forgive_silence(Instant now);

  std::uint32_t sample_count() const { return count_; }
  // Intervals ever recorded, the two bootstrap samples included (the window
  // keeps the newest sample_count() of them).
  std::uint64_t intervals_recorded() const { return recorded_; }
  // A recorded interval still in the window: age 0 is the newest.
  std::int64_t recent_interval_ns(std::uint32_t age) const;
  // Window statistics in nanoseconds, before the pause allowance and floor.
  double mean_ns() const;
  double std_deviation_ns() const;

  // phi for a given elapsed time, mean and std-dev (all ns): the formula
  // alone, for tables and tests.
  static double phi_of(double elapsed_ns, double mean_ns, double std_deviation_ns);
  // The y = (elapsed - mean) / sigma at which phi reaches `threshold`.
  static double threshold_y(double threshold);

 private:
  void record_interval(std::int64_t interval_ns);
  void update_trip();

  PhiParameters parameters_;
  bool has_heartbeat_ = false;
  Instant last_heartbeat_;
  std::vector<std::int64_t> window_;  // grows to max_sample_size, then a ring buffer
  std::uint32_t next_ = 0;             // slot the next sample overwrites once full
  std::uint32_t count_ = 0;
  std::uint64_t recorded_ = 0;
  bool forgiven_ = false;  // the current interval started at forgive_silence
  std::int64_t sum_ns_ = 0;
  uint128 sum_squares_ = 0;
  double threshold_y_;
  // Cached from the window at each change: mean + pause, floored sigma, and
  // the elapsed time at which phi reaches the threshold.
  double mean_with_pause_ns_ = 0;
  double sigma_ns_ = 1;
  double trip_elapsed_ns_ = 0;
};

}  // namespace weft
