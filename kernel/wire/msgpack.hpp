// The subset of MessagePack weft speaks, read and written by hand.
//
// Reader: a cursor over a byte span. Every read checks the bytes it needs
// before touching them and returns a WireError instead of throwing; strings
// and binaries come back as views into the span, so decoding allocates
// nothing. Any valid encoding of a value is accepted (a 5 may arrive as
// fixint or uint32, a non-negative value as a signed int), since other
// encoders choose differently.
//
// Writer: writes the shortest encoding of each value into a region the
// caller sized beforehand with the size_of_* functions, so encoding a message
// is one allocation (or none, into reused capacity). Each write asserts that
// it fits (one pointer comparison, no error path), and the frame encoder
// asserts at the end that the region was filled exactly.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "kernel/assert.hpp"
#include "kernel/wire/errors.hpp"

namespace weft::wire {

using Bytes = std::span<const std::uint8_t>;

namespace format {
inline constexpr std::uint8_t kNil = 0xc0;
inline constexpr std::uint8_t kBin8 = 0xc4, kBin16 = 0xc5, kBin32 = 0xc6;
inline constexpr std::uint8_t kUint8 = 0xcc, kUint16 = 0xcd, kUint32 = 0xce, kUint64 = 0xcf;
inline constexpr std::uint8_t kInt8 = 0xd0, kInt16 = 0xd1, kInt32 = 0xd2, kInt64 = 0xd3;
inline constexpr std::uint8_t kStr8 = 0xd9, kStr16 = 0xda, kStr32 = 0xdb;
inline constexpr std::uint8_t kArray16 = 0xdc, kArray32 = 0xdd;
inline constexpr std::uint8_t kMap16 = 0xde, kMap32 = 0xdf;
}  // namespace format

inline std::uint16_t load_be16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}
inline std::uint32_t load_be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}
inline std::uint64_t load_be64(const std::uint8_t* p) {
  return (std::uint64_t{load_be32(p)} << 32) | load_be32(p + 4);
}
inline void store_be16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}
inline void store_be32(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 24);
  p[1] = static_cast<std::uint8_t>(v >> 16);
  p[2] = static_cast<std::uint8_t>(v >> 8);
  p[3] = static_cast<std::uint8_t>(v);
}
inline void store_be64(std::uint8_t* p, std::uint64_t v) {
  store_be32(p, static_cast<std::uint32_t>(v >> 32));
  store_be32(p + 4, static_cast<std::uint32_t>(v));
}

class Reader {
 public:
  explicit Reader(Bytes bytes) : data_(bytes.data()), size_(bytes.size()) {}

  std::size_t position() const { return position_; }
  std::size_t remaining() const { return size_ - position_; }
  // Checked once per message (FieldWalk::finish): no read ran past the end.
  bool at_end() const {
    WEFT_ASSERT(position_ <= size_);
    return position_ == size_;
  }

  // Each read has an inline fast path for the compact forms weft's own
  // encoder writes (fixint, fixstr, bin8, fix headers) and an out-of-line
  // path for everything else.
  WireError read_map_header(std::uint32_t& entries) {
    if (has(1) && (data_[position_] & 0xf0) == 0x80) return take_fix_count(entries);
    return read_container_header(0x80, 0x8f, format::kMap16, format::kMap32, entries);
  }
  WireError read_array_header(std::uint32_t& elements) {
    if (has(1) && (data_[position_] & 0xf0) == 0x90) return take_fix_count(elements);
    return read_container_header(0x90, 0x9f, format::kArray16, format::kArray32, elements);
  }
  WireError read_uint(std::uint64_t& value) {
    if (has(1) && data_[position_] < 0x80) {
      value = data_[position_++];
      return WireError::none;
    }
    return read_uint_slow(value);
  }
  WireError read_str(std::string_view& value) {
    if (has(1) && (data_[position_] & 0xe0) == 0xa0) {
      const std::size_t length = data_[position_] & 0x1fu;
      if (remaining() - 1 < length) return WireError::truncated;
      value = std::string_view(reinterpret_cast<const char*>(data_ + position_ + 1), length);
      position_ += 1 + length;
      return WireError::none;
    }
    return read_str_slow(value);
  }
  WireError read_bin(Bytes& value) {
    if (has(2) && data_[position_] == format::kBin8) {
      const std::size_t length = data_[position_ + 1];
      if (remaining() - 2 < length) return WireError::truncated;
      value = Bytes(data_ + position_ + 2, length);
      position_ += 2 + length;
      return WireError::none;
    }
    return read_bin_slow(value);
  }
  // True and consumed if the next value is nil; false (nothing consumed)
  // otherwise, including at the end of input.
  bool try_read_nil() {
    if (!has(1) || data_[position_] != format::kNil) return false;
    position_ += 1;
    return true;
  }
  // Steps over one complete value of any type, nested ones included, in
  // O(bytes) time with no recursion, so no nesting depth can exhaust a stack.
  WireError skip_value();

