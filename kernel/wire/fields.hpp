// Every weft message is one MessagePack map from small integer keys to
// values, and key 0 is always the message kind. Decoders read a message in
// one pass: FieldWalk checks the map's structure as they go (keys are
// integers below kFieldKeyLimit, no key twice, at most kMaxFields entries,
// every required key present, nothing after the map) while the message's own
// decoder reads each value by its key. Field order on the wire is free.
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
#include <string_view>

#include "kernel/assert.hpp"
#include "kernel/wire/errors.hpp"
#include "kernel/wire/msgpack.hpp"

namespace weft::wire {

enum class MessageKind : std::uint8_t {
  hello = 0x01,
  hello_proof = 0x02,
  join = 0x10,
  heartbeat = 0x11,
  heartbeat_ack = 0x12,
  probe_request = 0x13,
  probe = 0x14,
  probe_ack = 0x15,
  probe_alive = 0x16,
  gossip_digest = 0x20,
  gossip_state = 0x21,
  gossip_delta = 0x22,
  tell = 0x40,
  ask = 0x41,
  reply = 0x42,
};

inline constexpr std::array kAllMessageKinds = {
    MessageKind::hello,         MessageKind::hello_proof, MessageKind::join,        MessageKind::heartbeat,
    MessageKind::heartbeat_ack, MessageKind::probe_request, MessageKind::probe,
    MessageKind::probe_ack,     MessageKind::probe_alive, MessageKind::gossip_digest,
    MessageKind::gossip_state,  MessageKind::gossip_delta, MessageKind::tell,       MessageKind::ask,
    MessageKind::reply,
};

std::string_view to_string(MessageKind kind);

// Decodes a kind number; unknown_kind for any value this version lacks.
WireError parse_kind(std::uint64_t value, MessageKind& kind);
constexpr bool is_control(MessageKind kind) { return static_cast<std::uint8_t>(kind) < 0x40; }
constexpr bool is_user(MessageKind kind) {
  return static_cast<std::uint8_t>(kind) >= 0x40 && static_cast<std::uint8_t>(kind) <= 0x4f;
}

// kAllMessageKinds is kept by hand: strictly increasing, so each kind once
// (parse_kind's table is built from it), ending at the last kind; and every
// kind in one of the ranges above, as drivers route by range alone.
static_assert([] {
  for (std::size_t i = 1; i < kAllMessageKinds.size(); ++i) {
    if (kAllMessageKinds[i - 1] >= kAllMessageKinds[i]) return false;
  }
  return kAllMessageKinds.back() == MessageKind::reply;
}());
static_assert([] {
  for (MessageKind kind : kAllMessageKinds) {
    if (static_cast<std::uint8_t>(kind) == 0 || (!is_control(kind) && !is_user(kind))) return false;
  }
  return true;
}());

inline constexpr unsigned kKindKey = 0;
inline constexpr unsigned kFieldKeyLimit = 32;
inline constexpr std::uint32_t kMaxFields = 16;
// A message's keys are bits of one uint32_t (FieldWalk's seen set), and no
// map may declare more fields than there are keys.
static_assert(kFieldKeyLimit <= 32);
static_assert(kMaxFields <= kFieldKeyLimit);

constexpr std::uint32_t field_bit(unsigned key) {
  WEFT_ASSERT(key < kFieldKeyLimit);
  return std::uint32_t{1} << key;
}

// The structural half of a single-pass message decode:
//
//   FieldWalk walk;
//   if (auto e = walk.begin(reader); e != none) return e;
//   unsigned key;
//   while (walk.next(reader, key, e)) { switch (key) { ...read the value... } }
//   if (e != none) return e;
//   if (auto e = walk.finish(reader, kRequired); ...
class FieldWalk {
 public:
  WireError begin(Reader& reader) {
    const WireError e = reader.read_map_header(remaining_);
    if (e != WireError::none) return e;
    return remaining_ > kMaxFields ? WireError::too_many_fields : WireError::none;
  }
  // Reads the next key; false when the map is done or on error (in `error`).
  bool next(Reader& reader, unsigned& key, WireError& error) {
    if (remaining_ == 0) return false;
    --remaining_;
    std::uint64_t raw = 0;
    error = reader.read_uint(raw);
    if (error != WireError::none) return false;
    if (raw >= kFieldKeyLimit) {
      error = WireError::unknown_field;
      return false;
    }
    key = static_cast<unsigned>(raw);
    if ((seen_ & field_bit(key)) != 0) {
      error = WireError::duplicate_field;
      return false;
    }
    seen_ |= field_bit(key);
    return true;
  }
  // After the last field: nothing may follow, every required key was seen.
  WireError finish(const Reader& reader, std::uint32_t required) const {
    WEFT_ASSERT(remaining_ == 0);  // every declared field was walked
    if (!reader.at_end()) return WireError::trailing_bytes;
    return (seen_ & required) == required ? WireError::none : WireError::missing_field;
  }

 private:
  std::uint32_t remaining_ = 0;
  std::uint32_t seen_ = 0;
};

// The whole single-pass decode of a message's map but its values: checks the
// structure, that every `required` key appears and nothing but them and the
// `optional` keys, and reads the kind (key 0) into `kind`;
// read_field(key, reader) reads every other value. The caller checks the
// kind is one it decodes.
template <class ReadField>
WireError decode_fields(Bytes payload, std::uint32_t required, MessageKind& kind, ReadField read_field,
                        std::uint32_t optional = 0) {
  WEFT_ASSERT((required & field_bit(kKindKey)) != 0);  // every message names its kind
  Reader reader(payload);
  FieldWalk walk;
  if (WireError e = walk.begin(reader); e != WireError::none) return e;
  std::uint64_t raw_kind = 0;
  unsigned key = 0;
  WireError e = WireError::none;
  while (walk.next(reader, key, e)) {
    if (key == kKindKey) {
      e = reader.read_uint(raw_kind);
    } else if (((required | optional) & field_bit(key)) == 0) {
      e = WireError::unknown_field;
    } else {
      e = read_field(key, reader);
    }
    if (e != WireError::none) return e;
  }
  if (e != WireError::none) return e;
  if (e = walk.finish(reader, required); e != WireError::none) return e;
  return parse_kind(raw_kind, kind);
}

// decode_fields for a message of exactly one kind.
template <class ReadField>
WireError decode_fields_of(Bytes payload, MessageKind expected, std::uint32_t required, ReadField read_field,
                           std::uint32_t optional = 0) {
  MessageKind kind{};
  if (WireError e = decode_fields(payload, required, kind, read_field, optional); e != WireError::none) return e;
  return kind == expected ? WireError::none : WireError::unexpected_kind;
}

// The kind of the message in `payload`, without decoding the rest. One read
// when key 0 comes first (as weft's encoder writes it); otherwise a walk that
// steps over the other values.
WireError peek_kind(Bytes payload, MessageKind& kind);

}  // namespace weft::wire
