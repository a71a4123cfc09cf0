// The real driver's hot path, counted: two weft nodes on loopback TCP in one
// io_context (one thread), node 1 telling node 2's sink 64 B messages.
// Reports messages/s and allocations per message over the steady state, the
// driver and both kernels included (the kernels alone allocate nothing per
// message: weft_bench_messaging). Speed against raw TCP and the peers is
// issue 9's; this harness is here to count.
#include <benchmark/benchmark.h>

#include <asio.hpp>

#include <array>
#include <cstdint>

#include "bench/alloc_counter.hpp"
#include "io/node.hpp"

namespace {

using weft::Duration;

class Sink final : public weft::Behavior {
 public:
  explicit Sink(std::uint64_t* received) : received_(received) {}
  void receive(weft::Context&, const weft::Delivery& message) override {
    if (message.kind == weft::DeliveryKind::tell) ++*received_;
  }

 private:
  std::uint64_t* received_;
};

std::uint16_t free_port() {
  asio::io_context io;
  asio::ip::tcp::acceptor a(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return a.local_endpoint().port();
}

std::unique_ptr<weft::io::Node> make_node(asio::io_context& io, std::uint16_t port, std::uint16_t seed_port) {
  weft::io::NodeOptions options;
  options.config.cluster_name = "bench";
  options.config.self = weft::NodeAddress{"127.0.0.1", port};
  options.config.seeds = {weft::NodeAddress{"127.0.0.1", seed_port}};
  options.bind = asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port);
  options.seed = port;
  return std::make_unique<weft::io::Node>(io, options);
}

void remote_tell_64B_over_loopback(benchmark::State& state) {
  asio::io_context io{1};
  const std::uint16_t p1 = free_port();
  const std::uint16_t p2 = free_port();
  auto n1 = make_node(io, p1, p1);
  auto n2 = make_node(io, p2, p1);
  std::uint64_t received = 0;
  n2->kernel().spawn(n2->now(), "sink", std::make_unique<Sink>(&received));
  std::string error;
  if (!n1->start(error) || !n2->start(error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  const weft::ActorRef sink{weft::NodeAddress{"127.0.0.1", p2}, "sink"};
  const auto both_up = [&] {
    const weft::Member* m = n1->kernel().members().find(sink.node);
    return m != nullptr && m->status == weft::MemberStatus::up && n2->kernel().self_status() == weft::MemberStatus::up;
  };
  for (int i = 0; i < 500 && !both_up(); ++i) io.run_for(std::chrono::milliseconds(10));
  if (!both_up()) {
    state.SkipWithError("the two nodes did not converge in 5 s");
    return;
  }
  const std::vector<std::uint8_t> body(64, 0x5a);
  constexpr int kBatch = 1024;
  std::uint64_t sent = 0;
  const auto batch = [&] {
    for (int i = 0; i < kBatch; ++i) {
      if (n1->kernel().tell(n1->now(), sink, 1, body) == weft::SendResult::sent) ++sent;
    }
    n1->drain();
    // Bounded: a batch that has not arrived in 5 s fails the benchmark.
    for (int spins = 0; received < sent && spins < 500'000; ++spins) io.run_one_for(std::chrono::milliseconds(10));
  };
  for (int warm = 0; warm < 50; ++warm) batch();  // buffers grow to their steady size
  // Socket operations completed and ticks run, both nodes, per batch: one
  // write and a read or two per batch is the shape batching should give.
  const auto io_counts = [&] {
    const weft::io::DriverStats& a = n1->stats();
    const weft::io::DriverStats& b = n2->stats();
    return std::array<std::uint64_t, 4>{a.writes + b.writes, a.reads + b.reads, a.ticks + b.ticks,
                                        a.posted_ticks + b.posted_ticks};
  };
  const auto before = io_counts();
  weft::bench::AllocationScope allocations(state);
  for (auto _ : state) batch();
  allocations.report(kBatch);
  const auto after = io_counts();
  const char* names[] = {"writes/batch", "reads/batch", "timer_ticks/batch", "posted_ticks/batch"};
  for (std::size_t i = 0; i < after.size(); ++i) {
    state.counters[names[i]] =
        benchmark::Counter(static_cast<double>(after[i] - before[i]), benchmark::Counter::kAvgIterations);
  }
  if (received != sent) state.SkipWithError("messages lost");
  state.SetItemsProcessed(state.iterations() * kBatch);
  n1->stop();
  n2->stop();
}
BENCHMARK(remote_tell_64B_over_loopback)->UseRealTime()->MinTime(1.0);

}  // namespace

BENCHMARK_MAIN();
