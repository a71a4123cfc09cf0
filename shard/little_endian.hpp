// Fixed-width integers read from (and written to) bytes little-endian, whatever the machine:
// the sharding layer's envelope (shard/envelope.cpp) and its key hash
// (shard/key_hash.hpp), whose values every node must read alike. One copy
// on a little-endian machine.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace weft::shard {

// A byte at a time: any machine's reading, and a big-endian one's path.
// Apart from load_le so a little-endian machine's tests run it too.
template <class Int>
Int load_le_bytewise(const void* at) {
  Int value = 0;
  const auto* bytes = static_cast<const std::uint8_t*>(at);
  for (std::size_t i = 0; i < sizeof value; ++i) value = static_cast<Int>(value | (Int{bytes[i]} << (8 * i)));
  return value;
}

template <class Int>
Int load_le(const void* at) {
  if constexpr (std::endian::native == std::endian::little) {
    Int value = 0;
    std::memcpy(&value, at, sizeof value);
    return value;
  } else {
    return load_le_bytewise<Int>(at);
  }
}

// The writing side: `value` at `at` little-endian; returns the byte after it.
template <class Int>
std::uint8_t* store_le(std::uint8_t* at, Int value) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(at, &value, sizeof value);
  } else {
    for (std::size_t i = 0; i < sizeof value; ++i) at[i] = static_cast<std::uint8_t>(value >> (8 * i));
  }
  return at + sizeof value;
}

// `n` bytes from `bytes` at `at`; returns the byte after them (the
// envelope's and the batch's keys, hosts and bodies).
inline std::uint8_t* store_bytes(std::uint8_t* at, const void* bytes, std::size_t n) {
  if (n != 0) std::memcpy(at, bytes, n);
  return at + n;
}

}  // namespace weft::shard
