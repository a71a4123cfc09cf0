// The user-message envelope: every tell, ask and reply between nodes.
//
//   { 0: kind            uint  tell (0x40) | ask (0x41) | reply (0x42)
//     1: target          ref   the receiving actor
//     2: sender          ref | nil   nil: a tell from outside any actor
//     3: correlation_id  uint  0 for tell; non-zero for ask and its reply
//     4: type_tag        uint  user-chosen message type, < 2^32
//     5: body            bin   the user's bytes, opaque to weft }
//
// All six fields are required, no other key is allowed, order is free. An ask
// must name its sender (the reply goes there). Decoding returns views into the
// frame buffer and allocates nothing: the envelope is valid while that buffer
// is.
#pragma once

#include <cstdint>
#include <span>

#include "kernel/wire/errors.hpp"
#include "kernel/wire/fields.hpp"
#include "kernel/wire/msgpack.hpp"
#include "kernel/wire/refs.hpp"

namespace weft::wire {

struct Envelope {
  MessageKind kind = MessageKind::tell;
  ActorRefView target;
  ActorRefView sender;
  std::uint64_t correlation_id = 0;
  std::uint32_t type_tag = 0;
  Bytes body;

  friend bool operator==(const Envelope& a, const Envelope& b);
};

enum class EnvelopeField : unsigned {
  kind = kKindKey,
  target = 1,
  sender = 2,
  correlation_id = 3,
  type_tag = 4,
  body = 5,
};

// Checks what the decoder would check, for the sending side: encoding an
// envelope that fails here is a programmer error.
WireError validate(const Envelope& envelope);

std::size_t encoded_size(const Envelope& envelope);
void encode(const Envelope& envelope, Writer& writer);

// Decodes a frame payload that must hold an envelope, in one pass.
Decoded<Envelope> decode_envelope(Bytes payload);

}  // namespace weft::wire