 private:
  WireError take_fix_count(std::uint32_t& count) {
    count = data_[position_] & 0x0fu;
    if (remaining() - 1 < count) return WireError::truncated;  // each element takes a byte
    position_ += 1;
    return WireError::none;
  }
  WireError read_uint_slow(std::uint64_t& value);
  WireError read_str_slow(std::string_view& value);
  WireError read_bin_slow(Bytes& value);
  WireError read_length_prefixed(std::uint8_t marker, std::uint8_t fix_low, std::uint8_t fix_high,
                                 std::uint8_t op8, std::uint8_t op16, std::uint8_t op32,
                                 std::size_t& length);
  WireError read_container_header(std::uint8_t fix_low, std::uint8_t fix_high, std::uint8_t op16,
                                  std::uint8_t op32, std::uint32_t& count);
  bool has(std::size_t n) const { return size_ - position_ >= n; }

  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t position_ = 0;
};

class Writer {
 public:
  // Writes into [begin, begin + capacity); the caller sized it with size_of_*.
  Writer(std::uint8_t* begin, std::size_t capacity) : cursor_(begin), end_(begin + capacity) {}

  void write_map_header(std::uint32_t entries) {
    if (entries < 16) {
      put(static_cast<std::uint8_t>(0x80 | entries));
    } else {
      put_length(0, format::kMap16, format::kMap32, entries);
    }
  }
  void write_array_header(std::uint32_t elements) {
    if (elements < 16) {
      put(static_cast<std::uint8_t>(0x90 | elements));
    } else {
      put_length(0, format::kArray16, format::kArray32, elements);
    }
  }
  void write_uint(std::uint64_t value) {
    if (value < 0x80) {
      put(static_cast<std::uint8_t>(value));
    } else {
      write_uint_slow(value);
    }
  }
  void write_str(std::string_view value) {
    if (value.size() < 32) {
      put(static_cast<std::uint8_t>(0xa0 | value.size()));
    } else {
      put_length(format::kStr8, format::kStr16, format::kStr32, value.size());
    }
    put_bytes(value.data(), value.size());
  }
  void write_bin(Bytes value) {
    put_length(format::kBin8, format::kBin16, format::kBin32, value.size());
    put_bytes(value.data(), value.size());
  }
  void write_nil() { put(format::kNil); }

  std::size_t unused() const { return static_cast<std::size_t>(end_ - cursor_); }

  static constexpr std::size_t size_of_uint(std::uint64_t value) {
    if (value < 0x80) return 1;
    if (value <= 0xff) return 2;
    if (value <= 0xffff) return 3;
    if (value <= 0xffffffff) return 5;
    return 9;
  }
  static constexpr std::size_t size_of_str(std::size_t length) {
    return length + (length < 32 ? 1 : length <= 0xff ? 2 : length <= 0xffff ? 3 : 5);
  }
  static constexpr std::size_t size_of_bin(std::size_t length) {
    return length + (length <= 0xff ? 2 : length <= 0xffff ? 3 : 5);
  }
  static constexpr std::size_t size_of_container_header(std::size_t count) {
    return count < 16 ? 1 : count <= 0xffff ? 3 : 5;
  }
  static constexpr std::size_t size_of_nil() { return 1; }

 private:
  void put(std::uint8_t byte) {
    WEFT_ASSERT(cursor_ < end_);
    *cursor_++ = byte;
  }
  void put_bytes(const void* bytes, std::size_t n) {
    WEFT_ASSERT(static_cast<std::size_t>(end_ - cursor_) >= n);
    if (n != 0) std::memcpy(cursor_, bytes, n);
    cursor_ += n;
  }
  void put_length(std::uint8_t op8, std::uint8_t op16, std::uint8_t op32, std::size_t length) {
    if (length <= 0xff && op8 != 0) {
      const std::uint8_t bytes[2] = {op8, static_cast<std::uint8_t>(length)};
      put_bytes(bytes, sizeof bytes);
    } else {
      put_length_wide(op16, op32, length);
    }
  }
  void put_length_wide(std::uint8_t op16, std::uint8_t op32, std::size_t length);
  void write_uint_slow(std::uint64_t value);

  std::uint8_t* cursor_;
  std::uint8_t* end_;
};

// The size_of_* must agree with the forms the write_* choose, at every
// boundary between two forms (a disagreement surfaces only as a failed
// encode, and only for a value at that boundary).
static_assert(Writer::size_of_uint(0x7f) == 1 && Writer::size_of_uint(0x80) == 2 &&
              Writer::size_of_uint(0xff) == 2 && Writer::size_of_uint(0x100) == 3 &&
              Writer::size_of_uint(0xffff) == 3 && Writer::size_of_uint(0x10000) == 5 &&
              Writer::size_of_uint(0xffffffff) == 5 && Writer::size_of_uint(0x100000000) == 9);
static_assert(Writer::size_of_str(31) == 32 && Writer::size_of_str(32) == 34 &&
              Writer::size_of_str(0xff) == 0xff + 2 && Writer::size_of_str(0x100) == 0x100 + 3 &&
              Writer::size_of_str(0x10000) == 0x10000 + 5);
static_assert(Writer::size_of_bin(0) == 2 && Writer::size_of_bin(0xff) == 0xff + 2 &&
              Writer::size_of_bin(0x100) == 0x100 + 3 && Writer::size_of_bin(0x10000) == 0x10000 + 5);
static_assert(Writer::size_of_container_header(15) == 1 && Writer::size_of_container_header(16) == 3 &&
              Writer::size_of_container_header(0xffff) == 3 &&
              Writer::size_of_container_header(0x10000) == 5);

}  // namespace weft::wire
