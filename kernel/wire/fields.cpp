#include "kernel/wire/fields.hpp"

namespace weft::wire {

WireError parse_kind(std::uint64_t value, MessageKind& kind) {
  switch (value) {
    case static_cast<std::uint64_t>(MessageKind::hello): kind = MessageKind::hello; break;
    case static_cast<std::uint64_t>(MessageKind::tell): kind = MessageKind::tell; break;
    case static_cast<std::uint64_t>(MessageKind::ask): kind = MessageKind::ask; break;
    case static_cast<std::uint64_t>(MessageKind::reply): kind = MessageKind::reply; break;
    default: return WireError::unknown_kind;
  }
  return WireError::none;
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
