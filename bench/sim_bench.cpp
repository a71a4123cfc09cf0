// Simulator speed (docs/benchmarks.md, harness 8): simulated events per second
// and the time-compression factor (simulated seconds per wall second) of
// sim::Simulator, for N = 5, 100 and 1000 nodes booting together (a join
// storm: every node starts at the same instant and joins through the seeds)
// and running 60 simulated seconds; and a 5-node, 60 s run with a user
// message flood (20 tells of 256 B from node 1 to a sink actor on node 2
// every 10 ms).
//
// Baseline, measured in the same run: baseline_event_queue/N pushes and pops
// exactly as many events as sim_boot/N processed, through a bare
// std::priority_queue of (time, sequence)-ordered event records held at the
// queue depth the simulator itself had, with nothing done per event. It is
// the floor of any discrete-event simulator on this machine: the ratio
// column says what fraction of the simulator's time per event a bare queue
// would take, i.e. how much the kernels and the network model cost on top.
//
// One op = one whole run (construct, boot, 60 simulated seconds); the
// simulator is destroyed outside the timed region. Counters:
//   events       events processed in one run (the same every repetition:
//                the run is deterministic)
//   events/s     events processed per wall second
//   compression  simulated seconds per wall second (the time-compression
//                factor; 60 s simulated / run time)
// Times are wall-clock (UseRealTime): the goals are stated in wall time, and
// a run is single-threaded, so on an idle machine wall and CPU time agree.
//   delivered    (flood) user messages the sink received in one run
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <memory>
#include <queue>
#include <vector>

#include "bench/alloc_counter.hpp"
#include "kernel/prng.hpp"
#include "sim/simulator.hpp"

namespace {

using weft::Duration;
using weft::Instant;

constexpr std::uint64_t kSeed = 42;
constexpr std::int64_t kSimulatedSeconds = 60;

// What each sim_boot/N run measured, for the baseline of the same N.
struct RunShape {
  std::uint64_t events = 0;
  std::size_t pending = 0;  // queue depth at the end of the run
};
std::map<std::size_t, RunShape>& shapes() {
  static std::map<std::size_t, RunShape> s;
  return s;
}

weft::sim::SimOptions options_for(std::size_t nodes) {
  weft::sim::SimOptions options;
  options.seed = kSeed;
  options.nodes = nodes;
  return options;
}

RunShape run_once(std::size_t nodes) {
  weft::sim::Simulator sim(options_for(nodes));
  sim.run_for(Duration::seconds(kSimulatedSeconds));
  return RunShape{sim.events_processed(), sim.events_pending()};
}

void report_rates(benchmark::State& state, std::uint64_t events_per_run) {
  const auto runs = static_cast<double>(state.iterations());
  state.counters["events"] = benchmark::Counter(static_cast<double>(events_per_run));
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events_per_run) * runs, benchmark::Counter::kIsRate);
  state.counters["compression"] =
      benchmark::Counter(static_cast<double>(kSimulatedSeconds) * runs, benchmark::Counter::kIsRate);
  state.SetItemsProcessed(static_cast<std::int64_t>(events_per_run) * state.iterations());
}

// N nodes boot at the same instant and run for 60 simulated seconds.
void sim_boot(benchmark::State& state) {
  const auto nodes = static_cast<std::size_t>(state.range(0));
  RunShape shape;
  weft::bench::AllocationScope allocations(state);
  for (auto _ : state) {
    auto sim = std::make_unique<weft::sim::Simulator>(options_for(nodes));
    sim->run_for(Duration::seconds(kSimulatedSeconds));
    shape = RunShape{sim->events_processed(), sim->events_pending()};
    state.PauseTiming();
    sim.reset();
    state.ResumeTiming();
  }
  allocations.report(static_cast<std::int64_t>(shape.events));
  shapes()[nodes] = shape;
  report_rates(state, shape.events);
}
BENCHMARK(sim_boot)->Arg(5)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(sim_boot)->Arg(100)->Unit(benchmark::kMillisecond)->UseRealTime();
// One run, once: minutes (bench/run sim leaves it out unless WEFT_BENCH_SIM_1000=1).
BENCHMARK(sim_boot)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1)->Repetitions(1);

// An event record like the simulator's own: time, sequence and the fields
// a handler dispatches on.
struct BareEvent {
  Instant at;
  std::uint64_t seq = 0;
  std::uint64_t connection = 0;
  std::uint64_t life = 0;
  std::uint32_t node = 0;
  std::uint8_t kind = 0;
};
struct BareLater {
  bool operator()(const BareEvent& a, const BareEvent& b) const {
    if (a.at != b.at) return a.at > b.at;
    return a.seq > b.seq;
  }
};

