// xoshiro256** seeded by splitmix64, and the integer-only distributions
// drawn from it (the model is in prng.hpp).
#include "kernel/prng.hpp"

#include <bit>

#include "kernel/int128.hpp"

namespace weft {
namespace {

constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// Bits of fraction kept by exponential(): error below 1e-6 relative, far
// inside any latency model's noise, at a third of the cost of 32 bits.
constexpr unsigned kLogFractionBits = 20;
// ln(2) in Q32, rounded: 0.693147180559945 * 2^32.
constexpr std::uint64_t kLn2Q32 = 2977044472ULL;

}  // namespace

Prng::Prng(std::uint64_t seed) {
  // splitmix64 as the seeding generator, as xoshiro's authors recommend: it
  // never yields the all-zero state xoshiro cannot leave.
  std::uint64_t s = seed;
  for (auto& word : state_) {
    word = mix64(s);
    s += 0x9E3779B97F4A7C15ULL;
  }
  WEFT_ASSERT((state_[0] | state_[1] | state_[2] | state_[3]) != 0);
}

Prng Prng::derive(std::uint64_t seed, std::uint64_t stream) {
  return Prng(mix64(seed ^ mix64(stream ^ 0x5EEDF00DCAFEULL)));
}

std::uint64_t Prng::next_u64() {
  const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
  const std::uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return result;
}

std::uint64_t Prng::below(std::uint64_t bound) {
  WEFT_ASSERT(bound > 0);
  // Lemire, "Fast Random Integer Generation in an Interval" (2019).
  uint128 product = static_cast<uint128>(next_u64()) * bound;
  auto low = static_cast<std::uint64_t>(product);
  if (low < bound) {
    const std::uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      product = static_cast<uint128>(next_u64()) * bound;
      low = static_cast<std::uint64_t>(product);
    }
  }
  const auto result = static_cast<std::uint64_t>(product >> 64);
  WEFT_ASSERT(result < bound);
  return result;
}

std::int64_t Prng::between(std::int64_t low, std::int64_t high) {
  WEFT_ASSERT(low <= high);
  const std::uint64_t span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  const std::uint64_t offset = span == UINT64_MAX ? next_u64() : below(span + 1);
  const auto result = static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + offset);
  WEFT_ASSERT(low <= result);
  WEFT_ASSERT(result <= high);
  return result;
}

bool Prng::chance(Ratio probability) {
  WEFT_ASSERT(probability.valid());
  if (probability.numerator == 0) return false;
  if (probability.numerator == probability.denominator) return true;
  return below(probability.denominator) < probability.numerator;
}

Duration Prng::uniform(Duration low, Duration high) {
  return Duration::nanoseconds(between(low.ns(), high.ns()));
}

std::uint64_t log2_fixed(std::uint64_t x, unsigned fraction_bits) {
  WEFT_ASSERT(x > 0);
  WEFT_ASSERT(fraction_bits <= 32);
  const int leading = std::countl_zero(x);
  const auto integer_part = static_cast<std::uint64_t>(63 - leading);
  // Mantissa in Q2.62: [2^62, 2^63) stands for [1, 2).
  std::uint64_t mantissa = (x << leading) >> 1;
  std::uint64_t fraction = 0;
  for (unsigned bit = 0; bit < fraction_bits; ++bit) {
    const uint128 square = static_cast<uint128>(mantissa) * mantissa;
    mantissa = static_cast<std::uint64_t>(square >> 62);
    // The square reached [2, 4) iff its top bit is set: then this bit is 1
    // and the mantissa is halved back into [1, 2). Branchless: the bit is
    // random, so a branch here mispredicts half the time (127 ns a draw
    // with it, 33 ns without; the results are the same).
    const std::uint64_t top = mantissa >> 63;
    fraction = (fraction << 1) | top;
    mantissa >>= top;
  }
  // The mantissa stayed in [1, 2), and the fraction fits its bits, so it
  // never carries into the integer part.
  WEFT_ASSERT(mantissa >> 62 == 1);
  WEFT_ASSERT(fraction >> fraction_bits == 0);
  return (integer_part << fraction_bits) | fraction;
}

Duration Prng::exponential(Duration mean) {
  WEFT_ASSERT(mean >= Duration::zero());
  // u in (0, 2^64); -ln(u / 2^64) = ln2 * (64 - log2 u).
  const std::uint64_t u = next_u64() | 1;
  const std::uint64_t neg_log2 = (64ULL << kLogFractionBits) - log2_fixed(u, kLogFractionBits);
  const uint128 scaled = static_cast<uint128>(neg_log2) * kLn2Q32;  // Q(F+32)
  const uint128 ns =
      (scaled * static_cast<std::uint64_t>(mean.ns())) >> (kLogFractionBits + 32);
  // The cap the header promises: 64 ln 2 = 44.36 x mean, so a draw never
  // overflows a Duration unless the mean is years long.
  WEFT_ASSERT(ns * 100 <= static_cast<uint128>(mean.ns()) * 4437);
  WEFT_ASSERT(ns <= static_cast<uint128>(INT64_MAX));
  return Duration::nanoseconds(static_cast<std::int64_t>(ns));
}

Duration Prng::normal(Duration mean, Duration stddev) {
  WEFT_ASSERT(stddev >= Duration::zero());
  // Twelve U[0,1) summed have mean 6 and variance 1; in Q32 each is a 32-bit half.
  std::int64_t sum_q32 = 0;
  for (int i = 0; i < 6; ++i) {
    const std::uint64_t word = next_u64();
    sum_q32 += static_cast<std::int64_t>(word >> 32) + static_cast<std::int64_t>(word & 0xFFFFFFFFULL);
  }
  const std::int64_t z_q32 = sum_q32 - (std::int64_t{6} << 32);
  // Bounded at +-6 stddev, as the header promises.
  WEFT_ASSERT(z_q32 >= -(std::int64_t{6} << 32));
  WEFT_ASSERT(z_q32 <= (std::int64_t{6} << 32));
  const int128 offset = (static_cast<int128>(z_q32) * stddev.ns()) >> 32;
  return mean + Duration::nanoseconds(static_cast<std::int64_t>(offset));
}

}  // namespace weft
