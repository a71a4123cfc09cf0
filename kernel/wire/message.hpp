// Decoding any frame payload: peek at its kind (key 0, usually the first),
// then decode the payload with that kind's decoder, which checks the whole
// map in one pass. The kernel calls this for every inbound frame.
#pragma once

#include <variant>

#include "kernel/wire/control.hpp"
#include "kernel/wire/envelope.hpp"
#include "kernel/wire/errors.hpp"
#include "kernel/wire/handshake.hpp"

namespace weft::wire {

using Message = std::variant<Hello, HelloProof, Envelope, Join, Heartbeat, HeartbeatAck, ProbeRequest, Probe,
                             ProbeAck, ProbeAlive, GossipDigest, GossipState, GossipDelta>;

Decoded<Message> decode_message(Bytes payload);

}  // namespace weft::wire
