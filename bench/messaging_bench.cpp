// Messaging hot paths through the kernel (docs/benchmarks.md harness 1 and the
// kernel issue's goals): local tell enqueue + dispatch, mailbox push + take,
// ask register + complete, and one inbound 64 B user frame through the whole
// kernel (frame decoder, envelope decode, liveness throttle, mailbox,
// dispatch), next to a same-run baseline of decoding the same frames alone.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/alloc_counter.hpp"
#include "bench/local_tells.hpp"
#include "kernel/actors/ask_table.hpp"
#include "kernel/actors/mailbox.hpp"
#include "kernel/drain.hpp"
#include "kernel/kernel.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/message.hpp"

namespace {

using weft::ActorRef;
using weft::Duration;
using weft::Instant;

using weft::bench::local_config;
using weft::bench::SizeCounter;

const std::vector<std::uint8_t>& body64() {
  static const std::vector<std::uint8_t> body(64, 0x5a);
  return body;
}

// Local tell: enqueue into the target's mailbox, then dispatch to its
// behaviour. Batches of 1024 tells, then one dispatch step.
void local_tell_and_dispatch(benchmark::State& state) { weft::bench::local_tells(state, 1, body64()); }
BENCHMARK(local_tell_and_dispatch);

// The baseline for local_tell_and_dispatch: the same 1024 messages pushed
// into and taken out of a mailbox alone, without the kernel around it.
void mailbox_push_take(benchmark::State& state) {
  constexpr int kBatch = 1024;
  weft::Mailbox mailbox(kBatch, weft::MailboxOverflow::reject_new);
  weft::MailboxSlot out;
  const weft::Delivery message{weft::DeliveryKind::tell, {"10.0.0.2", 7000, "sender"}, 0, 1, body64()};
  weft::bench::AllocationScope allocations(state);
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) mailbox.push(message);
    for (int i = 0; i < kBatch; ++i) {
      mailbox.take(out);
      benchmark::DoNotOptimize(out.view().body.data());
    }
  }
  allocations.report(kBatch);
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(mailbox_push_take);

void ask_register_complete(benchmark::State& state) {
  weft::AskTable table(1 << 16);
  const weft::NodeAddress node{"10.0.0.2", 7000};
  Instant deadline = Instant::from_ns(5'000'000'000);
  for (auto _ : state) {
    const weft::AskId id = table.add(weft::Asker{}, node, deadline);
    benchmark::DoNotOptimize(table.take(id));
    deadline += Duration::nanoseconds(1);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(ask_register_complete);

// A stream of `count` frames, each a 64 B tell to 10.0.0.1:7000/counter.
std::vector<std::uint8_t> tell_stream(int count) {
  std::vector<std::uint8_t> stream;
  const weft::wire::Envelope envelope{weft::wire::MessageKind::tell,
                                      {{"10.0.0.1", 7000}, "counter"},
                                      {{"10.0.0.2", 7000}, "producer"},
                                      0,
                                      1,
                                      body64()};
  for (int i = 0; i < count; ++i) (void)weft::wire::append_frame(stream, envelope);
  return stream;
}

// One inbound 64 B user frame through the kernel: a handshaken inbound link
// gets 1024 frames in one read, then one dispatch step delivers them.
void inbound_frame_through_kernel(benchmark::State& state) {
  weft::Kernel kernel(local_config(), 1);
  Instant now = Instant::from_ns(1'000'000'000);
  std::uint64_t received = 0;
  kernel.spawn(now, "counter", std::make_unique<SizeCounter>(&received));
  const weft::LinkId link = kernel.handle_link_accepted(now);
  weft::wire::Hello hello;
  hello.cluster_name = "bench";
  hello.address = {"10.0.0.2", 7000};
  hello.incarnation = 1;
  std::vector<std::uint8_t> handshake;
  (void)weft::wire::append_frame(handshake, hello);
  kernel.handle_bytes(now, link, handshake);
  // The hello reply goes nowhere: every write completes at once.
  (void)weft::drain(
      kernel, [](weft::LinkCommand&&) {}, [&](const weft::Transmit& t) { kernel.handle_sent(now, t.link); },
      [](weft::Event&&) { return true; });
  constexpr int kFrames = 1024;
  const std::vector<std::uint8_t> stream = tell_stream(kFrames);
  weft::bench::AllocationScope allocations(state);
  for (auto _ : state) {
    kernel.handle_bytes(now, link, stream);
    kernel.handle_tick(now);
    now += Duration::microseconds(10);
  }
  allocations.report(kFrames);
  if (received != static_cast<std::uint64_t>(state.iterations()) * kFrames * 64) state.SkipWithError("lost frames");
  state.SetItemsProcessed(state.iterations() * kFrames);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(stream.size()));
}
BENCHMARK(inbound_frame_through_kernel);

// Baseline for the above: the same frames, decoded only.
void baseline_decode_frames(benchmark::State& state) {
  constexpr int kFrames = 1024;
  const std::vector<std::uint8_t> stream = tell_stream(kFrames);
  weft::wire::FrameDecoder decoder;
  std::uint64_t received = 0;
  for (auto _ : state) {
    (void)decoder.feed(stream, [&](weft::wire::Bytes payload) {
      received += weft::wire::decode_envelope(payload).value.body.size();
    });
  }
  benchmark::DoNotOptimize(received);
  state.SetItemsProcessed(state.iterations() * kFrames);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(stream.size()));
}
BENCHMARK(baseline_decode_frames);

}  // namespace

BENCHMARK_MAIN();
