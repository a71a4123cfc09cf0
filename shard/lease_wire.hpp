// What regions in the majority mode send each other (shard/quorum_lease.hpp):
// a host asks every voter for a vote, a voter answers with the shards it
// names the host for, a host that hands shards over releases them.
//
// Layout (little-endian). VoteRequest: u8 version (1), i64 the asker's
// clock (ns), u64 the fingerprint of the asker's voter list. Vote: u8
// version, i64 the request's clock, echoed, u32 count, u32 shard each.
// Release: u8 version, u32 count, u32 shard each.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "kernel/time.hpp"
#include "shard/placement.hpp"

namespace weft::shard {

struct VoteRequest {
  Instant asked;
  std::uint64_t voters = 0;  // fingerprint: a voter answers only a request from a node with its own list
};
std::vector<std::uint8_t> encode_vote_request(const VoteRequest& request);
std::optional<VoteRequest> decode_vote_request(std::span<const std::uint8_t> bytes);

struct Vote {
  Instant asked;
  std::vector<ShardId> shards;
};
std::vector<std::uint8_t> encode_vote(const Vote& vote);
std::optional<Vote> decode_vote(std::span<const std::uint8_t> bytes);

// A Release is a list of shards alone.
std::vector<std::uint8_t> encode_release(const std::vector<ShardId>& shards);
std::optional<std::vector<ShardId>> decode_release(std::span<const std::uint8_t> bytes);

}  // namespace weft::shard
