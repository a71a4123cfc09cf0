// What addressing by identity costs (issue 28, docs/sharding.md): an entity
// tell through its region against a direct tell to an actor ref, in the same
// run; and the heap an idle entity holds beyond the user's own object, and
// what a million keys hold once their entities have passivated.
//
// Two settings. One node: every shard is owned here and nothing crosses a
// link, so the entity path's own work (the key encoded into the body, the
// region's decode, stamp, shard inbox and entity lookup) is all that differs
// from the direct path (the kernel's tell and dispatch, which both share).
// Two nodes joined by in-memory pipes: the sender's node owns none of the
// keys, so an entity tell is numbered by the sender's region as it is sent
// and goes over the link to the owner's, against a direct tell over the same link to an actor
// there: the common case in a cluster, with the wire's work on both paths.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/alloc_counter.hpp"
#include "bench/local_tells.hpp"
#include "kernel/drain.hpp"
#include "kernel/kernel.hpp"
#include "shard/entity_ref.hpp"
#include "shard/envelope.hpp"
#include "shard/region.hpp"

namespace {

using weft::Duration;
using weft::Instant;

using weft::bench::kTellBatch;
using weft::bench::local_config;
using weft::bench::SizeCounter;

const std::vector<std::uint8_t>& body64() {
  static const std::vector<std::uint8_t> body(64, 0x5a);
  return body;
}

// The same work as SizeCounter's (the direct path's receiver).
class CountingEntity final : public weft::shard::Entity {
 public:
  explicit CountingEntity(std::uint64_t* count) : count_(count) {}
  void receive(weft::Context&, const weft::Delivery& m) override { *count_ += m.body.size(); }

 private:
  std::uint64_t* count_;
};

// "order-000042": 12 bytes, the size of an aggregate id, held in the
// string's own storage (no heap of its own).
std::string order_key(int i) {
  std::string digits = std::to_string(i);
  return "order-" + std::string(6 - std::min<std::size_t>(6, digits.size()), '0') + digits;
}

struct OneNode {
  explicit OneNode(Duration passivate_after) : kernel(local_config(), 1) {
    weft::shard::EntityKind kind;
    kind.name = "order";
    kind.passivate_after = passivate_after;
    kind.make = [count = &received](std::string_view) { return std::make_unique<CountingEntity>(count); };
    auto owned = std::make_unique<weft::shard::Region>(std::move(kind));
    region = owned.get();
    kernel.spawn(now, weft::shard::region_name("order"), std::move(owned));
    kernel.handle_tick(now);
  }
  void tell_keys(int first, int count) {
    for (int i = first; i < first + count; i += kTellBatch) {
      for (int k = i; k < i + kTellBatch && k < first + count; ++k) {
        (void)weft::shard::tell(kernel, now, {"order", order_key(k)}, 1, body64());
      }
      kernel.handle_tick(now);
    }
  }
  // Lets every entity's idle time pass, ticking as the passivation timer
  // comes due (it fires every passivate_after / 8).
  void passivate_all(Duration passivate_after) {
    for (int i = 0; i < 20 && region->active() > 0; ++i) {
      now += passivate_after / 4;
      kernel.handle_tick(now);
    }
  }

  Instant now = Instant::from_ns(1'000'000'000);
  weft::Kernel kernel;
  std::uint64_t received = 0;
  weft::shard::Region* region = nullptr;  // owned by the kernel
};

// Two kernels, 10.0.0.1 (the sender) and 10.0.0.2, joined through pipes
// that take every write at once, each with a region of "order".
class TwoNodes {
 public:
  explicit TwoNodes(bool batch_tells = true) {
    for (int i = 0; i < 2; ++i) {
      weft::Config config = local_config();
      config.self = weft::NodeAddress{"10.0.0." + std::to_string(i + 1), 7000};
      config.seeds = {weft::NodeAddress{"10.0.0.1", 7000}};
      kernels_[i] = std::make_unique<weft::Kernel>(config, 1 + i);
      weft::shard::EntityKind kind;
      kind.name = "order";
      kind.passivate_after = Duration::seconds(3600);
      kind.batch_tells = batch_tells;
      kind.make = [count = &received](std::string_view) { return std::make_unique<CountingEntity>(count); };
      auto region = std::make_unique<weft::shard::Region>(std::move(kind));
      regions_[i] = region.get();
      kernels_[i]->spawn(now, weft::shard::region_name("order"), std::move(region));
    }
    counter = kernels_[1]->spawn(now, "counter", std::make_unique<SizeCounter>(&received));
    // Both up in both views (a few gossip rounds), within 30 simulated s.
    for (int step = 0; step < 3000 && !(both_up(0) && both_up(1)); ++step) {
      now += Duration::milliseconds(10);
      tick();
    }
  }
  weft::Kernel& sender() { return *kernels_[0]; }
  const weft::shard::Region& owner_region() const { return *regions_[1]; }
  bool joined() const { return both_up(0) && both_up(1); }
  // The first `count` keys whose owner is the second node.
  std::vector<std::string> remote_keys(int count) const {
    std::vector<std::string> keys;
    for (int k = 0; static_cast<int>(keys.size()) < count && k < 1'000'000; ++k) {
      if (regions_[0]->owner(order_key(k)) == kernels_[1]->self().address) keys.push_back(order_key(k));
    }
    return keys;
  }
  // Both kernels handle what is due, and every byte written reaches the
  // other side, until nothing moves.
  void tick() {
    for (auto& kernel : kernels_) kernel->handle_tick(now);
    for (bool moved = true; moved;) {
      moved = false;
      for (int i = 0; i < 2; ++i) moved = drain(i) || moved;
      for (auto& kernel : kernels_) kernel->handle_tick(now);
    }
  }

