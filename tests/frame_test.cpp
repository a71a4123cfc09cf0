// Goal: the frame decoder reassembles any split of a stream into the same
// frames, in order, copies only frames that straddle reads, and refuses
// oversize and empty frames with a reason, for good, before allocating.
#include "kernel/wire/frame.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "kernel/wire/envelope.hpp"
#include "wire_test_support.hpp"

namespace weft::wire {
namespace {

using testing::ByteVector;

// Sized once and copied into: growing a 4-byte vector with insert() draws a
// false -Warray-bounds from gcc 12 at -O3 (it checks the memcpy against the
// old 4-byte buffer on a path where the vector has already reallocated).
ByteVector frame_of(const ByteVector& payload) {
  ByteVector frame(kFrameHeaderBytes + payload.size());
  store_be32(frame.data(), static_cast<std::uint32_t>(payload.size()));
  std::copy(payload.begin(), payload.end(), frame.begin() + kFrameHeaderBytes);
  return frame;
}

struct Collected {
  std::vector<ByteVector> frames;
  WireError error = WireError::none;
};

// Feeds `stream` in pieces of the given sizes (cycled), collecting frames.
Collected feed_in_pieces(const ByteVector& stream, const std::vector<std::size_t>& pieces,
                         std::uint32_t max_frame = kDefaultMaxFrameBytes) {
  FrameDecoder decoder(max_frame);
  Collected out;
  std::size_t at = 0;
  for (std::size_t i = 0; at < stream.size(); ++i) {
    const std::size_t n = std::min(pieces[i % pieces.size()], stream.size() - at);
    out.error = decoder.feed(Bytes(stream.data() + at, n),
                             [&](Bytes payload) { out.frames.emplace_back(payload.begin(), payload.end()); });
    at += n;
    if (out.error != WireError::none) break;
  }
  return out;
}

std::vector<ByteVector> sample_payloads() {
  std::vector<ByteVector> payloads;
  for (std::size_t size : {1UL, 2UL, 3UL, 4UL, 5UL, 63UL, 64UL, 65UL, 1000UL, 4096UL, 70000UL}) {
    ByteVector p(size);
    for (std::size_t i = 0; i < size; ++i) p[i] = static_cast<std::uint8_t>(size + i);
    payloads.push_back(p);
  }
  return payloads;
}

ByteVector concatenated(const std::vector<ByteVector>& payloads) {
  ByteVector stream;
  for (const ByteVector& p : payloads) {
    const ByteVector f = frame_of(p);
    stream.insert(stream.end(), f.begin(), f.end());
  }
  return stream;
}

TEST(FrameDecoder, WholeStreamInOneRead) {
  const auto payloads = sample_payloads();
  const Collected got = feed_in_pieces(concatenated(payloads), {1 << 30});
  EXPECT_EQ(got.error, WireError::none);
  EXPECT_EQ(got.frames, payloads);
}

TEST(FrameDecoder, EverySplitPointOfEveryPieceSize) {
  const auto payloads = sample_payloads();
  const ByteVector stream = concatenated(payloads);
  for (std::size_t piece : {1UL, 2UL, 3UL, 4UL, 5UL, 7UL, 64UL, 1000UL, 4099UL, 65536UL}) {
    const Collected got = feed_in_pieces(stream, {piece});
    EXPECT_EQ(got.error, WireError::none) << piece;
    EXPECT_EQ(got.frames, payloads) << "piece size " << piece;
  }
  // Irregular pieces, as a real socket returns them.
  const Collected irregular = feed_in_pieces(stream, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3000});
  EXPECT_EQ(irregular.frames, payloads);
}

TEST(FrameDecoder, TwoFramesSplitAtEveryByte) {
  const std::vector<ByteVector> payloads = {ByteVector(10, 1), ByteVector(7, 2)};
  const ByteVector stream = concatenated(payloads);
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    FrameDecoder decoder;
    std::vector<ByteVector> frames;
    auto sink = [&](Bytes p) { frames.emplace_back(p.begin(), p.end()); };
    ASSERT_EQ(decoder.feed(Bytes(stream.data(), cut), sink), WireError::none);
    ASSERT_EQ(decoder.feed(Bytes(stream.data() + cut, stream.size() - cut), sink), WireError::none);
    EXPECT_EQ(frames, payloads) << "cut at " << cut;
    EXPECT_EQ(decoder.buffered_bytes(), 0u);
  }
}

