// The wire of entity messages: what a region (shard/region.hpp) reads from
// a tell or an ask tagged kEntityTag, whoever sent it.
//
// Model. An entity message names its entity's key and carries the user's
// own tag and body, plus how many regions have handed it on (hops): a
// region forwards a message its view gives to another owner, and a message
// that has been handed on kMaxHops times is refused rather than forwarded
// again (two regions whose views disagree would otherwise bounce it).
// The kind is not in the envelope: the region the message is sent to is the
// kind's (`shard.<kind>`), so an entity message for a kind the node does not
// host is the kernel's unknown_actor dead letter, counted there.
//
// Layout (little-endian): u8 version (1), u8 hops, u32 user tag, u16 key
// length, key bytes, user body. Keys are 1..kMaxKeyBytes bytes; anything
// else, or a buffer shorter than its header says, does not decode.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/ids.hpp"

namespace weft::shard {

// Tags at and above 0xFFFF0000 are the sharding layer's; user tags inside
// an envelope are unrestricted.
inline constexpr std::uint32_t kEntityTag = 0xFFFF0001;  // an entity message
inline constexpr std::uint32_t kRefusedTag = 0xFFFF0002;  // a region's answer to an ask it could not place
inline constexpr std::size_t kMaxKeyBytes = 256;
inline constexpr std::uint8_t kMaxHops = 2;

// The actor name of `kind`'s region on every node.
std::string region_name(std::string_view kind);
ActorRef region_of(const NodeAddress& node, std::string_view kind);

struct EntityMessage {
  std::uint8_t hops = 0;
  std::uint32_t tag = 0;
  std::string_view key;
  std::span<const std::uint8_t> body;
};

// Appends the envelope of `message` to `out` (cleared first). The key must
// be 1..kMaxKeyBytes bytes (asserted: callers check with valid_key).
void encode(const EntityMessage& message, std::vector<std::uint8_t>& out);
std::vector<std::uint8_t> encode(const EntityMessage& message);
bool valid_key(std::string_view key);

enum class DecodeError : std::uint8_t { truncated, bad_version, bad_key };
std::string_view to_string(DecodeError error);

struct Decoded {
  std::optional<EntityMessage> message;  // views into the decoded bytes
  DecodeError error = DecodeError::truncated;
};
Decoded decode(std::span<const std::uint8_t> bytes);

}  // namespace weft::shard
