// What typed messages (typed/typed.hpp) cost over raw bytes, for a small
// message: Increment{"apples", 1}, 9 bytes of MessagePack. The baseline is
// the raw-bytes local tell path in the same run: the same 9 bytes, already
// encoded, told to a plain Behavior that reads their size. Every benchmark
// here is one op = 1024 messages, so the report's ratios compare like with
// like:
//   raw_local_tell     1024 kernel tells of the pre-encoded body + one dispatch step (baseline)
//   typed_local_tell   1024 Protocol::tell (encode + tell) + one dispatch step through TypedBehavior (decode + handler)
//   typed_encode       1024 encodes into a reused buffer
//   typed_decode       1024 Protocol::decode of the body
//   typed_receive      1024 TypedBehavior::receive calls (tag lookup, decode, handler), no kernel
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernel/actors/detached_context.hpp"
#include "bench/alloc_counter.hpp"
#include "bench/local_tells.hpp"
#include "kernel/kernel.hpp"
#include "typed/typed.hpp"

namespace {

using weft::ActorRef;
using weft::Duration;
using weft::Instant;

struct Increment {
  std::string key;  // short enough for the string's inline buffer: no allocation per decode
  std::int64_t by = 0;
  MSGPACK_DEFINE(key, by)
};
struct Value {
  std::int64_t count = 0;
  MSGPACK_DEFINE(count)
};
using Proto = weft::typed::Protocol<weft::typed::Message<Increment, 1>, weft::typed::Message<Value, 2>>;

constexpr int kBatch = 1024;

const Increment& message() {
  static const Increment m{"apples", 1};
  return m;
}
const std::vector<std::uint8_t>& encoded() {
  static const std::vector<std::uint8_t> body = Proto::encode(message());
  return body;
}

class TypedCounter final : public weft::typed::TypedBehavior<Proto> {
 public:
  explicit TypedCounter(std::int64_t* sum) {
    on<Increment>([sum](Ctx&, const Increment& m) { *sum += m.by; });
  }
};

void raw_local_tell(benchmark::State& state) { weft::bench::local_tells(state, Proto::tag<Increment>, encoded()); }
BENCHMARK(raw_local_tell);

void typed_local_tell(benchmark::State& state) {
  weft::Kernel kernel(weft::bench::local_config(), 1);
  const Instant now = Instant::from_ns(1'000'000'000);
  std::int64_t sum = 0;
  auto behavior = std::make_unique<TypedCounter>(&sum);
  const TypedCounter& counter = *behavior;
  const ActorRef target = kernel.spawn(now, "counter", std::move(behavior));
  const Increment& m = message();
  weft::bench::AllocationScope allocations(state);
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) Proto::tell(kernel, now, target, m);
    kernel.handle_tick(now);
  }
  allocations.report(kBatch);
  if (sum != static_cast<std::int64_t>(state.iterations()) * kBatch || counter.dead_letters() != 0) {
    state.SkipWithError("lost messages");
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(typed_local_tell);

void typed_encode(benchmark::State& state) {
  std::vector<std::uint8_t> buffer;
  const Increment& m = message();
  weft::bench::AllocationScope allocations(state);
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      Proto::encode_into(buffer, m);
      benchmark::DoNotOptimize(buffer.data());
    }
  }
  allocations.report(kBatch);
  if (buffer != encoded()) state.SkipWithError("encoding differs");
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(typed_encode);

void typed_decode(benchmark::State& state) {
  const std::vector<std::uint8_t>& body = encoded();
  std::int64_t sum = 0;
  weft::bench::AllocationScope allocations(state);
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      const weft::typed::Decoded<Increment> d = Proto::decode<Increment>(Proto::tag<Increment>, body);
      sum += d ? d->by : 1'000'000;
    }
  }
  allocations.report(kBatch);
  if (sum != static_cast<std::int64_t>(state.iterations()) * kBatch) state.SkipWithError("decode failed");
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(typed_decode);

// A Context that does nothing: receive() without a kernel around it.
class NullContext final : public weft::DetachedContext {
 public:
  const ActorRef& self() const override { return self_; }
  Instant now() const override { return Instant::from_ns(1); }
  weft::SendResult tell(const ActorRef&, std::uint32_t, std::span<const std::uint8_t>) override {
    return weft::SendResult::sent;
  }
  weft::AskId ask(const ActorRef&, std::uint32_t, std::span<const std::uint8_t>, Duration) override { return 0; }
  weft::SendResult reply(std::uint32_t, std::span<const std::uint8_t>) override { return weft::SendResult::sent; }

 private:
  ActorRef self_{weft::NodeAddress{"10.0.0.1", 7000}, "counter"};
};

void typed_receive(benchmark::State& state) {
  std::int64_t sum = 0;
  TypedCounter counter(&sum);
  NullContext context;
  const weft::Delivery delivery{weft::DeliveryKind::tell, {}, 0, Proto::tag<Increment>, encoded()};
  weft::bench::AllocationScope allocations(state);
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) counter.receive(context, delivery);
  }
  allocations.report(kBatch);
  if (sum != static_cast<std::int64_t>(state.iterations()) * kBatch) state.SkipWithError("lost messages");
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(typed_receive);

}  // namespace

BENCHMARK_MAIN();
