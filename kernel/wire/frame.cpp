// The frame decoder's length check and its gathering of a frame split across
// reads (the model is in frame.hpp).
#include "kernel/wire/frame.hpp"

#include <algorithm>

namespace weft::wire {

FrameDecoder::FrameDecoder(std::uint32_t max_frame_bytes) : max_frame_bytes_(max_frame_bytes) {
  WEFT_ASSERT(max_frame_bytes > 0);
}

WireError FrameDecoder::check_length(std::uint32_t length) const {
  if (length == 0) return WireError::frame_empty;
#ifdef WEFT_PLANTED_FRAME_BUG
  // Planted defect, compiled only into tests/fuzz's fuzz_finds_planted_*
  // binaries: the check sees the low 24 bits of the length, so a header with
  // a non-zero top byte passes and gather() reserves 16 MiB to 4 GiB for it.
  if ((length & 0xffffffU) > max_frame_bytes_) return WireError::frame_too_large;
#else
  if (length > max_frame_bytes_) return WireError::frame_too_large;
#endif
  return WireError::none;
}

bool FrameDecoder::gather(Bytes& input) {
  WEFT_ASSERT(gathering_);
  WEFT_ASSERT(!input.empty());  // so each call makes progress
  if (header_filled_ < kFrameHeaderBytes) {
    const std::size_t take = std::min(kFrameHeaderBytes - header_filled_, input.size());
    std::copy_n(input.begin(), take, header_.begin() + static_cast<std::ptrdiff_t>(header_filled_));
    header_filled_ += take;
    input = input.subspan(take);
    if (header_filled_ < kFrameHeaderBytes) return false;
    WEFT_ASSERT(partial_.empty());  // nothing of the previous frame is left in front of this one
    partial_length_ = load_be32(header_.data());
    if (WireError e = check_length(partial_length_); e != WireError::none) {
      fail(e);
      return false;
    }
    partial_.reserve(partial_length_);  // bounded by max_frame_bytes_, checked above
  }
  const std::size_t take = std::min<std::size_t>(partial_length_ - partial_.size(), input.size());
  partial_.insert(partial_.end(), input.begin(), input.begin() + static_cast<std::ptrdiff_t>(take));
  input = input.subspan(take);
  return partial_.size() == partial_length_;
}

}  // namespace weft::wire
