// Majority-mode messages; the layout is in lease_wire.hpp.
#include "shard/lease_wire.hpp"

#include "shard/envelope.hpp"

namespace weft::shard {

namespace {

constexpr std::uint8_t kVersion = 1;
// A list no region sends: more shards than any kind has (a u32 count read
// from a short or forged message must not size an allocation).
constexpr std::uint64_t kMaxListed = 1u << 16;

void put_shards(std::vector<std::uint8_t>& out, const std::vector<ShardId>& shards) {
  wire_detail::put(out, shards.size(), 4);
  for (const ShardId shard : shards) wire_detail::put(out, shard, 4);
}

bool get_shards(wire_detail::Reader& in, std::vector<ShardId>& shards) {
  const std::uint64_t count = in.get(4);
  if (!in.ok() || count > kMaxListed) return false;
  shards.reserve(count);
  for (std::uint64_t i = 0; i < count && in.ok(); ++i) shards.push_back(static_cast<ShardId>(in.get(4)));
  return in.done();
}

Instant get_instant(wire_detail::Reader& in) {
  return Instant::from_ns(static_cast<std::int64_t>(in.get(8)));
}

}  // namespace

std::vector<std::uint8_t> encode_vote_request(const VoteRequest& request) {
  std::vector<std::uint8_t> out;
  out.push_back(kVersion);
  wire_detail::put(out, static_cast<std::uint64_t>(request.asked.ns_since_epoch()), 8);
  wire_detail::put(out, request.voters, 8);
  return out;
}

std::optional<VoteRequest> decode_vote_request(std::span<const std::uint8_t> bytes) {
  wire_detail::Reader in(bytes);
  if (in.get(1) != kVersion) return std::nullopt;
  VoteRequest request;
  request.asked = get_instant(in);
  request.voters = in.get(8);
  if (!in.done()) return std::nullopt;
  return request;
}

std::vector<std::uint8_t> encode_vote(const Vote& vote) {
  std::vector<std::uint8_t> out;
  out.push_back(kVersion);
  wire_detail::put(out, static_cast<std::uint64_t>(vote.asked.ns_since_epoch()), 8);
  put_shards(out, vote.shards);
  return out;
}

std::optional<Vote> decode_vote(std::span<const std::uint8_t> bytes) {
  wire_detail::Reader in(bytes);
  if (in.get(1) != kVersion) return std::nullopt;
  Vote vote;
  vote.asked = get_instant(in);
  if (!get_shards(in, vote.shards)) return std::nullopt;
  return vote;
}

std::vector<std::uint8_t> encode_release(const std::vector<ShardId>& shards) {
  std::vector<std::uint8_t> out;
  out.push_back(kVersion);
  put_shards(out, shards);
  return out;
}

std::optional<std::vector<ShardId>> decode_release(std::span<const std::uint8_t> bytes) {
  wire_detail::Reader in(bytes);
  if (in.get(1) != kVersion) return std::nullopt;
  std::vector<ShardId> shards;
  if (!get_shards(in, shards)) return std::nullopt;
  return shards;
}

}  // namespace weft::shard
