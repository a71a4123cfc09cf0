// Fixed-width integers read from bytes little-endian, whatever the machine:
// the sharding layer's envelope (shard/envelope.cpp) and its key hash
// (shard/key_hash.hpp), whose values every node must read alike. One copy
// on a little-endian machine.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace weft::shard {

template <class Int>
Int load_le(const void* at) {
  Int value = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&value, at, sizeof value);
  } else {
    const auto* bytes = static_cast<const std::uint8_t*>(at);
    for (std::size_t i = 0; i < sizeof value; ++i) value = static_cast<Int>(value | (Int{bytes[i]} << (8 * i)));
  }
  return value;
}

}  // namespace weft::shard
