// The phi-accrual detector's window, statistics and trip time (the model is
// in phi_detector.hpp).
#include "kernel/detection/phi_detector.hpp"

#include <algorithm>
#include <cmath>

namespace weft {

double PhiDetector::threshold_y(double threshold) {
  WEFT_ASSERT(threshold > 0);  // phi is 0 at y = -100, where the search starts
  double low = -100;  // phi ~ 0
  double high = 100;  // phi far above any threshold
  for (int i = 0; i < 200; ++i) {
    const double mid = (low + high) / 2;
    if (phi_of(mid, 0.0, 1.0) < threshold) low = mid; else high = mid;
  }
  // The bisection keeps the threshold between its ends: at `high` phi has
  // reached it (so available() is false from the trip time on), at `low` not.
  WEFT_ASSERT(phi_of(high, 0.0, 1.0) >= threshold);
  WEFT_ASSERT(phi_of(low, 0.0, 1.0) < threshold);
  return high;
}

PhiDetector::PhiDetector(const PhiParameters& parameters)
    : parameters_(parameters), threshold_y_(threshold_y(parameters.threshold)) {
  WEFT_ASSERT(parameters.threshold > 0);
  WEFT_ASSERT(parameters.max_sample_size >= 2);
  WEFT_ASSERT(parameters.first_heartbeat_estimate > Duration::zero());
  WEFT_ASSERT(parameters.min_std_deviation > Duration::zero());
}

void PhiDetector::record_interval(std::int64_t interval_ns) {
  WEFT_ASSERT(interval_ns >= 0);
  const auto square = static_cast<uint128>(interval_ns) * static_cast<std::uint64_t>(interval_ns);
  if (count_ < parameters_.max_sample_size) {
    window_.push_back(interval_ns);
    ++count_;
  } else {
    const std::int64_t evicted = window_[next_];
    sum_ns_ -= evicted;
    sum_squares_ -= static_cast<uint128>(evicted) * static_cast<std::uint64_t>(evicted);
    window_[next_] = interval_ns;
    next_ = (next_ + 1) % parameters_.max_sample_size;
  }
  sum_ns_ += interval_ns;
  sum_squares_ += square;
  ++recorded_;
  WEFT_ASSERT(count_ <= parameters_.max_sample_size);  // the window never exceeds its capacity
  WEFT_ASSERT(sum_ns_ >= 0);  // a sum of non-negative intervals, less those evicted
  update_trip();
}

std::int64_t PhiDetector::recent_interval_ns(std::uint32_t age) const {
  WEFT_ASSERT(age < count_);
  // The two ways of indexing below: the window fills in order, and its ring
  // turns only once full.
  WEFT_ASSERT(window_.size() == count_);
  WEFT_ASSERT(next_ == 0 || count_ == parameters_.max_sample_size);
  const std::uint32_t size = parameters_.max_sample_size;
  const std::int64_t interval =
      count_ < size ? window_[count_ - 1 - age] : window_[(next_ + size - 1 - age) % size];
  WEFT_ASSERT(interval >= 0);  // as record_interval took it in
  return interval;
}

void PhiDetector::update_trip() {
  mean_with_pause_ns_ = mean_ns() + static_cast<double>(parameters_.acceptable_pause.ns());
  sigma_ns_ = std::max(std_deviation_ns(), static_cast<double>(parameters_.min_std_deviation.ns()));
  trip_elapsed_ns_ = mean_with_pause_ns_ + threshold_y_ * sigma_ns_;
  // available() compares against it: a NaN would make every peer look dead.
  WEFT_ASSERT(std::isfinite(trip_elapsed_ns_));
}

void PhiDetector::heartbeat(Instant now) {
  if (!has_heartbeat_) {
    const std::int64_t estimate = parameters_.first_heartbeat_estimate.ns();
    record_interval(estimate - estimate / 4);
    record_interval(estimate + estimate / 4);
    WEFT_ASSERT(count_ >= 2);  // judged against the estimate from the first heartbeat
    has_heartbeat_ = true;
    last_heartbeat_ = now;
    return;
  }
  WEFT_ASSERT(now >= last_heartbeat_);
  if (available(now) && !forgiven_) record_interval((now - last_heartbeat_).ns());
  forgiven_ = false;
  last_heartbeat_ = now;
}

void PhiDetector::forgive_silence(Instant now) {
  if (has_heartbeat_ && now > last_heartbeat_) {
    last_heartbeat_ = now;
    forgiven_ = true;
  }
}

double PhiDetector::mean_ns() const {
  WEFT_ASSERT(count_ > 0);
  return static_cast<double>(sum_ns_) / count_;
}

double PhiDetector::std_deviation_ns() const {
  WEFT_ASSERT(count_ > 0);
  const double mean = mean_ns();
  const double mean_of_squares = static_cast<double>(sum_squares_) / count_;
  return std::sqrt(std::max(0.0, mean_of_squares - mean * mean));
}

double PhiDetector::phi_of(double elapsed_ns, double mean_ns, double std_deviation_ns) {
  const double y = (elapsed_ns - mean_ns) / std_deviation_ns;
  const double e = std::exp(-y * (1.5976 + 0.070566 * y * y));
  if (elapsed_ns > mean_ns) return -std::log10(e / (1.0 + e));
  return -std::log10(1.0 - 1.0 / (1.0 + e));
}

double PhiDetector::phi(Instant now) const {
  if (!has_heartbeat_) return 0.0;
  return phi_of(static_cast<double>((now - last_heartbeat_).ns()), mean_with_pause_ns_, sigma_ns_);
}

}  // namespace weft
