// What an old owner's region sends the new owner's when shards move
// (shard/region.hpp, "Handoff"): one HandoffEntity per entity that carries
// state, then one HandoffDone naming every shard handed over, with where
// each source's numbering had reached (shard/shard_inbox.hpp), then the
// messages it still held for those shards, forwarded. One link carries them
// in that order.
//
// Layout (little-endian). HandoffEntity: u8 version (1), u32 shard, u16 key
// length, key, then the state (the rest). HandoffDone: u8 version (1), u32
// shard count, then per shard u32 shard, u16 source count, and per source
// u8 host length, host, u16 port, u64 life, u64 next number.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shard/placement.hpp"
#include "shard/shard_inbox.hpp"

namespace weft::shard {

struct HandoffEntity {
  ShardId shard = 0;
  std::string_view key;
  std::span<const std::uint8_t> state;
};
std::vector<std::uint8_t> encode_entity(const HandoffEntity& entity);
std::optional<HandoffEntity> decode_entity(std::span<const std::uint8_t> bytes);

struct HandoffDone {
  std::map<ShardId, ShardInbox::Numbering> shards;
};
std::vector<std::uint8_t> encode_done(const HandoffDone& done);
std::optional<HandoffDone> decode_done(std::span<const std::uint8_t> bytes);

}  // namespace weft::shard
