// Decoding any frame payload: index the map once, read the kind, and hand the
// same index to that kind's decoder. Drivers call this for every inbound
// frame; the kernel issue adds the membership kinds to Message.
#pragma once

#include <variant>

#include "kernel/wire/envelope.hpp"
#include "kernel/wire/errors.hpp"
#include "kernel/wire/handshake.hpp"

namespace weft::wire {

using Message = std::variant<Hello, Envelope>;

Decoded<Message> decode_message(Bytes payload);

}  // namespace weft::wire
