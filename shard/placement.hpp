// Placement: which node hosts a shard of an entity kind, as a pure function
// of the members up in one view (issue 28; ../wip/SHARDING_PLAN.md).
//
// Model. An entity is addressed by identity, (kind, key). Keys map to a
// fixed number of shards per kind (shard_of: key_hash of the key, seeded
// by the kind's hash, scaled to the kind's shard count; shard/key_hash.hpp),
// and a shard to the member with the highest rendezvous score among the
// members `up` in the view (highest random weight hashing, as
// Proto.Actor's Rendezvous lookup; score()). Why this,
// and not a ring or a coordinator:
//   - it is a pure function of the view: two nodes whose views hold the
//     same members up name the same owner for every shard, with no
//     coordinator and no messages (what Akka's coordinator singleton and
//     Dapr's Raft placement service are for), and weft's views converge;
//   - a join or a leave moves only the shards it must: those the newcomer
//     now outscores every other member on (about 1/N of them), or those the
//     leaver held, and no virtual nodes are needed;
//   - the address, not the incarnation, is scored, so a node restarted at
//     its address gets its shards back.
// Only `up` members host: a joining member is not yet seen by everyone, and
// leaving, exiting, down and removed ones are on their way out (but a
// leaving node, in its own region's placement, hosts until its leave has
// been seen by all: of_node). Ties (two
// addresses with one score) go to the lower address, so the owner never
// depends on the order a view lists its members in.
//
// The hashes of kinds and addresses are 64-bit FNV-1a over the bytes,
// finished by mix64 (kernel/prng.hpp); keys are hashed by key_hash, which
// every message pays for. Both are stable across processes, builds and
// platforms, since two nodes that disagreed on them would disagree on every
// owner (tests/key_hash_test.cpp pins keys' hashes and shards).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "kernel/ids.hpp"
#include "kernel/membership/member.hpp"
#include "shard/key_hash.hpp"

namespace weft::shard {

using ShardId = std::uint32_t;

// A stable 64-bit hash of `bytes` (FNV-1a, then mix64), continuing from `seed`.
std::uint64_t stable_hash(std::string_view bytes, std::uint64_t seed = 0);

// The shard of `key` among `shards` shards of `kind` (shards >= 1).
ShardId shard_of(std::string_view kind, std::string_view key, std::uint32_t shards);

// shard_of for one kind, its part of the hash taken once: a region maps
// every entity message it reads (weft_bench_shard). The key's hash is also
// its place in the region's entity index (shard/entity_table.hpp), so the
// owner hashes each key once.
class ShardMap {
 public:
  ShardMap(std::string_view kind, std::uint32_t shards);
  ShardId shard_of(std::string_view key) const { return shard_of_hash(hash(key)); }
  std::uint64_t hash(std::string_view key) const { return key_hash(kind_hash_, key); }
  // The high 32 bits scaled to [0, shards): a multiply, not a division.
  ShardId shard_of_hash(std::uint64_t hash) const { return static_cast<ShardId>(((hash >> 32) * shards_) >> 32); }
  std::uint64_t seed() const { return kind_hash_; }

 private:
  std::uint64_t kind_hash_;
  std::uint32_t shards_;
};

// The rendezvous score of `host` for a kind's shard: the highest hosts it.
std::uint64_t score(std::string_view kind, ShardId shard, const NodeAddress& host);

// The rendezvous pick among `hosts` (in address order, no duplicates): the
// highest score, a tie to the lower address; none if `hosts` is empty. The
// one rule every owner in shard/ is named by.
std::optional<NodeAddress> rendezvous_owner(std::string_view kind, ShardId shard, std::span<const NodeAddress> hosts);

class Placement {
 public:
  // `members`: a view's members, in any order; only those `up` host.
  explicit Placement(std::span<const Member> members);
  // The placement `self`'s region reads from its node's view: as above,
  // but `self` still hosts while `leaving`. Every other member moved the
  // leaver's shards when it saw the leave, and awaits its handoff; the
  // leader moves the leaver on to exiting only once every member has seen
  // the leave (kernel/membership/leader_actions.hpp), so its handoff then
  // finds every receiver ready. Handed at once, its parts would reach
  // regions whose views still name it owner, which refuse them.
  static Placement of_node(std::span<const Member> members, const NodeAddress& self);

  // The member that hosts `shard` of `kind`; none if no member is up.
  std::optional<NodeAddress> owner(std::string_view kind, ShardId shard) const;
  // The members that may host, in address order.
  std::span<const NodeAddress> hosts() const { return hosts_; }

 private:
  std::vector<NodeAddress> hosts_;
};

}  // namespace weft::shard
