// weft's own pseudo-random generator and the distributions the kernel and
// simulator draw from.
//
// Model: xoshiro256** (Blackman & Vigna, 2018), its 256-bit state filled from
// a 64-bit seed by splitmix64. Every distribution below is integer arithmetic
// on its outputs, written here, so a seed yields the same sequence with any
// compiler, standard library or optimisation level. `std::*_distribution` is
// implementation-defined and must never reach deterministic state.
//
// - below(n): uniform in [0, n), unbiased (Lemire's multiply-and-reject).
// - chance(Ratio): a probability as an exact integer ratio, no floats.
// - exponential(mean): inverse-CDF sampling with a fixed-point log2; result
//   capped at 44.36 x mean (the largest -ln(u) a 64-bit u can give).
// - normal(mean, stddev): Irwin-Hall sum of twelve uniforms, an integer
//   approximation of the normal that is exact in mean and variance and bounded
//   at +-6 stddev (a latency model wants the bound).
#pragma once

#include <array>
#include <cstdint>

#include "kernel/assert.hpp"
#include "kernel/time.hpp"

namespace weft {

// An exact probability numerator/denominator, 0 <= numerator <= denominator.
struct Ratio {
  std::uint64_t numerator = 0;
  std::uint64_t denominator = 1;

  static constexpr Ratio zero() { return {0, 1}; }
  static constexpr Ratio one() { return {1, 1}; }
  static constexpr Ratio percent(std::uint64_t p) { return {p, 100}; }
  constexpr bool valid() const { return denominator > 0 && numerator <= denominator; }
  friend constexpr bool operator==(const Ratio&, const Ratio&) = default;
};

class Prng {
 public:
  explicit Prng(std::uint64_t seed);

  // An independent stream for a named sub-component (a node, a link, a fault
  // kind), so adding draws in one stream never shifts another.
  static Prng derive(std::uint64_t seed, std::uint64_t stream);

  std::uint64_t next_u64();

  // Uniform in [0, bound); bound > 0.
  std::uint64_t below(std::uint64_t bound);
  // Uniform in [low, high], inclusive.
  std::int64_t between(std::int64_t low, std::int64_t high);
  bool chance(Ratio probability);

  Duration uniform(Duration low, Duration high);
  Duration exponential(Duration mean);
  Duration normal(Duration mean, Duration stddev);

  // The raw state, for tests that pin it.
  const std::array<std::uint64_t, 4>& state() const { return state_; }

 private:
  std::array<std::uint64_t, 4> state_{};
};

// splitmix64's output function: a bijective 64-bit mixer, also used to derive
// seeds and to fold values into trace hashes.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
// splitmix64's published first output for seed 0: every trace hash and every
// seeded stream depends on these constants being exactly these.
static_assert(mix64(0) == 0xE220A8397B1DCDAFULL);

// log2(x) in fixed point with `fraction_bits` fractional bits, truncated;
// x > 0. Exposed for its own test.
std::uint64_t log2_fixed(std::uint64_t x, unsigned fraction_bits);

}  // namespace weft
