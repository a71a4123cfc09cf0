// libFuzzer target: weft::wire::FrameDecoder.
//
// Input layout: byte 0 picks how the stream is cut into feeds, byte 1 picks
// max_frame_bytes from a small table (so frame_too_large is reachable within
// -max_len), and the rest is the byte stream a link would read.
//
// The stream is decoded three ways and all must agree:
//   - a reference model written here (walk the length prefixes in order);
//   - one feed of the whole stream;
//   - many feeds whose sizes come from byte 0 (single bytes, fixed sizes,
//     random sizes around the frame size, empty feeds mixed in).
// While no error: every payload is 1..max bytes, and payload bytes + headers
// + buffered_bytes() == bytes fed. After an error: every later feed returns
// that error and delivers nothing.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "kernel/wire/frame.hpp"

namespace {

using weft::wire::Bytes;
using weft::wire::FrameDecoder;
using weft::wire::kFrameHeaderBytes;
using weft::wire::WireError;
using weft::fuzz::touch;

constexpr std::array<std::uint32_t, 16> kMaxFrameChoices = {
    1, 2, 3, 4, 5, 7, 8, 16, 31, 64, 100, 255, 256, 1024, 4095, 4096};

struct Frame {
  std::size_t offset = 0;  // of the payload, within the stream
  std::size_t length = 0;
};

struct Expected {
  std::vector<Frame> frames;
  WireError error = WireError::none;
  std::size_t buffered = 0;  // meaningful when error is none
};

Expected reference_decode(Bytes stream, std::uint32_t max_frame_bytes) {
  Expected expected;
  std::size_t at = 0;
  while (stream.size() - at >= kFrameHeaderBytes) {
    const std::uint32_t length = weft::wire::load_be32(stream.data() + at);
    if (length == 0) {
      expected.error = WireError::frame_empty;
      return expected;
    }
    if (length > max_frame_bytes) {
      expected.error = WireError::frame_too_large;
      return expected;
    }
    if (stream.size() - at - kFrameHeaderBytes < length) break;
    expected.frames.push_back({at + kFrameHeaderBytes, length});
    at += kFrameHeaderBytes + length;
  }
  expected.buffered = stream.size() - at;
  return expected;
}

// Feed sizes derived from the control byte.
class ChunkPlan {
 public:
  ChunkPlan(std::uint8_t control, std::uint32_t max_frame_bytes)
      : mode_(control & 3U),
        fixed_(static_cast<std::size_t>(control >> 2) + 1),
        spread_(2 * static_cast<std::size_t>(max_frame_bytes) + 2 * kFrameHeaderBytes),
        state_(0x9e3779b97f4a7c15ULL ^ control) {}

  // The next feed size, at most `left` (which is non-zero). May be zero in
  // mode 3, but never twice in a row, so the stream is always used up.
  std::size_t next(std::size_t left) {
    std::size_t n = 1;
    switch (mode_) {
      case 0: n = fixed_; break;                       // 1..64 bytes every time
      case 1: n = 1 + random() % 8; break;             // splits inside headers
      case 2: n = 1 + random() % spread_; break;       // around a frame or two
      default:                                         // empty feeds mixed in
        n = random() % 17;
        if (n == 0 && last_was_empty_) n = 1;
        break;
    }
    last_was_empty_ = n == 0;
    return n < left ? n : left;
  }

 private:
  std::size_t random() {  // splitmix64
    state_ += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<std::size_t>(z ^ (z >> 31));
  }

