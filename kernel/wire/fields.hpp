// Every weft message is one MessagePack map from small integer keys to
// values, and key 0 is always the message kind. FieldTable indexes such a
// map in one pass: it checks the map's structure (keys are integers below
// kFieldKeyLimit, no key twice, at most kMaxFields entries, nothing after the
// map), records where each value starts, and leaves the typed reading to the
// message's own decoder. Field order on the wire is therefore free.
//
// Message kinds share one byte-sized space, grouped so a driver can tell
// control traffic (which goes ahead of user traffic) from user traffic by
// range alone:
//   0x01-0x0f  link control (handshake)
//   0x10-0x3f  membership and failure detection (the kernel's control plane)
//   0x40-0x4f  user messaging (tell, ask, reply)
#pragma once

#include <array>
#include <cstdint>

#include "kernel/wire/errors.hpp"
#include "kernel/wire/msgpack.hpp"

namespace weft::wire {

enum class MessageKind : std::uint8_t {
  hello = 0x01,
  tell = 0x40,
  ask = 0x41,
  reply = 0x42,
};

// Decodes a kind number; unknown_kind for any value this version lacks.
WireError parse_kind(std::uint64_t value, MessageKind& kind);
constexpr bool is_control(MessageKind kind) { return static_cast<std::uint8_t>(kind) < 0x40; }
constexpr bool is_user(MessageKind kind) {
  return static_cast<std::uint8_t>(kind) >= 0x40 && static_cast<std::uint8_t>(kind) <= 0x4f;
}

inline constexpr unsigned kKindKey = 0;
inline constexpr unsigned kFieldKeyLimit = 32;
inline constexpr std::uint32_t kMaxFields = 16;

constexpr std::uint32_t field_bit(unsigned key) { return std::uint32_t{1} << key; }

class FieldTable {
 public:
  // Indexes `payload`, which must hold exactly one map.
  WireError index(Bytes payload);

  bool has(unsigned key) const { return key < kFieldKeyLimit && (present_ & field_bit(key)) != 0; }
  // missing_field if a required key is absent; unknown_field if a key is
  // neither required nor optional.
  WireError check_schema(std::uint32_t required, std::uint32_t optional) const;
  // A reader positioned at `key`'s value; the key must be present.
  Reader value(unsigned key) const;
  // Reads the kind (key 0), which every message must carry.
  WireError read_kind(MessageKind& kind) const;

 private:
  Bytes payload_;
  std::uint32_t present_ = 0;
  std::array<std::uint32_t, kFieldKeyLimit> offset_;  // valid where present_ has the bit
};

}  // namespace weft::wire
