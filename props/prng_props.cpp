// Properties of weft's PRNG: bounded draws stay in bounds for any bounds,
// equal seeds give equal streams, different streams differ, the latency
// distributions stay inside their documented ranges, and log2_fixed is
// monotone.
//
// Each property is written against a generator type (or a log2 function),
// so it is also aimed at a deliberately broken wrapper of the real Prng
// defined here and shown to fail as that property.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>

#include "catches.hpp"
#include "kernel/prng.hpp"

namespace weft::props {
namespace {

// --- Broken generators. Each forwards to a real Prng except for its flaw.

// Broken on purpose: reads the inclusive upper bound as one past the end,
// so it can return high + 1 (wrapping to the lowest value at INT64_MAX).
class PastTheEndBetween {
 public:
  explicit PastTheEndBetween(std::uint64_t seed) : prng_(seed) {}
  std::int64_t between(std::int64_t low, std::int64_t high) {
    const std::uint64_t span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
    const std::uint64_t offset = span >= UINT64_MAX - 1 ? prng_.next_u64() : prng_.below(span + 2);
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + offset);
  }

 private:
  Prng prng_;
};

// Broken on purpose: every derivation also folds in a process-wide counter,
// as a generator seeded from the clock or std::random_device would: two
// derivations from the same seed and stream differ, so no run replays.
class CounterSeededDerive {
 public:
  static CounterSeededDerive derive(std::uint64_t seed, std::uint64_t stream) {
    static std::uint64_t derivations = 0;
    return CounterSeededDerive(Prng::derive(seed ^ ++derivations, stream));
  }
  std::uint64_t next_u64() { return prng_.next_u64(); }

 private:
  explicit CounterSeededDerive(Prng prng) : prng_(prng) {}
  Prng prng_;
};

// Broken on purpose: derive() ignores its stream, so every node and link
// seeded from one run seed would draw the same numbers.
class StreamBlindDerive {
 public:
  static StreamBlindDerive derive(std::uint64_t seed, std::uint64_t) { return StreamBlindDerive(Prng(seed)); }
  std::uint64_t next_u64() { return prng_.next_u64(); }

 private:
  explicit StreamBlindDerive(Prng prng) : prng_(prng) {}
  Prng prng_;
};

// Broken on purpose: the mean read as microseconds where it is nanoseconds
// (a unit slip at a call site), so draws run a thousand times too long.
class MicrosecondMeanExponential {
 public:
  explicit MicrosecondMeanExponential(std::uint64_t seed) : prng_(seed) {}
  Duration exponential(Duration mean) { return prng_.exponential(mean * 1000); }
  Duration normal(Duration mean, Duration stddev) { return prng_.normal(mean, stddev); }

 private:
  Prng prng_;
};

// Broken on purpose: the same unit slip on the normal's spread.
class MicrosecondSpreadNormal {
 public:
  explicit MicrosecondSpreadNormal(std::uint64_t seed) : prng_(seed) {}
  Duration exponential(Duration mean) { return prng_.exponential(mean); }
  Duration normal(Duration mean, Duration stddev) { return prng_.normal(mean, stddev * 1000); }

