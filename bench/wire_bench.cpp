// Wire micro-benchmarks (BENCHMARKS.md, harness 1): envelope encode, decode
// and round trip for 64 B, 1 KB and 16 KB bodies (plus decode_message, the
// driver's entry point, for 64 B), and the frame decoder over a 16 MiB stream
// fed in 64 KiB chunks like socket reads, next to two baselines measured in
// the same run on the same stream and chunking: memcpy of each chunk into a
// receive buffer, and a plain byte-sum loop.
//
// Every benchmark reports allocs/op (bench/alloc_counter.hpp), read before
// and after the timed loop.
//
// Rates: bytes/s counts the bytes the benchmark consumes or produces. For
// encode and the round trip that is the whole frame (4-byte header +
// payload), for decode the payload, for stream benchmarks the stream.
// items/s counts envelopes or frames.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bench/alloc_counter.hpp"
#include "kernel/wire/envelope.hpp"
#include "kernel/wire/errors.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/message.hpp"
#include "kernel/wire/msgpack.hpp"
#include "kernel/wire/refs.hpp"

namespace {

using weft::wire::Bytes;
using weft::wire::Envelope;
using weft::wire::FrameDecoder;
using weft::wire::kFrameHeaderBytes;
using weft::wire::MessageKind;
using weft::wire::WireError;

using weft::bench::allocations;
using weft::bench::report_allocations;

std::int64_t as_count(std::size_t n) { return static_cast<std::int64_t>(n); }

std::vector<std::uint8_t> filler(std::size_t size, std::uint32_t seed) {
  std::vector<std::uint8_t> bytes(size);
  std::uint32_t x = seed * 2654435761U + 1;
  for (auto& b : bytes) {
    x = x * 1664525U + 1013904223U;
    b = static_cast<std::uint8_t>(x >> 24);
  }
  return bytes;
}

// --- Envelopes ----------------------------------------------------------------

// An ask from a client actor on one node to a counter shard on another: both
// refs present, a correlation id past the one-byte range, a small type tag.
// Not copyable: `envelope.body` views `body`.
struct EnvelopeCase {
  std::vector<std::uint8_t> body;
  Envelope envelope;

  EnvelopeCase(const EnvelopeCase&) = delete;
  EnvelopeCase& operator=(const EnvelopeCase&) = delete;

  explicit EnvelopeCase(std::size_t body_bytes) : body(filler(body_bytes, 1)) {
    envelope.kind = MessageKind::ask;
    envelope.target = {{"10.0.0.17", 7000}, "counter-shard-3"};
    envelope.sender = {{"10.0.0.18", 7000}, "client"};
    envelope.correlation_id = 1'000'003;
    envelope.type_tag = 17;
    envelope.body = body;
  }

  std::vector<std::uint8_t> frame() const {
    std::vector<std::uint8_t> out;
    if (weft::wire::append_frame(out, envelope) != WireError::none) out.clear();
    return out;
  }
};

void envelope_encode(benchmark::State& state, std::size_t body_bytes) {
  const EnvelopeCase c(body_bytes);
  std::vector<std::uint8_t> out;
  out.reserve(c.frame().size());  // the reused send buffer of a link
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    out.clear();
    const WireError e = weft::wire::append_frame(out, c.envelope);
    benchmark::DoNotOptimize(e);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  report_allocations(state, before);
  if (out != c.frame()) state.SkipWithError("encode produced a different frame");
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * as_count(out.size()));
}

// Decoding one envelope's payload with `decode` (decode_envelope, or
// decode_message: what a driver calls for every inbound frame, peeking the
// kind first); `as_envelope` turns its result into the envelope, if any,
// for the check after the timed loop.
template <class Decode, class AsEnvelope>
void decode_benchmark(benchmark::State& state, std::size_t body_bytes, Decode decode, AsEnvelope as_envelope) {
  const EnvelopeCase c(body_bytes);
  const std::vector<std::uint8_t> frame = c.frame();
  const Bytes payload = Bytes(frame).subspan(kFrameHeaderBytes);
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    auto decoded = decode(payload);
    benchmark::DoNotOptimize(decoded);
  }
  report_allocations(state, before);
  const auto check = decode(payload);
  const Envelope* envelope = check.ok() ? as_envelope(check.value) : nullptr;
  if (envelope == nullptr || !(*envelope == c.envelope)) state.SkipWithError("decode mismatch");
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * as_count(payload.size()));
}

void envelope_decode(benchmark::State& state, std::size_t body_bytes) {
  decode_benchmark(state, body_bytes, [](Bytes p) { return weft::wire::decode_envelope(p); },
                   [](const Envelope& e) { return &e; });
}

