// The local tell path as the benchmarks' common baseline: one node's kernel
// with room for a whole batch, a receiver doing the least work there is,
// and the loop that tells it. weft_bench_messaging measures it for itself;
// weft_bench_typed and weft_bench_shard run it in the same binary as what
// they compare against it (docs/benchmarks.md: ratios are same-run).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <span>

#include "bench/alloc_counter.hpp"
#include "kernel/kernel.hpp"

namespace weft::bench {

inline constexpr int kTellBatch = 1024;

// 10.0.0.1:7000, a mailbox and a dispatch step that hold a whole batch.
inline Config local_config() {
  Config config;
  config.self = NodeAddress{"10.0.0.1", 7000};
  config.cluster_name = "bench";
  config.mailbox_capacity = 1 << 16;
  config.dispatch_budget = 1 << 16;
  config.dispatch_batch = 1 << 16;
  return config;
}

// Adds each message's body length to a total.
class SizeCounter final : public Behavior {
 public:
  explicit SizeCounter(std::uint64_t* count) : count_(count) {}
  void receive(Context&, const Delivery& m) override { *count_ += m.body.size(); }

 private:
  std::uint64_t* count_;
};

// Per iteration: kTellBatch tells of `body` (tag `tag`) from the driver to
// a SizeCounter on a fresh node, then one dispatch step. Reports
// allocations and items per message; a message lost fails the run.
inline void local_tells(benchmark::State& state, std::uint32_t tag, std::span<const std::uint8_t> body) {
  Kernel kernel(local_config(), 1);
  const Instant now = Instant::from_ns(1'000'000'000);
  std::uint64_t received = 0;
  const ActorRef target = kernel.spawn(now, "counter", std::make_unique<SizeCounter>(&received));
  AllocationScope allocations(state);
  for (auto _ : state) {
    for (int i = 0; i < kTellBatch; ++i) kernel.tell(now, target, tag, body);
    kernel.handle_tick(now);
  }
  allocations.report(kTellBatch);
  if (received != static_cast<std::uint64_t>(state.iterations()) * kTellBatch * body.size()) {
    state.SkipWithError("lost messages");
  }
  state.SetItemsProcessed(state.iterations() * kTellBatch);
}

}  // namespace weft::bench
