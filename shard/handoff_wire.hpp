// What an old owner's region sends the new owner's when shards move
// (shard/region.hpp, "Handoff"): one HandoffEntity per entity that carries
// state, then one HandoffDone naming every shard handed over, with where
// each source's numbering had reached (shard/shard_inbox.hpp), then the
// messages it still held for those shards, forwarded. One link carries them
// in that order.
//
// A HandoffDone also names the shards its sender still serves (its view
// still gives them to it, or gives them to no one): a wait on the sender
// for one of those does not end on it. Without that list an empty
// HandoffDone (the answer to a query, or the one every newly up member
// gets) said "I served none of the shards you await", and a sender whose
// region had not yet read the view that moves a shard away said so about
// a shard it held: the new owner started its entities fresh, and the
// state that followed was dropped as a conflict (weft-entities-sim seed
// 1819: 8 acknowledged Adds lost).
//
// A HandoffQuery names the shards its sender awaits from the receiver: the
// receiver sends again what it handed the asker of those lately, marked
// `again` (the first copy may have been dropped unseen: weft-entities-sim
// seed 166, a handoff sent to a node whose kernel did not yet know the
// sender's life, so the state was lost and the key started fresh). A copy
// sent again that finds the wait on its sender over is the second of two
// (the query crossed the first): dropped, and counted as a duplicate.
//
// Layout (little-endian). HandoffEntity: u8 version (2), u8 flags (bit 0:
// again), u32 shard, u16 key length, key, then the state (the rest);
// version 1 had no flags. HandoffDone: u8 version (4), u8 flags (bit 0:
// again), u64 the receiver's life it was sent to (0: none known), u32
// shard count, then per shard u32 shard, u16 source count, and per source
// u8 host length, host, u16 port, u64 life, u64 next number; then u32
// serving count and a u32 shard each, ascending; version 3 had no life,
// version 2 no flags either. HandoffQuery: u8 version (1), u32 count, and
// a u32 shard each, ascending; an empty body (a query before version 1)
// names none.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
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
  bool again = false;  // sent again on a query
};
std::vector<std::uint8_t> encode_entity(const HandoffEntity& entity);
std::optional<HandoffEntity> decode_entity(std::span<const std::uint8_t> bytes);

struct HandoffDone {
  std::map<ShardId, ShardInbox::Numbering> shards;  // handed over, with their numbering
  std::set<ShardId> serving;                        // still the sender's: none of `shards`
  bool again = false;                               // `shards` sent again on a query
  // The receiver's life it was sent to (0: its sender knew none, and any
  // life takes it). A ref names an address, not a life: one queued behind a
  // cut link for a life that since restarted reaches the next life, which
  // must not take an old life's "nothing for you" as its own (seed 4959).
  std::uint64_t to_life = 0;
};
std::vector<std::uint8_t> encode_done(const HandoffDone& done);
std::optional<HandoffDone> decode_done(std::span<const std::uint8_t> bytes);

struct HandoffQuery {
  std::set<ShardId> awaited;  // the shards the asker awaits from the receiver
};
std::vector<std::uint8_t> encode_query(const HandoffQuery& query);
std::optional<HandoffQuery> decode_query(std::span<const std::uint8_t> bytes);

}  // namespace weft::shard