void message_decode(benchmark::State& state, std::size_t body_bytes) {
  decode_benchmark(state, body_bytes, [](Bytes p) { return weft::wire::decode_message(p); },
                   [](const weft::wire::Message& m) { return std::get_if<Envelope>(&m); });
}

void envelope_roundtrip(benchmark::State& state, std::size_t body_bytes) {
  const EnvelopeCase c(body_bytes);
  std::vector<std::uint8_t> out;
  out.reserve(c.frame().size());
  bool all_ok = true;
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    out.clear();
    const WireError e = weft::wire::append_frame(out, c.envelope);
    auto decoded = weft::wire::decode_envelope(Bytes(out).subspan(kFrameHeaderBytes));
    all_ok &= e == WireError::none && decoded.ok();
    benchmark::DoNotOptimize(decoded);
  }
  report_allocations(state, before);
  if (!all_ok) state.SkipWithError("round trip failed");
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * as_count(out.size()));
}

// --- Streams ------------------------------------------------------------------

constexpr std::size_t kStreamBytes = std::size_t{16} << 20;
constexpr std::size_t kChunkBytes = std::size_t{64} << 10;

struct Stream {
  std::vector<std::uint8_t> bytes;
  std::size_t frames = 0;
  std::size_t payload_bytes = 0;
};

// Whole frames up to kStreamBytes, payload sizes cycling through `pattern`.
// The payloads are opaque bytes: the frame decoder never looks inside.
Stream raw_frame_stream(const std::vector<std::size_t>& pattern) {
  Stream s;
  s.bytes.reserve(kStreamBytes);
  const std::vector<std::uint8_t> fill = filler(*std::max_element(pattern.begin(), pattern.end()), 2);
  for (std::size_t i = 0;; ++i) {
    const std::size_t size = pattern[i % pattern.size()];
    if (s.bytes.size() + kFrameHeaderBytes + size > kStreamBytes) break;
    std::array<std::uint8_t, kFrameHeaderBytes> header{};
    weft::wire::store_be32(header.data(), static_cast<std::uint32_t>(size));
    s.bytes.insert(s.bytes.end(), header.begin(), header.end());
    s.bytes.insert(s.bytes.end(), fill.begin(), fill.begin() + static_cast<std::ptrdiff_t>(size));
    ++s.frames;
    s.payload_bytes += size;
  }
  return s;
}

// Whole envelope frames up to kStreamBytes, every one with a `body_bytes` body.
Stream envelope_stream(std::size_t body_bytes) {
  Stream s;
  s.bytes.reserve(kStreamBytes);
  EnvelopeCase c(body_bytes);
  const std::size_t frame_bytes = c.frame().size();
  while (s.bytes.size() + frame_bytes <= kStreamBytes) {
    c.envelope.correlation_id = 1'000'003 + s.frames;
    if (weft::wire::append_frame(s.bytes, c.envelope) != WireError::none) break;
    ++s.frames;
    s.payload_bytes += body_bytes;  // what the consumer sums: body bytes
  }
  return s;
}

template <class Fn>
void for_each_chunk(const std::vector<std::uint8_t>& stream, Fn&& fn) {
  for (std::size_t offset = 0; offset < stream.size(); offset += kChunkBytes) {
    fn(Bytes(stream.data() + offset, std::min(kChunkBytes, stream.size() - offset)));
  }
}

void set_stream_rates(benchmark::State& state, const Stream& s) {
  state.SetItemsProcessed(state.iterations() * as_count(s.frames));
  state.SetBytesProcessed(state.iterations() * as_count(s.bytes.size()));
  state.counters["frames"] = static_cast<double>(s.frames);
}

// One op = the whole stream, fed chunk by chunk to one long-lived decoder (the
// stream ends on a frame boundary, so the next pass starts clean). One untimed
// pass first: the decoder's gather buffer grows to the largest split frame
// once per link, and allocs/op is meant to show the steady state.
void frame_decoder(benchmark::State& state, const Stream& s) {
  FrameDecoder decoder;
  bool failed = false;
  const auto pass = [&] {
    std::size_t sum = 0;
    for_each_chunk(s.bytes, [&](Bytes chunk) {
      failed |= decoder.feed(chunk, [&sum](Bytes payload) { sum += payload.size(); }) !=
                WireError::none;
    });
    return sum;
  };
  std::size_t total = pass();
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    total = pass();
    benchmark::DoNotOptimize(total);
  }
  report_allocations(state, before);
  if (failed || total != s.payload_bytes || decoder.buffered_bytes() != 0) {
    state.SkipWithError("frame decoder lost or corrupted frames");
  }
  set_stream_rates(state, s);
}

