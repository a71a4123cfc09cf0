// The worked example of testing your own actors (docs/own-actors.md): the
// sharded counter of props/counter/, unchanged user code, under the
// deterministic simulator.
//
//   CounterDirect.*    the workload on a Simulator driven by hand (the hooks
//                      wired in SimOptions, a scripted fault or two): how to
//                      test an actor without a scenario;
//   CounterProperty.*  rapidcheck picks seeds, sim::generate() draws a fault
//                      schedule from each, sim::run() plays it with the
//                      counter workload, and the COUNTER property plus the
//                      cluster's own checks must hold;
//   CounterCatches.*   the same run over a bounded range of seeds with the
//                      deliberately broken shard must fail with a COUNTER line;
//   CounterReplay.*    a seed replays exactly (same trace hash, same summary).
//                      Set WEFT_COUNTER_SEED (and WEFT_COUNTER_NODES,
//                      WEFT_COUNTER_CHAOS, WEFT_COUNTER_FLAW=coalesce) to
//                      replay a failure a property printed, with its timeline.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "kernel/actors/detached_context.hpp"
#include "props/counter/counter_actor.hpp"
#include "props/counter/counter_app.hpp"
#include "props/counter/counter_workload.hpp"
#include "sim/application_actors.hpp"
#include "sim/scenario.hpp"
#include "sim/simulator.hpp"

namespace weft::counter {
namespace {

// --- The actor alone: the protocol, with a context that records replies.

class RecordingContext final : public DetachedContext {
 public:
  const ActorRef& self() const override { return self_; }
  Instant now() const override { return now_; }
  SendResult tell(const ActorRef&, std::uint32_t, std::span<const std::uint8_t>) override {
    return SendResult::sent;
  }
  AskId ask(const ActorRef&, std::uint32_t, std::span<const std::uint8_t>, Duration) override { return 0; }
  SendResult reply(std::uint32_t type_tag, std::span<const std::uint8_t> body) override {
    tags.push_back(type_tag);
    const typed::Decoded<Value> value = CounterProtocol::decode<Value>(type_tag, body);
    keys.push_back(value ? value->key : ~std::uint64_t{0});
    values.push_back(value ? value->count : ~std::uint64_t{0});
    return SendResult::sent;
  }

  std::vector<std::uint32_t> tags;
  std::vector<std::uint64_t> keys;
  std::vector<std::uint64_t> values;
  Instant now_ = Instant::from_ns(1);

