// Time as the kernel sees it: integer nanoseconds in two strong types.
//
// `Instant` is a point on the driver's monotonic clock (the simulator's
// virtual clock or the real driver's steady clock, both counted from the
// driver's own epoch); `Duration` is a signed span. Neither converts
// implicitly to or from an integer or to the other: `Instant + Instant` does
// not compile, and every constant names its unit (`Duration::milliseconds(50)`).
// Overflow is a programmer error: a driver's clock spans centuries of int64
// nanoseconds, so any overflow means a corrupted value, and it asserts.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

#include "kernel/assert.hpp"

namespace weft {

namespace time_detail {
constexpr std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  WEFT_ASSERT(!__builtin_add_overflow(a, b, &sum));
  return sum;
}
constexpr std::int64_t checked_sub(std::int64_t a, std::int64_t b) {
  std::int64_t difference = 0;
  WEFT_ASSERT(!__builtin_sub_overflow(a, b, &difference));
  return difference;
}
constexpr std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  WEFT_ASSERT(!__builtin_mul_overflow(a, b, &product));
  return product;
}
}  // namespace time_detail

class Duration {
 public:
  constexpr Duration() = default;

  static constexpr Duration nanoseconds(std::int64_t n) { return Duration(n); }
  static constexpr Duration microseconds(std::int64_t n) {
    return Duration(time_detail::checked_mul(n, 1'000));
  }
  static constexpr Duration milliseconds(std::int64_t n) {
    return Duration(time_detail::checked_mul(n, 1'000'000));
  }
  static constexpr Duration seconds(std::int64_t n) {
    return Duration(time_detail::checked_mul(n, 1'000'000'000));
  }
  static constexpr Duration zero() { return Duration(0); }
  static constexpr Duration max() { return Duration(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t ns() const { return ns_; }
  // Truncating conversions, for display and for config printing.
  constexpr std::int64_t us() const { return ns_ / 1'000; }
  constexpr std::int64_t ms() const { return ns_ / 1'000'000; }

  constexpr auto operator<=>(const Duration&) const = default;

  constexpr Duration operator+(Duration other) const {
    return Duration(time_detail::checked_add(ns_, other.ns_));
  }
  constexpr Duration operator-(Duration other) const {
    return Duration(time_detail::checked_sub(ns_, other.ns_));
  }
  constexpr Duration operator-() const { return Duration(time_detail::checked_sub(0, ns_)); }
  constexpr Duration operator*(std::int64_t factor) const {
    return Duration(time_detail::checked_mul(ns_, factor));
  }
  constexpr Duration operator/(std::int64_t divisor) const {
    WEFT_ASSERT(divisor != 0);
    WEFT_ASSERT(divisor != -1 || ns_ != std::numeric_limits<std::int64_t>::min());  // overflows
    return Duration(ns_ / divisor);
  }
  // How many whole `other` fit in this duration.
  constexpr std::int64_t operator/(Duration other) const {
    WEFT_ASSERT(other.ns_ != 0);
    WEFT_ASSERT(other.ns_ != -1 || ns_ != std::numeric_limits<std::int64_t>::min());  // overflows
    return ns_ / other.ns_;
  }
  constexpr Duration& operator+=(Duration other) { return *this = *this + other; }
  constexpr Duration& operator-=(Duration other) { return *this = *this - other; }

 private:
  constexpr explicit Duration(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

class Instant {
 public:
  constexpr Instant() = default;

  // The driver's clock reading, in nanoseconds since the driver's epoch.
  static constexpr Instant from_ns(std::int64_t ns_since_epoch) { return Instant(ns_since_epoch); }
  static constexpr Instant epoch() { return Instant(0); }
  // "Never": the deadline of a timer that is not armed.
  static constexpr Instant never() { return Instant(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t ns_since_epoch() const { return ns_; }

  constexpr auto operator<=>(const Instant&) const = default;

  constexpr Instant operator+(Duration d) const {
    return Instant(time_detail::checked_add(ns_, d.ns()));
  }
  constexpr Instant operator-(Duration d) const {
    return Instant(time_detail::checked_sub(ns_, d.ns()));
  }
  constexpr Duration operator-(Instant earlier) const {
    return Duration::nanoseconds(time_detail::checked_sub(ns_, earlier.ns_));
  }
  constexpr Instant& operator+=(Duration d) { return *this = *this + d; }

 private:
  constexpr explicit Instant(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

}  // namespace weft