// Frame decoder plus decode_envelope on every frame: the inbound parse path.
void frame_decoder_envelopes(benchmark::State& state, const Stream& s) {
  FrameDecoder decoder;
  bool failed = false;
  const auto pass = [&] {
    std::size_t sum = 0;
    for_each_chunk(s.bytes, [&](Bytes chunk) {
      failed |= decoder.feed(chunk, [&](Bytes payload) {
                  const auto decoded = weft::wire::decode_envelope(payload);
                  failed |= !decoded.ok();
                  sum += decoded.value.body.size();
                }) != WireError::none;
    });
    return sum;
  };
  std::size_t total = pass();
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    total = pass();
    benchmark::DoNotOptimize(total);
  }
  report_allocations(state, before);
  if (failed || total != s.payload_bytes) state.SkipWithError("envelope stream decode failed");
  set_stream_rates(state, s);
}

// Baseline: copy each chunk into a receive buffer, as a read() would.
void baseline_memcpy(benchmark::State& state, const Stream& s) {
  std::vector<std::uint8_t> buffer(kChunkBytes);
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    for_each_chunk(s.bytes, [&](Bytes chunk) {
      std::memcpy(buffer.data(), chunk.data(), chunk.size());
      benchmark::DoNotOptimize(buffer.data());
      benchmark::ClobberMemory();
    });
  }
  report_allocations(state, before);
  set_stream_rates(state, s);
}

// Baseline: read every byte once (a scalar sum at -O2).
void baseline_bytesum(benchmark::State& state, const Stream& s) {
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    std::uint64_t sum = 0;
    for_each_chunk(s.bytes, [&](Bytes chunk) {
      for (const std::uint8_t b : chunk) sum += b;
    });
    benchmark::DoNotOptimize(sum);
  }
  report_allocations(state, before);
  set_stream_rates(state, s);
}

// A stream is built on first use (outside any timed loop) and kept for the
// rest of the run, so a filtered run builds only the streams it needs.
using StreamBenchmark = void (*)(benchmark::State&, const Stream&);

template <class Build>
void register_stream_benchmarks(
    const std::string& suffix, Build build,
    std::initializer_list<std::pair<const char*, StreamBenchmark>> benchmarks) {
  auto cached = std::make_shared<std::optional<Stream>>();
  for (const auto& [name, fn] : benchmarks) {
    benchmark::RegisterBenchmark((name + suffix).c_str(),
                                 [cached, build, fn = fn](benchmark::State& state) {
                                   if (!cached->has_value()) cached->emplace(build());
                                   fn(state, **cached);
                                 });
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  const std::array<std::pair<const char*, std::size_t>, 3> bodies = {
      {{"64B", 64}, {"1KB", 1024}, {"16KB", 16384}}};
  for (const auto& [label, size] : bodies) {
    benchmark::RegisterBenchmark((std::string("envelope_encode/") + label).c_str(),
                                 envelope_encode, size);
  }
  for (const auto& [label, size] : bodies) {
    benchmark::RegisterBenchmark((std::string("envelope_decode/") + label).c_str(),
                                 envelope_decode, size);
  }
  benchmark::RegisterBenchmark("message_decode/64B", message_decode, std::size_t{64});
  for (const auto& [label, size] : bodies) {
    benchmark::RegisterBenchmark((std::string("envelope_roundtrip/") + label).c_str(),
                                 envelope_roundtrip, size);
  }

  const std::array<std::pair<const char*, std::vector<std::size_t>>, 4> patterns = {{
      {"64B", {64}},
      {"1KB", {1024}},
      {"16KB", {16384}},
      {"mix", {64, 64, 64, 1024}},  // three small messages to one 1 KB
  }};
  for (const auto& [label, pattern] : patterns) {
    register_stream_benchmarks(std::string("/") + label,
                               [pattern = pattern] { return raw_frame_stream(pattern); },
                               {{"frame_decoder", frame_decoder},
                                {"baseline_memcpy", baseline_memcpy},
                                {"baseline_bytesum", baseline_bytesum}});
  }
  for (const auto& [label, size] : bodies) {
    register_stream_benchmarks(std::string("/") + label,
                               [size = size] { return envelope_stream(size); },
                               {{"frame_decoder_envelopes", frame_decoder_envelopes},
                                {"baseline_memcpy_envelopes", baseline_memcpy}});
  }

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
