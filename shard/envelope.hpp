// The wire of the sharding layer: what regions (shard/region.hpp) read from
// the tells and asks sent to them, whoever sent them.
//
// Entity messages (kEntityTag). An entity message names its entity's key
// and carries the user's own tag and body, how many regions have handed it
// on (hops), and a stamp: the region it entered by (its node's address and
// life) and its number among the messages that region let in for the
// key's shard. The stamp is what keeps per-sender order across a move
// (shard/shard_inbox.hpp): every message a sender sends enters by its own
// node's region, numbered as it is sent (Region::route_here; or as it
// reaches the region, from a sender that cannot reach it directly), so a
// sender's messages to one entity carry increasing numbers from one
// source, whatever path each takes afterwards. A message handed on kMaxHops times is refused rather
// than forwarded again (two regions whose views disagree would otherwise
// bounce it). The kind is not in the envelope: the region the message is
// sent to is the kind's (`shard.<kind>`), so an entity message for a kind
// the node does not host is the kernel's unknown_actor dead letter.
//
// Layout (little-endian): u8 version (1), u8 hops, u8 flags (bit 0:
// stamped), u32 user tag, u16 key length; if stamped, u8 host length, host,
// u16 port, u64 life, u64 number; then the key, then the user body. Keys
// are 1..kMaxKeyBytes bytes, hosts 1..255; anything else, or a buffer
// shorter than its header says, does not decode.
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
inline constexpr std::uint32_t kEntityTag = 0xFFFF0001;        // an entity message
inline constexpr std::uint32_t kRefusedTag = 0xFFFF0002;       // a region's answer to an ask it refused
inline constexpr std::uint32_t kHandoffEntityTag = 0xFFFF0003;  // shard/handoff_wire.hpp
inline constexpr std::uint32_t kHandoffDoneTag = 0xFFFF0004;    // shard/handoff_wire.hpp
inline constexpr std::uint32_t kHandoffQueryTag = 0xFFFF0005;   // "send me your HandoffDone": empty body
inline constexpr std::uint32_t kVoteRequestTag = 0xFFFF0006;    // shard/lease_wire.hpp (majority mode)
inline constexpr std::uint32_t kVoteTag = 0xFFFF0007;           // shard/lease_wire.hpp
inline constexpr std::uint32_t kReleaseTag = 0xFFFF0008;        // shard/lease_wire.hpp
inline constexpr std::size_t kMaxKeyBytes = 256;
inline constexpr std::uint8_t kMaxHops = 2;

// The actor name of `kind`'s region on every node.
std::string region_name(std::string_view kind);
ActorRef region_of(const NodeAddress& node, std::string_view kind);

// The region a message entered by, and its number there.
struct Stamp {
  std::string_view host;
  std::uint16_t port = 0;
  std::uint64_t life = 0;
  std::uint64_t number = 0;
};

struct EntityMessage {
  std::uint8_t hops = 0;
  std::uint32_t tag = 0;
  std::string_view key;
  std::span<const std::uint8_t> body;
  std::optional<Stamp> stamp = {};
};

// Writes the envelope of `message` to `out` (cleared first). The key must
// be valid (asserted: callers check with valid_key) and a stamp's host
// 1..255 bytes.
void encode(const EntityMessage& message, std::vector<std::uint8_t>& out);
std::vector<std::uint8_t> encode(const EntityMessage& message);
// The same into `out`, which must be exactly encoded_size(message) bytes:
// for a sender that encodes into a buffer of its own (shard/entity_ref.cpp).
std::size_t encoded_size(const EntityMessage& message);
void encode_to(const EntityMessage& message, std::span<std::uint8_t> out);
bool valid_key(std::string_view key);

enum class DecodeError : std::uint8_t { truncated, bad_version, bad_key, bad_stamp };
std::string_view to_string(DecodeError error);

struct Decoded {
  std::optional<EntityMessage> message;  // views into the decoded bytes
  DecodeError error = DecodeError::truncated;
};
Decoded decode(std::span<const std::uint8_t> bytes);

// Little-endian fields, shared with handoff_wire.cpp: a reader that fails
// (and stays failed) rather than reading past its bytes.
namespace wire_detail {
// Inline: the envelope's fields are read and written on every entity
// message, each with a constant width the compiler unrolls
// (weft_bench_shard).
inline void put(std::vector<std::uint8_t>& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}
void put_text(std::vector<std::uint8_t>& out, std::string_view text, int length_bytes);
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  std::uint64_t get(int bytes) {
    const std::span<const std::uint8_t> field = take(static_cast<std::size_t>(bytes));
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < field.size(); ++i) value |= std::uint64_t{field[i]} << (8 * i);
    return value;
  }
  std::string_view text(int length_bytes) {
    const auto n = static_cast<std::size_t>(get(length_bytes));
    const std::span<const std::uint8_t> field = take(n);
    return {reinterpret_cast<const char*>(field.data()), field.size()};
  }
  std::span<const std::uint8_t> take(std::size_t n) {
    if (!ok_ || bytes_.size() - at_ < n) {
      ok_ = false;
      return {};
    }
    const std::span<const std::uint8_t> field = bytes_.subspan(at_, n);
    at_ += n;
    return field;
  }
  std::span<const std::uint8_t> rest() { return take(bytes_.size() - at_); }
  bool ok() const { return ok_; }
  bool done() const { return ok_ && at_ == bytes_.size(); }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t at_ = 0;
  bool ok_ = true;
};
}  // namespace wire_detail

}  // namespace weft::shard
