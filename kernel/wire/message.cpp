// decode_message: any inbound frame's payload, decoded by its kind's decoder.
#include "kernel/wire/message.hpp"

namespace weft::wire {
namespace {

template <class T>
Decoded<Message> widen(Decoded<T>&& decoded) {
  if (!decoded.ok()) return {.error = decoded.error};
  return {.value = Message(std::move(decoded.value))};
}

}  // namespace

Decoded<Message> decode_message(Bytes payload) {
  MessageKind kind{};
  if (WireError e = peek_kind(payload, kind); e != WireError::none) return {.error = e};
  switch (kind) {
    case MessageKind::hello: return widen(decode_hello(payload));
    case MessageKind::hello_proof: return widen(decode_hello_proof(payload));
    case MessageKind::join: return widen(decode_join(payload));
    case MessageKind::heartbeat: return widen(decode_heartbeat(payload));
    case MessageKind::heartbeat_ack: return widen(decode_heartbeat_ack(payload));
    case MessageKind::probe_request: return widen(decode_probe_request(payload));
    case MessageKind::probe: return widen(decode_probe(payload));
    case MessageKind::probe_ack: return widen(decode_probe_ack(payload));
    case MessageKind::probe_alive: return widen(decode_probe_alive(payload));
    case MessageKind::gossip_digest: return widen(decode_gossip_digest(payload));
    case MessageKind::gossip_state: return widen(decode_gossip_state(payload));
    case MessageKind::gossip_delta: return widen(decode_gossip_delta(payload));
    case MessageKind::tell:
    case MessageKind::ask:
    case MessageKind::reply: {
      Decoded<Envelope> envelope = decode_envelope(payload);
      // peek_kind and the envelope's decoder read the same key 0.
      WEFT_ASSERT(!envelope.ok() || envelope.value.kind == kind);
      return widen(std::move(envelope));
    }
  }
  return {.error = WireError::unknown_kind};
}

}  // namespace weft::wire