  Instant now = Instant::from_ns(1'000'000'000);
  std::uint64_t received = 0;
  weft::ActorRef counter;

 private:
  struct End {
    int node;
    weft::LinkId link;
  };
  bool both_up(int i) const { return regions_[i]->hosts().size() == 2; }
  bool drain(int i) {
    bool moved = false;
    (void)weft::drain(
        *kernels_[i],
        [&](weft::LinkCommand&& command) {
          if (const auto* connect = std::get_if<weft::ConnectCommand>(&command)) {
            const int other = 1 - i;
            const weft::LinkId accepted = kernels_[other]->handle_link_accepted(now);
            ends_[i][connect->link] = End{other, accepted};
            ends_[other][accepted] = End{i, connect->link};
            kernels_[i]->handle_link_up(now, connect->link);
          }
        },
        [&](const weft::Transmit& transmit) {
          const End to = ends_[i].at(transmit.link);
          kernels_[to.node]->handle_bytes(now, to.link, transmit.bytes);
          kernels_[i]->handle_sent(now, transmit.link);
          moved = true;
        },
        [](weft::Event&&) { return true; });
    return moved;
  }

  std::unique_ptr<weft::Kernel> kernels_[2];
  weft::shard::Region* regions_[2] = {nullptr, nullptr};  // owned by the kernels
  std::map<weft::LinkId, End> ends_[2];
};

// Baseline: 1024 direct tells of 64 B to an actor ref, then one dispatch step.
void direct_tell(benchmark::State& state) { weft::bench::local_tells(state, 1, body64()); }
BENCHMARK(direct_tell);

// The same tells to 1024 active entities by key through the region, sent
// through an Entities handle of the kind (its region's ref built once):
// entity_tell's ratio against direct_tell is the cost of routing (goal
// >= 0.8). entity_tell_by_ref sends each by an EntityRef (kind and key per
// message, the region's ref built per tell), for what the handle saves.
template <class Send>
void one_node_tells(benchmark::State& state, Send&& send) {
  OneNode node(Duration::seconds(3600));
  std::vector<std::string> keys;
  for (int k = 0; k < kTellBatch; ++k) keys.push_back(order_key(k));
  node.tell_keys(0, kTellBatch);  // every entity active before timing
  node.received = 0;
  weft::bench::AllocationScope allocations(state);
  for (auto _ : state) {
    for (const auto& key : keys) (void)send(node, key);
    node.kernel.handle_tick(node.now);
  }
  allocations.report(kTellBatch);
  if (node.received != static_cast<std::uint64_t>(state.iterations()) * kTellBatch * 64 ||
      node.region->counters().activated != static_cast<std::uint64_t>(kTellBatch)) {
    state.SkipWithError("lost messages, or entities restarted");
  }
  state.SetItemsProcessed(state.iterations() * kTellBatch);
}

void entity_tell(benchmark::State& state) {
  const weft::shard::Entities orders(local_config().self, "order");  // OneNode's address
  one_node_tells(state, [&](OneNode& node, const std::string& key) {
    return orders.tell(node.kernel, node.now, key, 1, body64());
  });
}
BENCHMARK(entity_tell);

void entity_tell_by_ref(benchmark::State& state) {
  one_node_tells(state, [](OneNode& node, const std::string& key) {
    return weft::shard::tell(node.kernel, node.now, {"order", key}, 1, body64());
  });
}
BENCHMARK(entity_tell_by_ref);

// Per iteration: `send(batch)` from the first node, then every byte carried
// and dispatched; a message lost fails the run.
template <class Send>
void remote_batches(benchmark::State& state, TwoNodes& nodes, int batch, Send&& send) {
  nodes.received = 0;
  weft::bench::AllocationScope allocations(state);
  for (auto _ : state) {
    send();
    nodes.tick();
    nodes.now += Duration::microseconds(10);
  }
  allocations.report(batch);
  if (nodes.received != static_cast<std::uint64_t>(state.iterations()) * static_cast<std::uint64_t>(batch) * 64) {
    state.SkipWithError("lost messages");
  }
  state.SetItemsProcessed(state.iterations() * batch);
}

// Baseline over a link: B direct tells from the first node to an actor on
// the second, then the bytes carried and dispatched.
void direct_tell_remote(benchmark::State& state) {
  const auto batch = static_cast<int>(state.range(0));
  TwoNodes nodes;
  if (!nodes.joined()) {
    state.SkipWithError("the two nodes did not join");
    return;
  }
  remote_batches(state, nodes, batch, [&] {
    for (int i = 0; i < batch; ++i) nodes.sender().tell(nodes.now, nodes.counter, 1, body64());
  });
}
BENCHMARK(direct_tell_remote)->Arg(64)->Arg(1024);

// The same from the first node to B active entities the second owns:
// entity_tell_remote's ratio against direct_tell_remote is the cost of
// routing where an entity lives on another node (goal >= 0.8). The tells
// of one dispatch step go as one batch per owner (shard/entity_batch.hpp);
// unbatched_tell_remote sends each in an envelope of its own
// (EntityKind::batch_tells off), for what batching buys.
void remote_entity_tells(benchmark::State& state, bool batch_tells) {
  const auto batch = static_cast<int>(state.range(0));
  TwoNodes nodes(batch_tells);
  if (!nodes.joined()) {
    state.SkipWithError("the two nodes did not join");
    return;
  }
  const std::vector<std::string> keys = nodes.remote_keys(batch);
  const weft::shard::Entities orders(nodes.sender().self().address, "order");
  for (const auto& key : keys) (void)orders.tell(nodes.sender(), nodes.now, key, 1, body64());
  nodes.tick();  // every entity active before timing
  remote_batches(state, nodes, batch, [&] {
    for (const auto& key : keys) (void)orders.tell(nodes.sender(), nodes.now, key, 1, body64());
  });
  if (nodes.owner_region().counters().activated != static_cast<std::uint64_t>(batch)) {
    state.SkipWithError("entities restarted, or not all on the second node");
  }
}

void entity_tell_remote(benchmark::State& state) { remote_entity_tells(state, true); }
BENCHMARK(entity_tell_remote)->Arg(64)->Arg(1024);

void unbatched_tell_remote(benchmark::State& state) { remote_entity_tells(state, false); }
BENCHMARK(unbatched_tell_remote)->Arg(64)->Arg(1024);

// Heap per idle entity: a million keys activated once each, then left idle
// until they passivate. Counters (not times): bytes held per active idle
// entity, of which the user's object is `entity_object_bytes` and the rest
// the framework's (goal <= 256); and the bytes still held, per key, once
// every entity passivated (goal: nothing).
void idle_entity_memory(benchmark::State& state) {
  const int keys = static_cast<int>(state.range(0));
  const Duration passivate_after = Duration::seconds(60);
  double per_entity = 0;
  double after_per_key = 0;
  double entity_object = 0;
  for (auto _ : state) {
    OneNode node(passivate_after);
    // Warm-up: every shard and the source's numbering exist before the
    // baseline, so what follows is per key only.
    node.tell_keys(keys, 10'000);
    node.passivate_all(passivate_after);
    const std::int64_t baseline = weft::bench::live_bytes();
    {
      // The user's object alone, made as the region makes it.
      const std::int64_t before = weft::bench::live_bytes();
      const std::unique_ptr<weft::shard::Entity> one = node.region->kind().make("order-x");
      entity_object = static_cast<double>(weft::bench::live_bytes() - before);
    }
    node.tell_keys(0, keys);
    if (node.region->active() != static_cast<std::size_t>(keys)) state.SkipWithError("entities not all active");
    per_entity = static_cast<double>(weft::bench::live_bytes() - baseline) / keys;
    node.passivate_all(passivate_after);
    if (node.region->active() != 0) state.SkipWithError("entities did not passivate");
    after_per_key = static_cast<double>(weft::bench::live_bytes() - baseline) / keys;
  }
  state.counters["bytes_per_idle_entity"] = per_entity;
  state.counters["entity_object_bytes"] = entity_object;
  state.counters["framework_bytes"] = per_entity - entity_object;
  state.counters["bytes_per_key_passivated"] = after_per_key;
  state.SetItemsProcessed(state.iterations() * keys);
}
BENCHMARK(idle_entity_memory)->Arg(1'000'000)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
