// Kernel micro-benchmarks (docs/benchmarks.md, harness 1): the phi detector's
// heartbeat + phi query, the liveness throttle's observe, and member-table
// merges at N = 5, 100 and 1000, each next to a baseline measured in the same
// run:
//   phi_*            vs baseline_phi_formula: the bare formula (one exp, one
//                    log10) on the same inputs, the floor of any phi query;
//   throttle_*       vs baseline_instant_step: the loop advancing the clock;
//   member_merge_*   vs baseline_table_equal (identical tables: the least work
//                    that can tell "no news") and baseline_table_copy
//                    (differing tables: each op restores the target by a copy
//                    assignment before merging, and this is that copy alone).
//
// Every benchmark reports allocs/op (bench/alloc_counter.hpp: operator new
// is replaced and counted), read before and after the timed loop.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/alloc_counter.hpp"
#include "kernel/detection/liveness_throttle.hpp"
#include "kernel/detection/phi_detector.hpp"
#include "kernel/membership/member_table.hpp"

namespace {

using weft::Duration;
using weft::Instant;
using weft::bench::allocations;
using weft::bench::report_allocations;

// --- Phi detector ---------------------------------------------------------------

// A detector in steady state: Akka's defaults, the window full (1000
// samples) of heartbeats 1 s apart with a little jitter.
struct SteadyDetector {
  weft::PhiDetector detector{weft::PhiParameters{}};
  Instant now = Instant::epoch();
  std::uint32_t step = 0;

  SteadyDetector() {
    for (int i = 0; i < 1100; ++i) detector.heartbeat(next());
  }
  // The next heartbeat: 1 s plus a jitter cycling through -3..+3 ms.
  Instant next() {
    now += Duration::milliseconds(1000 + static_cast<std::int64_t>(step++ % 7) - 3);
    return now;
  }
};

// One op = one heartbeat (which itself asks phi whether to learn the
// interval) plus one phi query 500 ms later, as the kernel's tick would.
void phi_heartbeat_and_query(benchmark::State& state) {
  SteadyDetector s;
  double sum = 0;
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    const Instant t = s.next();
    s.detector.heartbeat(t);
    sum += s.detector.phi(t + Duration::milliseconds(500));
  }
  report_allocations(state, before);
  benchmark::DoNotOptimize(sum);
  if (s.detector.sample_count() != 1000 || !(sum >= 0)) state.SkipWithError("detector not in steady state");
  state.SetItemsProcessed(state.iterations());
}

void phi_heartbeat(benchmark::State& state) {
  SteadyDetector s;
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    s.detector.heartbeat(s.next());
    benchmark::ClobberMemory();
  }
  report_allocations(state, before);
  state.SetItemsProcessed(state.iterations());
}

// One op = one phi query at an elapsed time that varies (0..4.6 s), so the
// exp and log10 see different arguments.
void phi_query(benchmark::State& state) {
  SteadyDetector s;
  const Instant last = s.detector.last_heartbeat();
  std::int64_t elapsed_ms = 0;
  double sum = 0;
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    elapsed_ms = elapsed_ms == 4600 ? 0 : elapsed_ms + 1;
    sum += s.detector.phi(last + Duration::milliseconds(elapsed_ms));
  }
  report_allocations(state, before);
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
}

// Baseline: the formula alone (PhiDetector::phi_of) on the same elapsed times
// with the mean and sigma fixed.
void baseline_phi_formula(benchmark::State& state) {
  std::int64_t elapsed_ms = 0;
  double sum = 0;
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    elapsed_ms = elapsed_ms == 4600 ? 0 : elapsed_ms + 1;
    sum += weft::PhiDetector::phi_of(static_cast<double>(elapsed_ms) * 1e6, 4e9, 1e8);
  }
  report_allocations(state, before);
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
}

// --- Liveness throttle ------------------------------------------------------------

// One op = one frame; frames `gap_us` apart. 1 us: a flood, almost every
// frame suppressed; 60 ms: every frame passes.
void throttle_observe(benchmark::State& state, std::int64_t gap_us) {
  weft::LivenessThrottle throttle;
  Instant now = Instant::epoch();
  const Duration gap = Duration::microseconds(gap_us);
  std::int64_t passed = 0;
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    now += gap;
    passed += throttle.observe(now) ? 1 : 0;
    benchmark::DoNotOptimize(passed);
  }
  report_allocations(state, before);
  state.counters["passed"] =
      benchmark::Counter(static_cast<double>(passed), benchmark::Counter::kAvgIterations);
  state.SetItemsProcessed(state.iterations());
}

// Baseline: the same loop advancing the clock, without the throttle.
void baseline_instant_step(benchmark::State& state, std::int64_t gap_us) {
  Instant now = Instant::epoch();
  const Duration gap = Duration::microseconds(gap_us);
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    now += gap;
    benchmark::DoNotOptimize(now);
  }
  report_allocations(state, before);
  state.SetItemsProcessed(state.iterations());
}

// --- Member table merge -------------------------------------------------------------

// N members 10.x.y.z:7000, incarnation 1, up (hosts fit the small-string
// buffer, as IPv4 literals do).
weft::MemberTable table_of_size(std::size_t n) {
  weft::MemberTable t;
  for (std::size_t i = 0; i < n; ++i) {
    weft::Member m;
    m.id.address.host = "10.0." + std::to_string(i / 256) + "." + std::to_string(i % 256);
    m.id.address.port = 7000;
    m.id.incarnation = weft::Incarnation{1};
    m.status = weft::MemberStatus::up;
    t.merge(m);
  }
  return t;
}

