// Decoding any frame payload: index the map once, read the kind, and hand the
// same index to that kind's decoder. Drivers call this for every inbound
// frame.
#pragma once

#include <variant>

#include "kernel/wire/control.hpp"
#include "kernel/wire/envelope.hpp"
#include "kernel/wire/errors.hpp"
#include "kernel/wire/handshake.hpp"

namespace weft::wire {

using Message = std::variant<Hello, HelloProof, Envelope, Join, Heartbeat, HeartbeatAck, ProbeRequest, Probe,
                             ProbeAck, ProbeAlive, GossipDigest, GossipState>;

Decoded<Message> decode_message(Bytes payload);

}  // namespace weft::wire