 private:
  ActorRef self_{NodeAddress{"10.0.0.1", 7000}, std::string(kShardName)};
};

void send_raw(CounterShard& shard, RecordingContext& context, std::uint32_t tag, std::span<const std::uint8_t> body,
              DeliveryKind kind = DeliveryKind::ask) {
  Delivery d;
  d.kind = kind;
  d.type_tag = tag;
  d.body = body;
  shard.receive(context, d);
}

template <class M>
void send(CounterShard& shard, RecordingContext& context, const M& message, DeliveryKind kind = DeliveryKind::ask) {
  send_raw(shard, context, CounterProtocol::tag<M>, CounterProtocol::encode(message), kind);
}

constexpr std::uint32_t kValue = CounterProtocol::tag<Value>;
constexpr std::uint32_t kBadRequest = CounterProtocol::tag<BadRequest>;

TEST(CounterShardUnit, IncrementsAcknowledgeTheNewCountAndReadsSeeThem) {
  CounterShard shard;
  RecordingContext context;
  send(shard, context, Increment{7});
  send(shard, context, Increment{7});
  send(shard, context, Increment{3});
  send(shard, context, Read{7});
  send(shard, context, Read{99});
  EXPECT_EQ(context.tags, (std::vector<std::uint32_t>{kValue, kValue, kValue, kValue, kValue}));
  EXPECT_EQ(context.keys, (std::vector<std::uint64_t>{7, 7, 3, 7, 99}));
  EXPECT_EQ(context.values, (std::vector<std::uint64_t>{1, 2, 1, 2, 0}));
  EXPECT_EQ(shard.value(7), 2u);
  EXPECT_EQ(owner(7, 5), 3u);
  EXPECT_EQ(owner(10, 5), 1u);
  EXPECT_EQ(shard.dead_letters(), 0u);
}

TEST(CounterShardUnit, TellsAreIgnored) {
  CounterShard shard;
  RecordingContext context;
  send(shard, context, Increment{7}, DeliveryKind::tell);
  EXPECT_TRUE(context.tags.empty());
  EXPECT_EQ(shard.value(7), 0u);
}

TEST(CounterShardUnit, BadAsksAreCountedAndAnsweredBadRequest) {
  CounterShard shard;
  RecordingContext context;
  const std::vector<std::uint8_t> key = CounterProtocol::encode(Increment{7});
  send_raw(shard, context, 42, key);                                     // no such tag
  send_raw(shard, context, kValue, key);                                 // a tag the shard does not take
  const std::vector<std::uint8_t> not_msgpack{0xc1};
  send_raw(shard, context, CounterProtocol::tag<Increment>, not_msgpack);  // not MessagePack
  const std::vector<std::uint8_t> eight_le_bytes{7, 0, 0, 0, 0, 0, 0, 0};  // the untyped counter's body
  send_raw(shard, context, CounterProtocol::tag<Increment>, eight_le_bytes);
  const std::vector<std::uint8_t> a_string = CounterProtocol::encode(BadRequest{"seven"});
  send_raw(shard, context, CounterProtocol::tag<Read>, a_string);          // ["seven"]: not a u64 key
  EXPECT_EQ(context.tags, std::vector<std::uint32_t>(5, kBadRequest));
  EXPECT_EQ(shard.dead_letters(typed::DeadLetterReason::unknown_tag), 1u);
  EXPECT_EQ(shard.dead_letters(typed::DeadLetterReason::unexpected_tag), 1u);
  EXPECT_EQ(shard.dead_letters(typed::DeadLetterReason::malformed_body), 2u);
  EXPECT_EQ(shard.dead_letters(typed::DeadLetterReason::wrong_type), 1u);
  EXPECT_EQ(shard.value(7), 0u);
}

TEST(CounterShardUnit, TheFlawAcknowledgesSameInstantIncrementsWithoutApplyingThem) {
  CounterShard shard(Flaw::coalesce_same_instant);
  RecordingContext context;
  send(shard, context, Increment{7});
  send(shard, context, Increment{7});  // same instant: acked, not applied
  context.now_ = Instant::from_ns(2);
  send(shard, context, Increment{7});
  EXPECT_EQ(context.tags.size(), 3u);
  EXPECT_EQ(shard.value(7), 2u);  // three acks, two applied
}

// --- The workload on a Simulator driven by hand.

// The defects a run plants in the counter application (counter_app.hpp).
std::vector<std::string> planted(Flaw flaw) {
  return flaw == Flaw::none ? std::vector<std::string>{} : std::vector<std::string>{"coalesce_same_instant"};
}

// The application's actors first (they spawn the shards), then the clients:
// the order weft::sim::main runs them in.
class Direct {
 public:
  Direct(std::size_t nodes, std::uint64_t seed, CounterWorkloadOptions options, Flaw flaw = Flaw::none)
      : actors_(app_, planted(flaw)), workload_(options) {
    scenario_.seed = seed;
    scenario_.nodes = nodes;
    sim::SimOptions o;
    o.seed = seed;
    o.nodes = nodes;
    o.network = scenario_.network;
    o.on_start = [this](std::size_t node, Kernel& kernel, Instant now) {
      actors_.on_start(node, kernel, now);
      workload_.on_start(node, kernel, now);
    };
    o.on_event = [this](std::size_t node, const Event& event) { workload_.on_event(node, event); };
    sim_ = std::make_unique<sim::Simulator>(std::move(o));  // boots the nodes: on_start runs here
    start_ = sim_->now();
    workload_.begin(*sim_, scenario_);
  }

  // Runs in 100 ms steps, checking after each, until `until` from the start
  // or the first failure.
  void run_to(Duration until) {
    const Instant end = start_ + until;
    while (sim_->now() < end && failures_.empty()) {
      sim_->run_for(std::min(Duration::milliseconds(100), end - sim_->now()));
      actors_.check(*sim_, failures_);
      workload_.check(*sim_, failures_);
    }
  }
  std::vector<std::string> finish() {
    if (failures_.empty()) workload_.finish(*sim_, failures_);
    return failures_;
  }
  sim::Simulator& sim() { return *sim_; }
  const CounterWorkload& workload() const { return workload_; }

