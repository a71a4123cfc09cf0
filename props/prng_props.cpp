// Properties of weft's PRNG: bounded draws stay in bounds for any bounds,
// equal seeds give equal streams, and the latency distributions stay inside
// their documented ranges.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "kernel/prng.hpp"

namespace weft::props {
namespace {

RC_GTEST_PROP(Prng, BetweenStaysInRange, (std::uint64_t seed, std::int64_t a, std::int64_t b)) {
  const std::int64_t low = std::min(a, b);
  const std::int64_t high = std::max(a, b);
  Prng prng(seed);
  for (int i = 0; i < 20; ++i) {
    const std::int64_t x = prng.between(low, high);
    RC_ASSERT(x >= low);
    RC_ASSERT(x <= high);
  }
}

RC_GTEST_PROP(Prng, SameSeedSameStream, (std::uint64_t seed, std::uint64_t stream)) {
  Prng a = Prng::derive(seed, stream);
  Prng b = Prng::derive(seed, stream);
  for (int i = 0; i < 10; ++i) RC_ASSERT(a.next_u64() == b.next_u64());
}

RC_GTEST_PROP(Prng, LatencyDistributionsStayInTheirRanges, (std::uint64_t seed)) {
  Prng prng(seed);
  const Duration mean = Duration::microseconds(*rc::gen::inRange<std::int64_t>(0, 10'000'000));
  const Duration sd = Duration::microseconds(*rc::gen::inRange<std::int64_t>(0, 1'000'000));
  const Duration e = prng.exponential(mean);
  RC_ASSERT(e >= Duration::zero());
  RC_ASSERT(e.ns() <= mean.ns() * 45);
  const Duration n = prng.normal(mean, sd);
  RC_ASSERT((n - mean) <= sd * 6);
  RC_ASSERT((mean - n) <= sd * 6);
}

RC_GTEST_PROP(Prng, Log2FixedIsMonotone, (std::uint64_t a, std::uint64_t b)) {
  RC_PRE(a > 0 && b > 0);
  if (a <= b) {
    RC_ASSERT(log2_fixed(a, 20) <= log2_fixed(b, 20));
  } else {
    RC_ASSERT(log2_fixed(a, 20) >= log2_fixed(b, 20));
  }
}

}  // namespace
}  // namespace weft::props
