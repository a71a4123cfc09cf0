// Message kinds by name and by number, and peek_kind, which finds key 0
// without decoding the rest of a message.
#include "kernel/wire/fields.hpp"

namespace weft::wire {

namespace {

// Which byte values are kinds, indexed by value: every frame's kind is
// parsed twice (decode_message, then the kind's decoder), and a scan of
// kAllMessageKinds cost a user frame a dozen compares each time.
constexpr std::array<bool, 256> kKnownKinds = [] {
  std::array<bool, 256> known{};
  for (MessageKind kind : kAllMessageKinds) known[static_cast<std::uint8_t>(kind)] = true;
  return known;
}();

}  // namespace

WireError parse_kind(std::uint64_t value, MessageKind& kind) {
  if (value >= kKnownKinds.size() || !kKnownKinds[value]) return WireError::unknown_kind;
  kind = static_cast<MessageKind>(value);
  return WireError::none;
}

std::string_view to_string(MessageKind kind) {
  switch (kind) {
    case MessageKind::hello: return "hello";
    case MessageKind::hello_proof: return "hello_proof";
    case MessageKind::join: return "join";
    case MessageKind::heartbeat: return "heartbeat";
    case MessageKind::heartbeat_ack: return "heartbeat_ack";
    case MessageKind::probe_request: return "probe_request";
    case MessageKind::probe: return "probe";
    case MessageKind::probe_ack: return "probe_ack";
    case MessageKind::probe_alive: return "probe_alive";
    case MessageKind::gossip_digest: return "gossip_digest";
    case MessageKind::gossip_state: return "gossip_state";
    case MessageKind::gossip_delta: return "gossip_delta";
    case MessageKind::tell: return "tell";
    case MessageKind::ask: return "ask";
    case MessageKind::reply: return "reply";
  }
  return "invalid";
}

WireError peek_kind(Bytes payload, MessageKind& kind) {
  Reader reader(payload);
  FieldWalk walk;
  if (WireError e = walk.begin(reader); e != WireError::none) return e;
  unsigned key = 0;
  WireError error = WireError::none;
  while (walk.next(reader, key, error)) {
    if (key == kKindKey) {
      std::uint64_t raw = 0;
      if (WireError e = reader.read_uint(raw); e != WireError::none) return e;
      return parse_kind(raw, kind);
    }
    if (WireError e = reader.skip_value(); e != WireError::none) return e;
  }
  return error != WireError::none ? error : WireError::missing_field;
}

}  // namespace weft::wire