 private:
  Application app_ = application("counter_props");
  sim::ApplicationActors actors_;
  CounterWorkload workload_;
  sim::Scenario scenario_;
  std::unique_ptr<sim::Simulator> sim_;
  Instant start_;
  std::vector<std::string> failures_;
};

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

TEST(CounterDirect, NoFaultsEveryIncrementIsKept) {
  Direct d(5, 1, {});
  d.run_to(Duration::seconds(20));
  const auto failures = d.finish();
  EXPECT_TRUE(failures.empty()) << joined(failures);
  EXPECT_GT(d.workload().increments_acknowledged(), 500u) << d.workload().summary();
}

TEST(CounterDirect, ARestartedOwnerStartsAgainAndIsExempt) {
  Direct d(5, 2, {});
  d.run_to(Duration::seconds(5));
  d.sim().crash(2);
  d.run_to(Duration::seconds(8));
  d.sim().restart(2);
  d.run_to(Duration::seconds(20));
  const auto failures = d.finish();
  EXPECT_TRUE(failures.empty()) << joined(failures);
}

// Increments to a paused owner wait in its socket, then all arrive at the
// instant it resumes: the burst the flawed shard mishandles.
std::vector<std::string> pause_an_owner(Flaw flaw) {
  Direct d(5, 3, {}, flaw);
  d.run_to(Duration::seconds(5));
  d.sim().pause(2, Duration::seconds(1));
  d.run_to(Duration::seconds(15));
  return d.finish();
}

TEST(CounterDirect, APausedOwnerKeepsEveryAcknowledgedIncrement) {
  const auto failures = pause_an_owner(Flaw::none);
  EXPECT_TRUE(failures.empty()) << joined(failures);
}

TEST(CounterDirect, ThePropertyCatchesTheFlawAfterAPause) {
  const auto failures = pause_an_owner(Flaw::coalesce_same_instant);
  ASSERT_FALSE(failures.empty());
  EXPECT_EQ(failures[0].rfind("COUNTER: key ", 0), 0u) << failures[0];
}

// --- Generated scenarios through sim::run().

struct Outcome {
  sim::Scenario scenario;
  sim::RunResult result;
  std::string summary;
};

Outcome run_counter(std::uint64_t seed, std::size_t nodes, std::int64_t chaos_seconds, Flaw flaw) {
  Outcome out;
  out.scenario = sim::generate(seed, nodes, Duration::seconds(chaos_seconds));
  const Application app = application("counter_props");
  sim::ApplicationActors actors(app, planted(flaw));
  CounterWorkload workload;
  sim::Workload* const workloads[] = {&actors, &workload};
  out.result = sim::run(out.scenario, {}, workloads);
  out.summary = workload.summary();
  return out;
}

// Everything needed to reproduce a failure: the replay commands, the
// scenario, what failed and the counter's summary.
std::string report(const Outcome& o, std::int64_t chaos_seconds, Flaw flaw) {
  const std::string seed = std::to_string(o.scenario.seed);
  const std::string nodes = std::to_string(o.scenario.nodes);
  const std::string chaos = std::to_string(chaos_seconds);
  std::string text = "replay: weft-sim replay --seed " + seed + " --nodes " + nodes + " --chaos " + chaos +
                     "   (the fault schedule; weft-sim does not run the counter workload)\n"
                     "with the counter: WEFT_COUNTER_SEED=" + seed + " WEFT_COUNTER_NODES=" + nodes +
                     " WEFT_COUNTER_CHAOS=" + chaos + (flaw == Flaw::none ? "" : " WEFT_COUNTER_FLAW=coalesce") +
                     " build/release/props/weft_counter_props --gtest_filter='CounterReplay.*'\n";
  text += "scenario:\n" + o.scenario.to_text() + "\nfailures:\n" + joined(o.result.failures);
  text += o.summary + "\n";
  return text;
}

constexpr std::int64_t kChaosSeconds = 30;

RC_GTEST_PROP(CounterProperty, NoAcknowledgedIncrementLostUnderGeneratedFaults, ()) {
  // Not shrunk: a nearby seed is a different scenario, not a smaller one.
  const auto seed = *rc::gen::noShrink(rc::gen::inRange<std::uint64_t>(1, 1'000'000'000));
  const auto nodes = *rc::gen::noShrink(rc::gen::inRange<std::size_t>(3, 8));
  const Outcome o = run_counter(seed, nodes, kChaosSeconds, Flaw::none);
  RC_TAG(o.result.verdict == sim::Verdict::pass ? "pass" : "fail");
  if (o.result.verdict != sim::Verdict::pass) RC_FAIL(report(o, kChaosSeconds, Flaw::none));
}

TEST(CounterCatches, AShardThatCoalescesSameInstantIncrements) {
  // The flaw needs a burst (a pause, a healed cut or partition) and then an
  // acknowledged burst to outweigh earlier increments that timed out, so not
  // every seed exposes it; some seed in this range must. The run stops at
  // its first failing check, so the first line is what failed: a seed failing
  // first as anything but COUNTER is something else broken, not a catch.
  constexpr std::uint64_t kSeeds = 40;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const Outcome o = run_counter(seed, 5, kChaosSeconds, Flaw::coalesce_same_instant);
    if (o.result.failures.empty()) continue;
    const std::string& first = o.result.failures.front();
    // The workload's vacuity line is tagged COUNTER too, but says the run
    // proved nothing, not that an increment was lost.
    ASSERT_TRUE(first.rfind("COUNTER: ", 0) == 0 && first.find("no increment was acknowledged") == std::string::npos)
        << "seed " << seed << " failed, but not as COUNTER:\n" << report(o, kChaosSeconds, Flaw::coalesce_same_instant);
    std::printf("caught at seed %llu of 1..%llu:\n%s", static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(kSeeds), report(o, kChaosSeconds, Flaw::coalesce_same_instant).c_str());
    return;
  }
  FAIL() << "no seed in 1.." << kSeeds << " caught the coalescing shard";
}

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value == nullptr ? fallback : std::strtoull(value, nullptr, 10);
}

TEST(CounterReplay, ASeedReplaysExactly) {
  const std::uint64_t seed = env_or("WEFT_COUNTER_SEED", 42);
  const std::size_t nodes = env_or("WEFT_COUNTER_NODES", 5);
  const auto chaos = static_cast<std::int64_t>(env_or("WEFT_COUNTER_CHAOS", kChaosSeconds));
  const char* flaw_name = std::getenv("WEFT_COUNTER_FLAW");
  const Flaw flaw = flaw_name != nullptr && std::string(flaw_name) == "coalesce" ? Flaw::coalesce_same_instant
                                                                                  : Flaw::none;
  const Outcome first = run_counter(seed, nodes, chaos, flaw);
  const Outcome second = run_counter(seed, nodes, chaos, flaw);
  EXPECT_EQ(first.result.trace_hash, second.result.trace_hash);
  EXPECT_EQ(first.summary, second.summary);
  EXPECT_EQ(first.result.failures, second.result.failures);
  if (std::getenv("WEFT_COUNTER_SEED") != nullptr) {
    // As weft-sim prints it: virtual seconds since the simulator's start (1 s).
    std::printf("timeline (virtual seconds, node, event):\n");
    for (const sim::TraceLine& line : first.result.timeline) {
      const double at = static_cast<double>((line.at - sim::Simulator::kStart).ns()) / 1e9;
      // Appended piece by piece: `"x" + std::string` (operator+ prepending into the
      // temporary) draws a false -Wrestrict from gcc 12 at -O3 (GCC bug 105329).
      const std::string who =
          line.node == 0 ? std::string("sim") : std::string("n").append(std::to_string(line.node));
      std::printf("  %9.3f  %s  %s\n", at, who.c_str(), line.text.c_str());
    }
    std::printf("%s", report(first, chaos, flaw).c_str());
  }
  EXPECT_EQ(first.result.verdict, sim::Verdict::pass) << report(first, chaos, flaw);
}

}  // namespace
}  // namespace weft::counter