// The same number of events as sim_boot/N, through a bare priority queue
// holding as many pending events as the simulator did: each pop schedules
// one new event 0..1 ms later (seeded), and touches nothing else.
void baseline_event_queue(benchmark::State& state) {
  const auto nodes = static_cast<std::size_t>(state.range(0));
  if (shapes().count(nodes) == 0) shapes()[nodes] = run_once(nodes);
  const RunShape shape = shapes()[nodes];
  weft::Prng prng(kSeed);
  std::uint64_t checksum = 0;
  for (auto _ : state) {
    std::priority_queue<BareEvent, std::vector<BareEvent>, BareLater> queue;
    std::uint64_t seq = 0;
    const Instant start = weft::sim::Simulator::kStart;
    for (std::size_t i = 0; i < shape.pending + 1; ++i) {
      queue.push(BareEvent{start + Duration::nanoseconds(static_cast<std::int64_t>(prng.below(1'000'000))),
                           seq++, i, 0, static_cast<std::uint32_t>(i % nodes), 0});
    }
    for (std::uint64_t i = 0; i < shape.events; ++i) {
      const BareEvent top = queue.top();
      queue.pop();
      checksum += top.connection ^ top.node;
      const std::int64_t delay = static_cast<std::int64_t>(prng.below(1'000'000));
      queue.push(BareEvent{top.at + Duration::nanoseconds(delay), seq++, top.connection, top.life + 1,
                           top.node, static_cast<std::uint8_t>(i & 3)});
    }
    benchmark::DoNotOptimize(queue.top());
  }
  benchmark::DoNotOptimize(checksum);
  report_rates(state, shape.events);
}
BENCHMARK(baseline_event_queue)->Arg(5)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(baseline_event_queue)->Arg(100)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(baseline_event_queue)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

// A sink actor: counts what it receives.
class Sink final : public weft::Behavior {
 public:
  explicit Sink(std::uint64_t* received) : received_(received) {}
  void receive(weft::Context&, const weft::Delivery& message) override {
    if (message.body.size() == kBodyBytes) ++*received_;
  }
  static constexpr std::size_t kBodyBytes = 256;

 private:
  std::uint64_t* received_;
};

// Every 10 ms, node 1 tells the sink on node 2 kBurst messages of 256 B,
// for the whole run; the chain reschedules itself with call_at.
struct Flood {
  static constexpr int kBurst = 20;
  static constexpr Duration kEvery = Duration::milliseconds(10);

  weft::sim::Simulator* sim = nullptr;
  weft::ActorRef sink;
  std::vector<std::uint8_t> body = std::vector<std::uint8_t>(Sink::kBodyBytes, 0xa5);
  Instant end;
  std::uint64_t sent = 0;

  void burst() {
    sim->command(1, [&](weft::Kernel& kernel, Instant now) {
      for (int i = 0; i < kBurst; ++i) {
        if (kernel.tell(now, sink, 7, body) == weft::SendResult::sent) ++sent;
      }
    });
    const Instant next = sim->now() + kEvery;
    if (next <= end) sim->call_at(next, [this] { burst(); });
  }
};

void sim_flood(benchmark::State& state) {
  constexpr std::size_t kNodes = 5;
  std::uint64_t events = 0;
  std::uint64_t received = 0;
  std::uint64_t sent = 0;
  weft::bench::AllocationScope allocations(state);
  for (auto _ : state) {
    received = 0;
    Flood flood;
    weft::sim::SimOptions options = options_for(kNodes);
    options.on_start = [&received](std::size_t node, weft::Kernel& kernel, Instant now) {
      if (node == 2) kernel.spawn(now, "sink", std::make_unique<Sink>(&received));
    };
    auto sim = std::make_unique<weft::sim::Simulator>(std::move(options));
    flood.sim = sim.get();
    flood.sink = weft::ActorRef{sim->address(2), "sink"};
    flood.end = sim->now() + Duration::seconds(kSimulatedSeconds);
    sim->call_at(sim->now(), [&flood] { flood.burst(); });
    sim->run_for(Duration::seconds(kSimulatedSeconds));
    events = sim->events_processed();
    sent = flood.sent;
    state.PauseTiming();
    sim.reset();
    state.ResumeTiming();
  }
  allocations.report(static_cast<std::int64_t>(events));
  // Node 1 can tell only once it knows node 2 as a member (about 1 s in);
  // everything told must arrive but the last few milliseconds' worth.
  if (sent < 100'000 || received + 2000 < sent) state.SkipWithError("the flood did not get through");
  state.counters["sent"] = benchmark::Counter(static_cast<double>(sent));
  state.counters["delivered"] = benchmark::Counter(static_cast<double>(received));
  report_rates(state, events);
}
BENCHMARK(sim_flood)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
