// Wire micro-benchmarks (docs/benchmarks.md, harness 1): envelope encode, decode
// and round trip for 64 B, 1 KB and 16 KB bodies (plus decode_message, the
// driver's entry point, for 64 B), and the frame decoder over a 16 MiB stream
// fed in 64 KiB chunks like socket reads.
//
// Each frame-decoder benchmark is compared with a baseline that does the same
// work on the same payload bytes without parsing frames: it walks a list of
// the payloads' spans computed before the timed loop. The consumer each
// payload goes to is the same code on both sides:
//   frame_decoder           vs baseline_spans: the consumer takes the span's
//                           size and reads no payload byte, so this is the
//                           decoder's own cost (header reads, gathering the
//                           frames split across chunks);
//   frame_decoder_copy      vs baseline_copy_spans: the consumer copies every
//                           payload out, as a driver handing it on would;
//   frame_decoder_envelopes vs baseline_envelope_spans: the consumer runs
//                           decode_envelope (which views the body, unread).
// baseline_memcpy, a memcpy of each chunk into a receive buffer (what read()
// costs), is context only: nothing above reads the same bytes it does.
//
// Every benchmark reports allocs/op (bench/alloc_counter.hpp), read before
// and after the timed loop.
//
// Rates: bytes/s counts the bytes the benchmark consumes or produces. For
// encode and the round trip that is the whole frame (4-byte header +
// payload), for decode the payload, for stream benchmarks the stream. The
// decoders hand bodies and payloads over as views, so where nothing copies
// them (envelope_decode, frame_decoder, frame_decoder_envelopes and their
// span baselines) bytes/s is bytes delimited per second, not bytes read.
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
  // Where each payload lies in `bytes`, in order: what a frame decoder finds,
  // given to the baselines for free. Views into `bytes`, whose buffer stays
  // put when the Stream is moved.
  std::vector<Bytes> payloads;
};

// The payload spans of a stream of whole frames, found by walking its headers.
std::vector<Bytes> payload_spans(const std::vector<std::uint8_t>& bytes) {
  std::vector<Bytes> spans;
  for (std::size_t at = 0; at + kFrameHeaderBytes <= bytes.size();) {
    const std::size_t length = weft::wire::load_be32(bytes.data() + at);
    spans.emplace_back(bytes.data() + at + kFrameHeaderBytes, length);
    at += kFrameHeaderBytes + length;
  }
  return spans;
}

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
  s.payloads = payload_spans(s.bytes);
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
  s.payloads = payload_spans(s.bytes);
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

// --- Consumers: what happens to each payload, the same on both sides of a
// comparison. Each returns the count the pass checks against the stream.

// Takes the span and reads none of it.
struct TakeSize {
  std::size_t operator()(Bytes payload) const { return payload.size(); }
};

// Copies the payload out, reading every byte once. Into one buffer, which
// any payload the decoder accepts fits.
struct CopyOut {
  std::vector<std::uint8_t> buffer = std::vector<std::uint8_t>(weft::wire::kDefaultMaxFrameBytes);
  std::size_t operator()(Bytes payload) {
    std::memcpy(buffer.data(), payload.data(), payload.size());
    benchmark::DoNotOptimize(buffer.data());  // the copy is used: it cannot be dropped
    return payload.size();
  }
};

// Decodes the payload as an envelope; the body size, or 0 on failure (the
// count check then fails).
struct DecodeEnvelope {
  std::size_t operator()(Bytes payload) const {
    const auto decoded = weft::wire::decode_envelope(payload);
    return decoded.ok() ? decoded.value.body.size() : 0;
  }
};

// One op = the whole stream through `consume`, found by the frame decoder:
// fed chunk by chunk to one long-lived decoder (the stream ends on a frame
// boundary, so the next pass starts clean). One untimed pass first: the
// decoder's gather buffer grows to the largest split frame once per link,
// and allocs/op is meant to show the steady state.
template <class Consume>
void frame_decoder_with(benchmark::State& state, const Stream& s, Consume consume) {
  FrameDecoder decoder;
  bool failed = false;
  const auto pass = [&] {
    std::size_t sum = 0;
    for_each_chunk(s.bytes, [&](Bytes chunk) {
      failed |= decoder.feed(chunk, [&](Bytes payload) { sum += consume(payload); }) !=
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

// The baseline of frame_decoder_with: the same payloads through the same
// `consume`, from the precomputed spans, no frame parsed.
template <class Consume>
void spans_with(benchmark::State& state, const Stream& s, Consume consume) {
  const auto pass = [&] {
    std::size_t sum = 0;
    for (const Bytes payload : s.payloads) sum += consume(payload);
    return sum;
  };
  std::size_t total = pass();
  const std::uint64_t before = allocations();
  for (auto _ : state) {
    total = pass();
    benchmark::DoNotOptimize(total);
  }
  report_allocations(state, before);
  if (total != s.payload_bytes) state.SkipWithError("spans baseline lost payloads");
  set_stream_rates(state, s);
}

void frame_decoder(benchmark::State& state, const Stream& s) { frame_decoder_with(state, s, TakeSize{}); }
void baseline_spans(benchmark::State& state, const Stream& s) { spans_with(state, s, TakeSize{}); }
void frame_decoder_copy(benchmark::State& state, const Stream& s) { frame_decoder_with(state, s, CopyOut{}); }
void baseline_copy_spans(benchmark::State& state, const Stream& s) { spans_with(state, s, CopyOut{}); }
void frame_decoder_envelopes(benchmark::State& state, const Stream& s) {
  frame_decoder_with(state, s, DecodeEnvelope{});
}
void baseline_envelope_spans(benchmark::State& state, const Stream& s) {
  spans_with(state, s, DecodeEnvelope{});
}

// Context: copy each chunk into a receive buffer, as a read() would.
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
                                {"baseline_spans", baseline_spans},
                                {"frame_decoder_copy", frame_decoder_copy},
                                {"baseline_copy_spans", baseline_copy_spans},
                                {"baseline_memcpy", baseline_memcpy}});
  }
  for (const auto& [label, size] : bodies) {
    register_stream_benchmarks(std::string("/") + label,
                               [size = size] { return envelope_stream(size); },
                               {{"frame_decoder_envelopes", frame_decoder_envelopes},
                                {"baseline_envelope_spans", baseline_envelope_spans}});
  }

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
