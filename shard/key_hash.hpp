// The hash of an entity's key: its shard and its place in a region's entity
// index are both read from it, so an entity message sent straight to its
// owner has its key hashed once on the sender and once on the owner.
//
// Model. key_hash(seed, key) folds the key in eight bytes at a time, each
// word read little-endian (so the value is the same on every platform and
// build: two nodes that disagreed on it would disagree on every key's
// shard), each fold a multiply by an odd constant and a shift down that
// carries the high bits into the next fold; a key's last 1-7 bytes are
// read as two overlapping words (4-7) or three bytes (1-3), which between
// them cover every byte, so keys of one length that differ anywhere
// differ in the word folded. The length is folded in first, and mix64
// (kernel/prng.hpp, a bijection) finishes, so every output bit depends on
// every input bit. The seed is the kind's own hash (ShardMap).
//
// Why not FNV-1a, as before: FNV folds one byte per multiply, and a key of
// ten to twenty bytes cost ~100 instructions a hash, twice per message
// (docs/performance.md). This takes ~25 for such a key. It is not built
// to resist keys chosen to collide, no more than FNV or std::hash (which
// the entity index used before, both unseeded) were; a region's peers are
// the cluster's authenticated members.
#pragma once

#include <cstdint>
#include <string_view>

#include "kernel/prng.hpp"
#include "shard/little_endian.hpp"

namespace weft::shard {

namespace key_hash_detail {

constexpr std::uint64_t kFold = 0x9FB21C651E98DF25ULL;  // odd: the multiplier of Evensen's rrmxmx mixer

inline std::uint64_t fold(std::uint64_t h, std::uint64_t word) {
  h = (h ^ word) * kFold;
  return h ^ (h >> 32);
}

}  // namespace key_hash_detail

inline std::uint64_t key_hash(std::uint64_t seed, std::string_view key) {
  using namespace key_hash_detail;
  const char* p = key.data();
  std::size_t n = key.size();
  std::uint64_t h = fold(seed, n);
  for (; n >= 8; p += 8, n -= 8) h = fold(h, load_le<std::uint64_t>(p));
  if (n >= 4) {
    h = fold(h, std::uint64_t{load_le<std::uint32_t>(p)} | (std::uint64_t{load_le<std::uint32_t>(p + n - 4)} << 32));
  } else if (n > 0) {
    const auto byte = [&](std::size_t i) { return static_cast<std::uint64_t>(static_cast<std::uint8_t>(p[i])); };
    h = fold(h, byte(0) | (byte(n / 2) << 8) | (byte(n - 1) << 16));
  }
  return mix64(h);
}

}  // namespace weft::shard