// The same table with every tenth record (at least one) moved on: a
// leaving, a down or a new incarnation, in turn.
weft::MemberTable with_news(const weft::MemberTable& base) {
  weft::MemberTable t = base;
  std::size_t k = 0;
  for (std::size_t i = 0; i < base.size(); i += 10, ++k) {
    weft::Member m = base.members()[i];
    if (k % 3 == 0) m.status = weft::MemberStatus::leaving;
    if (k % 3 == 1) m.status = weft::MemberStatus::down;
    if (k % 3 == 2) m.id.incarnation = weft::Incarnation{2};
    t.merge(m);
  }
  return t;
}

std::size_t differing_records(const weft::MemberTable& a, const weft::MemberTable& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) if (!(a.members()[i] == b.members()[i])) ++n;
  return n;
}

// One op = merging an identical table (the steady state of gossip): the
// fast path finds no news and changes nothing.
void member_merge_identical(benchmark::State& state, std::size_t n) {
  weft::MemberTable mine = table_of_size(n);
  const weft::MemberTable theirs = mine;
  bool changed = false;
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    changed |= mine.merge(theirs);
    benchmark::DoNotOptimize(mine);
  }
  report_allocations(state, before);
  if (changed || !(mine == theirs)) state.SkipWithError("identical merge changed the table");
  state.counters["members"] = static_cast<double>(n);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

// Baseline for identical tables: comparing them for equality.
void baseline_table_equal(benchmark::State& state, std::size_t n) {
  const weft::MemberTable a = table_of_size(n);
  const weft::MemberTable b = a;
  bool equal = true;
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    equal &= a == b;
    benchmark::DoNotOptimize(equal);
  }
  report_allocations(state, before);
  if (!equal) state.SkipWithError("tables differ");
  state.counters["members"] = static_cast<double>(n);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

// One op = restore the target (copy assignment, reusing capacity) and merge a
// table differing in ~10% of records: the full merge path.
void member_merge_news(benchmark::State& state, std::size_t n) {
  const weft::MemberTable base = table_of_size(n);
  const weft::MemberTable theirs = with_news(base);
  weft::MemberTable mine = base;
  for (int i = 0; i < 2; ++i) {  // warm: the two buffers merge swaps between reach full size
    mine = base;
    mine.merge(theirs);
  }
  bool all_changed = true;
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    mine = base;
    all_changed &= mine.merge(theirs);
    benchmark::DoNotOptimize(mine);
  }
  report_allocations(state, before);
  if (!all_changed || !(mine == theirs)) state.SkipWithError("merge lost the news");
  state.counters["members"] = static_cast<double>(n);
  state.counters["differing"] = static_cast<double>(differing_records(base, theirs));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

// Baseline for differing tables: the copy assignment alone.
void baseline_table_copy(benchmark::State& state, std::size_t n) {
  const weft::MemberTable base = table_of_size(n);
  weft::MemberTable mine = with_news(base);
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    mine = base;
    benchmark::DoNotOptimize(mine);
  }
  report_allocations(state, before);
  state.counters["members"] = static_cast<double>(n);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

// Digest of a table: what two nodes compare before deciding to gossip.
void member_digest(benchmark::State& state, std::size_t n) {
  const weft::MemberTable t = table_of_size(n);
  std::uint64_t sum = 0;
  const std::uint64_t before = allocations();
  for (auto _ : state) sum += t.digest();
  report_allocations(state, before);
  benchmark::DoNotOptimize(sum);
  state.counters["members"] = static_cast<double>(n);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  benchmark::RegisterBenchmark("phi_heartbeat_and_query", phi_heartbeat_and_query);
  benchmark::RegisterBenchmark("phi_heartbeat", phi_heartbeat);
  benchmark::RegisterBenchmark("phi_query", phi_query);
  benchmark::RegisterBenchmark("baseline_phi_formula", baseline_phi_formula);

  for (const auto& [label, gap_us] : {std::pair<const char*, std::int64_t>{"flood_1us", 1},
                                      std::pair<const char*, std::int64_t>{"sparse_60ms", 60'000}}) {
    benchmark::RegisterBenchmark((std::string("throttle_observe/") + label).c_str(), throttle_observe,
                                 gap_us);
    benchmark::RegisterBenchmark((std::string("baseline_instant_step/") + label).c_str(),
                                 baseline_instant_step, gap_us);
  }

  for (const std::size_t n : {std::size_t{5}, std::size_t{100}, std::size_t{1000}}) {
    // Appended piece by piece: `"x" + std::string` (operator+ prepending into the
    // temporary) draws a false -Wrestrict from gcc 12 at -O3 (GCC bug 105329).
    std::string suffix = "/";
    suffix += std::to_string(n);
    benchmark::RegisterBenchmark(("member_merge_identical" + suffix).c_str(), member_merge_identical, n);
    benchmark::RegisterBenchmark(("baseline_table_equal" + suffix).c_str(), baseline_table_equal, n);
    benchmark::RegisterBenchmark(("member_merge_news" + suffix).c_str(), member_merge_news, n);
    benchmark::RegisterBenchmark(("baseline_table_copy" + suffix).c_str(), baseline_table_copy, n);
    benchmark::RegisterBenchmark(("member_digest" + suffix).c_str(), member_digest, n);
  }

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
