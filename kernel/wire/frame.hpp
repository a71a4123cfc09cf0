// Framing: a 4-byte big-endian payload length, then that many bytes of
// MessagePack. One frame carries one message.
//
// FrameDecoder is incremental: feed it whatever a read returned (half a
// header, many frames, the tail of one frame and the head of the next) and it
// calls back once per complete frame, in order. Whole frames inside the input
// are handed over in place, without a copy; only a frame split across reads
// is gathered into an internal buffer, sized exactly by its declared length,
// which is checked against the maximum before anything is allocated. On a
// violation the decoder fails for good and returns the reason on every later
// feed: the link is to be closed, not resynchronised.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kernel/assert.hpp"
#include "kernel/wire/errors.hpp"
#include "kernel/wire/msgpack.hpp"

namespace weft::wire {

inline constexpr std::size_t kFrameHeaderBytes = 4;
// A link's byte buffers keep their capacity between writes and frames, so
// steady traffic (heartbeats, digests, deltas of a few records: tens to
// hundreds of bytes) allocates nothing; one that grew past this for a larger
// frame (a whole gossip state at a thousand members is about 40 KB, a user's
// 16 KB message) gives it back once drained. Capacity kept per link is
// capacity kept per link per node: at 16 KB a thousand simulated nodes held
// half a gigabyte of idle buffer (1.65 GB in all, 1.15 GB at 1 KB), and
// first touching pages was a sixth of the run; an allocation per large
// frame costs far less than the frame.
inline constexpr std::size_t kKeptBufferBytes = 1U << 10;

// Empties `buffer`, and releases its memory if it grew past kKeptBufferBytes.
inline void drain_buffer(std::vector<std::uint8_t>& buffer) {
  if (buffer.capacity() > kKeptBufferBytes) {
    std::vector<std::uint8_t>().swap(buffer);
  } else {
    buffer.clear();
  }
}
inline constexpr std::uint32_t kDefaultMaxFrameBytes = 1U << 20;

class FrameDecoder {
 public:
  explicit FrameDecoder(std::uint32_t max_frame_bytes = kDefaultMaxFrameBytes);

  // Calls on_frame(Bytes payload) for each complete frame in `input`; the
  // payload is valid only during the call. Returns none, or the error that
  // failed the decoder (frames before the violation were delivered).
  template <class OnFrame>
  WireError feed(Bytes input, OnFrame&& on_frame);

  WireError error() const { return error_; }
  // Bytes of an incomplete frame held from earlier feeds.
  std::size_t buffered_bytes() const { return header_filled_ + partial_.size(); }
  std::uint32_t max_frame_bytes() const { return max_frame_bytes_; }
  // Lets larger frames through from now on (a link past its handshake); the
  // frames already checked were checked against the old maximum.
  void raise_max_frame_bytes(std::uint32_t max_frame_bytes) {
    WEFT_ASSERT(max_frame_bytes >= max_frame_bytes_);
    max_frame_bytes_ = max_frame_bytes;
  }

 private:
  WireError check_length(std::uint32_t length) const;
  // Consumes bytes of a frame split across feeds; true when it is complete.
  bool gather(Bytes& input);
  // Between feeds: a frame is held (gathering_) iff part of its header is,
  // and its payload only once the whole header is, never more than the
  // header declared.
  void check_invariants() const {
    WEFT_ASSERT(header_filled_ <= kFrameHeaderBytes);
    WEFT_ASSERT(gathering_ == (header_filled_ > 0));
    WEFT_ASSERT(partial_.empty() || header_filled_ == kFrameHeaderBytes);
    WEFT_ASSERT(partial_.size() <= partial_length_);
  }
  WireError fail(WireError error) { return error_ = error; }

  std::uint32_t max_frame_bytes_;
  WireError error_ = WireError::none;
  bool gathering_ = false;
  std::array<std::uint8_t, kFrameHeaderBytes> header_{};
  std::size_t header_filled_ = 0;
  std::uint32_t partial_length_ = 0;
  std::vector<std::uint8_t> partial_;
};

template <class OnFrame>
WireError FrameDecoder::feed(Bytes input, OnFrame&& on_frame) {
  check_invariants();
  if (error_ != WireError::none) return error_;
  while (!input.empty()) {
    if (gathering_) {
      if (!gather(input)) return error_;  // input used up, or the length was refused
      on_frame(Bytes(partial_));
      gathering_ = false;
      header_filled_ = 0;
      drain_buffer(partial_);
      continue;
    }
    // Fast path: frames wholly inside the input go to the caller in place.
    while (input.size() >= kFrameHeaderBytes) {
      const std::uint32_t length = load_be32(input.data());
      if (WireError e = check_length(length); e != WireError::none) return fail(e);
      if (input.size() - kFrameHeaderBytes < length) break;
      on_frame(input.subspan(kFrameHeaderBytes, length));
      input = input.subspan(kFrameHeaderBytes + length);
    }
    if (!input.empty()) gathering_ = true;
  }
  check_invariants();
  return error_;
}

// Appends one frame holding `message`, whose encoded_size() the caller has
// already computed as `payload_bytes` (and checked against its limits).
template <class Message>
void append_encoded_frame(std::vector<std::uint8_t>& out, const Message& message, std::size_t payload_bytes) {
  WEFT_ASSERT(payload_bytes <= UINT32_MAX);
  WEFT_ASSERT(payload_bytes > 0);  // the decoder refuses an empty frame (frame_empty)
  const std::size_t start = out.size();
  out.resize(start + kFrameHeaderBytes + payload_bytes);
  store_be32(out.data() + start, static_cast<std::uint32_t>(payload_bytes));
  Writer writer(out.data() + start + kFrameHeaderBytes, payload_bytes);
  encode(message, writer);
  WEFT_ASSERT(writer.unused() == 0);
}

// Appends one frame holding `message` to `out`. A message whose payload
// exceeds max_frame_bytes is refused with frame_too_large and `out` is left
// as it was: an oversize user message is the sender's error, not a crash.
template <class Message>
WireError append_frame(std::vector<std::uint8_t>& out, const Message& message,
                       std::uint32_t max_frame_bytes = kDefaultMaxFrameBytes) {
  const std::size_t size = encoded_size(message);
  if (size > max_frame_bytes) return WireError::frame_too_large;
  append_encoded_frame(out, message, size);
  return WireError::none;
}

}  // namespace weft::wire