 private:
  Prng prng_;
};

// Broken on purpose: the fraction taken from x's lowest bits instead of the
// bits under its leading one, so 2^25 + 2^20 - 1 "exceeds" 2^25 + 2^20.
std::uint64_t low_bits_log2_fixed(std::uint64_t x, unsigned fraction_bits) {
  const auto integer_part = static_cast<std::uint64_t>(63 - std::countl_zero(x));
  const std::uint64_t fraction = x & ((std::uint64_t{1} << fraction_bits) - 1);
  return (integer_part << fraction_bits) | fraction;
}

// --- The properties.

template <class Generator>
void between_stays_in_range() {
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const auto a = *rc::gen::arbitrary<std::int64_t>();
  const auto b = *rc::gen::arbitrary<std::int64_t>();
  const std::int64_t low = std::min(a, b);
  const std::int64_t high = std::max(a, b);
  Generator prng(seed);
  for (int i = 0; i < 20; ++i) {
    const std::int64_t x = prng.between(low, high);
    PROP_ASSERT("PRNG-RANGE", x >= low);
    PROP_ASSERT("PRNG-RANGE", x <= high);
  }
}

template <class Generator>
void same_seed_same_stream() {
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const auto stream = *rc::gen::arbitrary<std::uint64_t>();
  Generator a = Generator::derive(seed, stream);
  Generator b = Generator::derive(seed, stream);
  for (int i = 0; i < 10; ++i) PROP_ASSERT("PRNG-SEED", a.next_u64() == b.next_u64());
}

// Two streams of one seed agreeing on four draws has probability 2^-256
// for the real derive (mix64 is a bijection, so their states differ).
template <class Generator>
void different_streams_differ() {
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const auto stream = *rc::gen::arbitrary<std::uint64_t>();
  const auto other = *rc::gen::suchThat(rc::gen::arbitrary<std::uint64_t>(),
                                        [&](std::uint64_t s) { return s != stream; });
  Generator a = Generator::derive(seed, stream);
  Generator b = Generator::derive(seed, other);
  bool any_differ = false;
  for (int i = 0; i < 4; ++i) any_differ = (a.next_u64() != b.next_u64()) || any_differ;
  PROP_ASSERT("PRNG-STREAMS", any_differ);
}

template <class Generator>
void latency_distributions_stay_in_their_ranges() {
  Generator prng(*rc::gen::arbitrary<std::uint64_t>());
  const Duration mean = Duration::microseconds(*rc::gen::inRange<std::int64_t>(0, 10'000'000));
  const Duration sd = Duration::microseconds(*rc::gen::inRange<std::int64_t>(0, 1'000'000));
  const Duration e = prng.exponential(mean);
  PROP_ASSERT("PRNG-LATENCY", e >= Duration::zero());
  PROP_ASSERT("PRNG-LATENCY", e.ns() <= mean.ns() * 45);
  const Duration n = prng.normal(mean, sd);
  PROP_ASSERT("PRNG-LATENCY", (n - mean) <= sd * 6);
  PROP_ASSERT("PRNG-LATENCY", (mean - n) <= sd * 6);
}

using Log2Function = std::uint64_t (*)(std::uint64_t, unsigned);

void log2_fixed_is_monotone(Log2Function log2) {
  const auto a = *rc::gen::arbitrary<std::uint64_t>();
  const auto b = *rc::gen::arbitrary<std::uint64_t>();
  RC_PRE(a > 0 && b > 0);
  if (a <= b) {
    PROP_ASSERT("PRNG-LOG2", log2(a, 20) <= log2(b, 20));
  } else {
    PROP_ASSERT("PRNG-LOG2", log2(a, 20) >= log2(b, 20));
  }
}

RC_GTEST_PROP(Prng, BetweenStaysInRange, ()) { between_stays_in_range<Prng>(); }

RC_GTEST_PROP(Prng, SameSeedSameStream, ()) { same_seed_same_stream<Prng>(); }

RC_GTEST_PROP(Prng, DifferentStreamsDiffer, ()) { different_streams_differ<Prng>(); }

RC_GTEST_PROP(Prng, LatencyDistributionsStayInTheirRanges, ()) { latency_distributions_stay_in_their_ranges<Prng>(); }

RC_GTEST_PROP(Prng, Log2FixedIsMonotone, ()) { log2_fixed_is_monotone(log2_fixed); }

TEST(PrngCatches, BetweenPastTheEnd) {
  EXPECT_TRUE(fails_as("PRNG-RANGE", "between() reading its upper bound as one past the end",
                       [] { between_stays_in_range<PastTheEndBetween>(); }));
}

TEST(PrngCatches, DeriveFoldingInACounter) {
  EXPECT_TRUE(fails_as("PRNG-SEED", "derive() folding in a process-wide counter",
                       [] { same_seed_same_stream<CounterSeededDerive>(); }));
}

TEST(PrngCatches, DeriveIgnoringItsStream) {
  EXPECT_TRUE(fails_as("PRNG-STREAMS", "derive() ignoring its stream",
                       [] { different_streams_differ<StreamBlindDerive>(); }));
}

TEST(PrngCatches, ExponentialWithTheMeanInTheWrongUnit) {
  EXPECT_TRUE(fails_as("PRNG-LATENCY", "exponential() with its mean read as microseconds",
                       [] { latency_distributions_stay_in_their_ranges<MicrosecondMeanExponential>(); }));
}

TEST(PrngCatches, NormalWithTheSpreadInTheWrongUnit) {
  EXPECT_TRUE(fails_as("PRNG-LATENCY", "normal() with its spread read as microseconds",
                       [] { latency_distributions_stay_in_their_ranges<MicrosecondSpreadNormal>(); }));
}

TEST(PrngCatches, Log2FromTheLowBits) {
  EXPECT_TRUE(fails_as("PRNG-LOG2", "log2_fixed() taking its fraction from the low bits",
                       [] { log2_fixed_is_monotone(low_bits_log2_fixed); }));
}

}  // namespace
}  // namespace weft::props
