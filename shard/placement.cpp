// Placement by rendezvous hashing; the model is in placement.hpp.
#include "shard/placement.hpp"

#include <algorithm>

#include "kernel/assert.hpp"
#include "kernel/prng.hpp"

namespace weft::shard {

namespace {

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h) {
  for (const char c : bytes) {
    h ^= static_cast<std::uint8_t>(c);
    h *= kFnvPrime;
  }
  return h;
}

// Fields are joined with their lengths, so ("ab", "c") and ("a", "bc") differ.
std::uint64_t field(std::uint64_t h, std::string_view bytes) {
  h = fnv1a(bytes, h);
  return mix64(h ^ bytes.size());
}

}  // namespace

std::uint64_t stable_hash(std::string_view bytes, std::uint64_t seed) {
  return mix64(fnv1a(bytes, kFnvOffset ^ seed));
}

ShardId shard_of(std::string_view kind, std::string_view key, std::uint32_t shards) {
  return ShardMap(kind, shards).shard_of(key);
}

ShardMap::ShardMap(std::string_view kind, std::uint32_t shards) : kind_hash_(field(kFnvOffset, kind)), shards_(shards) {
  WEFT_ASSERT(shards >= 1);
}

std::uint64_t score(std::string_view kind, ShardId shard, const NodeAddress& host) {
  std::uint64_t h = field(kFnvOffset, kind);
  h = mix64(h ^ shard);
  h = field(h, host.host);
  return mix64(h ^ host.port);
}

Placement::Placement(std::span<const Member> members) {
  for (const Member& m : members) {
    if (m.status == MemberStatus::up) hosts_.push_back(m.address());
  }
  std::sort(hosts_.begin(), hosts_.end());
  hosts_.erase(std::unique(hosts_.begin(), hosts_.end()), hosts_.end());
}

Placement Placement::of_node(std::span<const Member> members, const NodeAddress& self) {
  Placement placement(members);
  const bool leaving = std::any_of(members.begin(), members.end(), [&](const Member& m) {
    return m.status == MemberStatus::leaving && m.address() == self;
  });
  if (leaving) {
    auto& hosts = placement.hosts_;
    const auto at = std::lower_bound(hosts.begin(), hosts.end(), self);
    if (at == hosts.end() || *at != self) hosts.insert(at, self);
  }
  return placement;
}

std::optional<NodeAddress> rendezvous_owner(std::string_view kind, ShardId shard, std::span<const NodeAddress> hosts) {
  WEFT_ASSERT(std::is_sorted(hosts.begin(), hosts.end()));
  const NodeAddress* best = nullptr;
  std::uint64_t best_score = 0;
  for (const NodeAddress& host : hosts) {  // address order: a tie keeps the lower address
    const std::uint64_t s = score(kind, shard, host);
    if (best == nullptr || s > best_score) {
      best = &host;
      best_score = s;
    }
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

std::optional<NodeAddress> Placement::owner(std::string_view kind, ShardId shard) const {
  return rendezvous_owner(kind, shard, hosts_);
}

}  // namespace weft::shard
