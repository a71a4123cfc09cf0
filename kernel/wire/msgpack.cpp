// The out-of-line halves of the MessagePack reader and writer: wide and
// signed forms, skip_value, and the long lengths and integers the writer
// rarely needs.
#include "kernel/wire/msgpack.hpp"

namespace weft::wire {

WireError Reader::read_uint_slow(std::uint64_t& value) {
  if (!has(1)) return WireError::truncated;
  const std::uint8_t marker = data_[position_];
  std::size_t width = 0;
  bool is_signed = false;
  switch (marker) {
    case format::kUint8: width = 1; break;
    case format::kUint16: width = 2; break;
    case format::kUint32: width = 4; break;
    case format::kUint64: width = 8; break;
    case format::kInt8: width = 1; is_signed = true; break;
    case format::kInt16: width = 2; is_signed = true; break;
    case format::kInt32: width = 4; is_signed = true; break;
    case format::kInt64: width = 8; is_signed = true; break;
    default: return WireError::wrong_type;  // negative fixint included: not unsigned
  }
  if (!has(1 + width)) return WireError::truncated;
  const std::uint8_t* p = data_ + position_ + 1;
  std::uint64_t raw = 0;
  switch (width) {
    case 1: raw = p[0]; break;
    case 2: raw = load_be16(p); break;
    case 4: raw = load_be32(p); break;
    default: raw = load_be64(p); break;
  }
  if (is_signed && (raw >> (width * 8 - 1)) != 0) return WireError::wrong_type;  // negative
  value = raw;
  position_ += 1 + width;
  WEFT_ASSERT(position_ <= size_);
  return WireError::none;
}

WireError Reader::read_length_prefixed(std::uint8_t marker, std::uint8_t fix_low,
                                       std::uint8_t fix_high, std::uint8_t op8,
                                       std::uint8_t op16, std::uint8_t op32,
                                       std::size_t& length) {
  std::size_t header = 1;
  if (fix_low != 0 && marker >= fix_low && marker <= fix_high) {
    length = marker - fix_low;
  } else if (marker == op8) {
    if (!has(2)) return WireError::truncated;
    length = data_[position_ + 1];
    header = 2;
  } else if (marker == op16) {
    if (!has(3)) return WireError::truncated;
    length = load_be16(data_ + position_ + 1);
    header = 3;
  } else if (marker == op32) {
#ifdef WEFT_PLANTED_MSGPACK_BUG
    // Planted defect, compiled only into tests/fuzz's fuzz_finds_planted_*
    // binaries: the header check is dropped, so a str32 or bin32 marker in
    // the last four bytes reads its length past the end of the input.
#else
    if (!has(5)) return WireError::truncated;
#endif
    length = load_be32(data_ + position_ + 1);
    header = 5;
  } else {
    return WireError::wrong_type;
  }
  if (remaining() - header < length) return WireError::truncated;
  position_ += header;
  // The caller views the next `length` bytes: they must lie in the input.
  WEFT_ASSERT(length <= remaining());
  return WireError::none;
}

WireError Reader::read_str_slow(std::string_view& value) {
  if (!has(1)) return WireError::truncated;
  std::size_t length = 0;
  const WireError error = read_length_prefixed(data_[position_], 0xa0, 0xbf, format::kStr8,
                                               format::kStr16, format::kStr32, length);
  if (error != WireError::none) return error;
  value = std::string_view(reinterpret_cast<const char*>(data_ + position_), length);
  position_ += length;
  return WireError::none;
}

WireError Reader::read_bin_slow(Bytes& value) {
  if (!has(1)) return WireError::truncated;
  std::size_t length = 0;
  const WireError error = read_length_prefixed(data_[position_], 0, 0, format::kBin8,
                                               format::kBin16, format::kBin32, length);
  if (error != WireError::none) return error;
  value = Bytes(data_ + position_, length);
  position_ += length;
  return WireError::none;
}

WireError Reader::read_container_header(std::uint8_t fix_low, std::uint8_t fix_high,
                                        std::uint8_t op16, std::uint8_t op32,
                                        std::uint32_t& count) {
  if (!has(1)) return WireError::truncated;
  const std::uint8_t marker = data_[position_];
  std::size_t header = 1;
  if (marker >= fix_low && marker <= fix_high) {
    count = marker - fix_low;
  } else if (marker == op16) {
    if (!has(3)) return WireError::truncated;
    count = load_be16(data_ + position_ + 1);
    header = 3;
  } else if (marker == op32) {
    if (!has(5)) return WireError::truncated;
    count = load_be32(data_ + position_ + 1);
    header = 5;
  } else {
    return WireError::wrong_type;
  }
  // Every element takes at least one byte: a count beyond the bytes left is
  // a lie, caught here before any caller sizes anything by it.
  if (remaining() - header < count) return WireError::truncated;
  position_ += header;
  WEFT_ASSERT(count <= remaining());  // callers may size buffers by it
  return WireError::none;
}

WireError Reader::skip_value() {
  // Values still to step over; containers add their elements. Each pending
  // value needs at least one byte, which bounds `pending` by the input size.
  std::uint64_t pending = 1;
  while (pending > 0) {
    if (!has(1)) return WireError::truncated;
    if (pending > remaining()) return WireError::truncated;
    --pending;
    const std::uint8_t marker = data_[position_];
    std::size_t header = 1;
    std::uint64_t payload = 0;  // bytes of scalar payload after the header
    if (marker <= 0x7f || marker >= 0xe0 || marker == format::kNil || marker == 0xc2 ||
        marker == 0xc3) {
      // fixint, negative fixint, nil, false, true
    } else if (marker >= 0x80 && marker <= 0x8f) {
      pending += 2ULL * (marker - 0x80u);
    } else if (marker >= 0x90 && marker <= 0x9f) {
      pending += marker - 0x90u;
    } else if (marker >= 0xa0 && marker <= 0xbf) {
      payload = marker - 0xa0u;
    } else {
      std::size_t length_width = 0;  // width of a big-endian length or count
      switch (marker) {
        case 0xc1: return WireError::wrong_type;  // never used by MessagePack
        case format::kBin8: case format::kStr8: case 0xc7: length_width = 1; break;
        case format::kBin16: case format::kStr16: case 0xc8: length_width = 2; break;
        case format::kBin32: case format::kStr32: case 0xc9: length_width = 4; break;
        case format::kArray16: case format::kMap16: length_width = 2; break;
        case format::kArray32: case format::kMap32: length_width = 4; break;
        case 0xca: payload = 4; break;                     // float32
        case 0xcb: payload = 8; break;                     // float64
        case format::kUint8: case format::kInt8: payload = 1; break;
        case format::kUint16: case format::kInt16: payload = 2; break;
        case format::kUint32: case format::kInt32: payload = 4; break;
        case format::kUint64: case format::kInt64: payload = 8; break;
        case 0xd4: payload = 2; break;                     // fixext 1 (type + data)
        case 0xd5: payload = 3; break;
        case 0xd6: payload = 5; break;
        case 0xd7: payload = 9; break;
        case 0xd8: payload = 17; break;
        default: return WireError::wrong_type;
      }
      if (length_width != 0) {
        if (!has(1 + length_width)) return WireError::truncated;
        const std::uint8_t* p = data_ + position_ + 1;
        const std::uint64_t n = length_width == 1 ? p[0] : length_width == 2 ? load_be16(p) : load_be32(p);
        header = 1 + length_width;
        if (marker == format::kArray16 || marker == format::kArray32) {
          pending += n;
        } else if (marker == format::kMap16 || marker == format::kMap32) {
          pending += 2 * n;
        } else {
          payload = n + ((marker >= 0xc7 && marker <= 0xc9) ? 1 : 0);  // ext carries a type byte
        }
      }
    }
    if (remaining() < header + payload) return WireError::truncated;
    position_ += static_cast<std::size_t>(header + payload);
  }
  WEFT_ASSERT(position_ <= size_);
  return WireError::none;
}

void Writer::put_length_wide(std::uint8_t op16, std::uint8_t op32, std::size_t length) {
  WEFT_ASSERT(length <= 0xffffffffULL);
  if (length <= 0xffff) {
    std::uint8_t bytes[3] = {op16, 0, 0};
    store_be16(bytes + 1, static_cast<std::uint16_t>(length));
    put_bytes(bytes, sizeof bytes);
  } else {
    std::uint8_t bytes[5] = {op32, 0, 0, 0, 0};
    store_be32(bytes + 1, static_cast<std::uint32_t>(length));
    put_bytes(bytes, sizeof bytes);
  }
}

void Writer::write_uint_slow(std::uint64_t value) {
  if (value <= 0xff) {
    put(format::kUint8);
    put(static_cast<std::uint8_t>(value));
  } else if (value <= 0xffff) {
    std::uint8_t bytes[3] = {format::kUint16, 0, 0};
    store_be16(bytes + 1, static_cast<std::uint16_t>(value));
    put_bytes(bytes, sizeof bytes);
  } else if (value <= 0xffffffff) {
    std::uint8_t bytes[5] = {format::kUint32, 0, 0, 0, 0};
    store_be32(bytes + 1, static_cast<std::uint32_t>(value));
    put_bytes(bytes, sizeof bytes);
  } else {
    std::uint8_t bytes[9] = {format::kUint64, 0, 0, 0, 0, 0, 0, 0, 0};
    store_be64(bytes + 1, value);
    put_bytes(bytes, sizeof bytes);
  }
}

}  // namespace weft::wire