TEST(FrameDecoder, BuffersOnlyTheIncompleteTail) {
  FrameDecoder decoder;
  const ByteVector stream = concatenated({ByteVector(10, 1), ByteVector(100, 2)});
  int frames = 0;
  ASSERT_EQ(decoder.feed(Bytes(stream.data(), 14 + 4 + 50), [&](Bytes) { ++frames; }), WireError::none);
  EXPECT_EQ(frames, 1);
  EXPECT_EQ(decoder.buffered_bytes(), 54u);
}

TEST(FrameDecoder, WholeFramesAreHandedOverInPlace) {
  const ByteVector stream = concatenated({ByteVector(10, 1), ByteVector(20, 2)});
  FrameDecoder decoder;
  std::vector<const std::uint8_t*> starts;
  ASSERT_EQ(decoder.feed(stream, [&](Bytes p) { starts.push_back(p.data()); }), WireError::none);
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(starts[0], stream.data() + 4);
  EXPECT_EQ(starts[1], stream.data() + 18);
}

TEST(FrameDecoder, OversizeFrameFailsBeforeAnyPayloadArrives) {
  FrameDecoder decoder(1024);
  const ByteVector header = {0x00, 0x00, 0x04, 0x01};  // 1025
  int frames = 0;
  EXPECT_EQ(decoder.feed(header, [&](Bytes) { ++frames; }), WireError::frame_too_large);
  EXPECT_EQ(frames, 0);
  // A declared 4 GiB frame with a 1 MiB limit: refused from the header alone.
  FrameDecoder huge;
  EXPECT_EQ(huge.feed(ByteVector{0xff, 0xff, 0xff, 0xff}, [&](Bytes) { ++frames; }),
            WireError::frame_too_large);
  EXPECT_EQ(huge.buffered_bytes(), 0u) << "nothing is kept of a refused frame";
}

TEST(FrameDecoder, OversizeHeaderSplitAcrossReads) {
  FrameDecoder decoder(1024);
  int frames = 0;
  EXPECT_EQ(decoder.feed(ByteVector{0x00, 0x00}, [&](Bytes) { ++frames; }), WireError::none);
  EXPECT_EQ(decoder.feed(ByteVector{0x04, 0x01, 0xaa}, [&](Bytes) { ++frames; }),
            WireError::frame_too_large);
}

TEST(FrameDecoder, MaxSizeFrameIsAccepted) {
  const ByteVector stream = concatenated({ByteVector(1024, 9)});
  EXPECT_EQ(feed_in_pieces(stream, {100}, 1024).frames.size(), 1u);
}

TEST(FrameDecoder, EmptyFrameIsRefused) {
  FrameDecoder decoder;
  const ByteVector stream = concatenated({ByteVector(3, 1), ByteVector{}, ByteVector(3, 2)});
  int frames = 0;
  EXPECT_EQ(decoder.feed(stream, [&](Bytes) { ++frames; }), WireError::frame_empty);
  EXPECT_EQ(frames, 1) << "frames before the violation are delivered, none after";
}

TEST(FrameDecoder, FailureIsPermanent) {
  FrameDecoder decoder(16);
  int frames = 0;
  EXPECT_EQ(decoder.feed(ByteVector{0, 0, 0, 17}, [&](Bytes) { ++frames; }), WireError::frame_too_large);
  EXPECT_EQ(decoder.feed(frame_of(ByteVector(3, 1)), [&](Bytes) { ++frames; }),
            WireError::frame_too_large);
  EXPECT_EQ(decoder.error(), WireError::frame_too_large);
  EXPECT_EQ(frames, 0);
}

TEST(AppendFrame, RefusesOversizeMessageAndLeavesOutputAlone) {
  Envelope envelope = testing::sample_envelope();
  ByteVector big(2000, 1);
  envelope.body = big;
  ByteVector out = {0xee};
  EXPECT_EQ(append_frame(out, envelope, 1024), WireError::frame_too_large);
  EXPECT_EQ(out, ByteVector{0xee});
  EXPECT_EQ(append_frame(out, envelope, 4096), WireError::none);
  EXPECT_EQ(out.size(), 1 + kFrameHeaderBytes + encoded_size(envelope));
  EXPECT_EQ(load_be32(out.data() + 1), encoded_size(envelope));
}

}  // namespace
}  // namespace weft::wire