  unsigned mode_;
  std::size_t fixed_;
  std::size_t spread_;
  std::uint64_t state_;
  bool last_was_empty_ = false;
};

bool same_bytes(Bytes a, Bytes b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

// A failed decoder stays failed: later feeds, empty or not, return the same
// error and deliver nothing.
void check_stays_failed(FrameDecoder& decoder, WireError error) {
  static constexpr std::array<std::uint8_t, 6> kValidFrame = {0, 0, 0, 1, 0x80, 0};
  for (const Bytes input : {Bytes(), Bytes(kValidFrame), Bytes(kValidFrame).first(1)}) {
    std::size_t delivered = 0;
    FUZZ_CHECK(decoder.feed(input, [&](Bytes) { ++delivered; }) == error);
    FUZZ_CHECK(delivered == 0);
    FUZZ_CHECK(decoder.error() == error);
  }
}

void one_shot(Bytes stream, std::uint32_t max_frame_bytes, const Expected& expected) {
  FrameDecoder decoder(max_frame_bytes);
  FUZZ_CHECK(decoder.max_frame_bytes() == max_frame_bytes);
  std::size_t index = 0;
  const WireError error = decoder.feed(stream, [&](Bytes payload) {
    FUZZ_CHECK(index < expected.frames.size());
    const Frame& frame = expected.frames[index++];
    FUZZ_CHECK(payload.size() == frame.length);
    // Whole frames inside one input are handed over in place.
    FUZZ_CHECK(payload.data() == stream.data() + frame.offset);
    touch(payload);
  });
  FUZZ_CHECK(index == expected.frames.size());
  FUZZ_CHECK(error == expected.error);
  FUZZ_CHECK(decoder.error() == error);
  if (error == WireError::none) {
    FUZZ_CHECK(decoder.buffered_bytes() == expected.buffered);
  } else {
    check_stays_failed(decoder, error);
  }
}

void chunked(Bytes stream, std::uint8_t control, std::uint32_t max_frame_bytes,
             const Expected& expected) {
  FrameDecoder decoder(max_frame_bytes);
  ChunkPlan plan(control, max_frame_bytes);
  std::size_t fed = 0;
  std::size_t delivered_bytes = 0;
  std::size_t index = 0;
  WireError failed = WireError::none;

  while (fed < stream.size()) {
    const std::size_t n = plan.next(stream.size() - fed);
    const Bytes chunk = stream.subspan(fed, n);
    std::size_t delivered_now = 0;
    const WireError error = decoder.feed(chunk, [&](Bytes payload) {
      ++delivered_now;
      FUZZ_CHECK(!payload.empty());
      FUZZ_CHECK(payload.size() <= max_frame_bytes);
      FUZZ_CHECK(index < expected.frames.size());
      const Frame& frame = expected.frames[index++];
      FUZZ_CHECK(same_bytes(payload, stream.subspan(frame.offset, frame.length)));
      // A frame wholly inside this feed is handed over in place.
      if (frame.offset - kFrameHeaderBytes >= fed && frame.offset + frame.length <= fed + n) {
        FUZZ_CHECK(payload.data() == stream.data() + frame.offset);
      }
      delivered_bytes += payload.size();
    });
    fed += n;
    FUZZ_CHECK(decoder.error() == error);

    if (failed != WireError::none) {
      FUZZ_CHECK(error == failed);
      FUZZ_CHECK(delivered_now == 0);
      continue;
    }
    if (error != WireError::none) {
      failed = error;
      continue;
    }
    FUZZ_CHECK(delivered_bytes + index * kFrameHeaderBytes + decoder.buffered_bytes() == fed);
  }

  FUZZ_CHECK(index == expected.frames.size());
  FUZZ_CHECK(failed == expected.error);
  FUZZ_CHECK(decoder.error() == expected.error);
  if (failed == WireError::none) {
    FUZZ_CHECK(decoder.buffered_bytes() == expected.buffered);
  } else {
    check_stays_failed(decoder, failed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint8_t control = data[0];
  const std::uint32_t max_frame_bytes = kMaxFrameChoices[data[1] % kMaxFrameChoices.size()];
  const Bytes stream(data + 2, size - 2);

  const Expected expected = reference_decode(stream, max_frame_bytes);
  for (const Frame& frame : expected.frames) {
    FUZZ_CHECK(frame.length >= 1 && frame.length <= max_frame_bytes);
  }
  one_shot(stream, max_frame_bytes, expected);
  chunked(stream, control, max_frame_bytes, expected);
  return 0;
}
