// Allocation counting for the benchmark binaries: alloc_counter.cpp replaces
// the global operator new of any binary it is linked into and counts calls,
// so a benchmark can report allocations per operation next to its time, and
// tracks the bytes they hold, so one can report memory per object.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>

namespace weft::bench {

// Allocations made by this process so far.
std::uint64_t allocations();
// Bytes the heap holds for this process's operator new blocks now (usable
// sizes: the allocator's rounding included, its per-block header not).
std::int64_t live_bytes();

// Call right after the timed loop with allocations() taken right before it;
// reports allocs/op per iteration.
void report_allocations(benchmark::State& state, std::uint64_t before);

// Counts from construction to report(); `items_per_iteration` divides the
// count when one iteration handles many items (allocs per item).
class AllocationScope {
 public:
  explicit AllocationScope(benchmark::State& state) : state_(state), before_(allocations()) {}
  void report(std::int64_t items_per_iteration) {
    const double during = static_cast<double>(allocations() - before_);
    const double items = static_cast<double>(state_.iterations()) * static_cast<double>(items_per_iteration);
    state_.counters["allocs/op"] = benchmark::Counter(items > 0 ? during / items : 0.0);
  }

 private:
  benchmark::State& state_;
  std::uint64_t before_;
};

}  // namespace weft::bench
