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

WireError FieldTable::index(Bytes payload) {
  payload_ = payload;
  present_ = 0;
  Reader reader(payload);
  std::uint32_t entries = 0;
  if (WireError e = reader.read_map_header(entries); e != WireError::none) return e;
  if (entries > kMaxFields) return WireError::too_many_fields;
  for (std::uint32_t i = 0; i < entries; ++i) {
    std::uint64_t key = 0;
    if (WireError e = reader.read_uint(key); e != WireError::none) return e;
    if (key >= kFieldKeyLimit) return WireError::unknown_field;
    const auto k = static_cast<unsigned>(key);
    if (has(k)) return WireError::duplicate_field;
    present_ |= field_bit(k);
    offset_[k] = static_cast<std::uint32_t>(reader.position());
    if (WireError e = reader.skip_value(); e != WireError::none) return e;
  }
  if (!reader.at_end()) return WireError::trailing_bytes;
  return WireError::none;
}

WireError FieldTable::check_schema(std::uint32_t required, std::uint32_t optional) const {
  if ((present_ & required) != required) return WireError::missing_field;
  if ((present_ & ~(required | optional)) != 0) return WireError::unknown_field;
  return WireError::none;
}

Reader FieldTable::value(unsigned key) const {
  WEFT_ASSERT(has(key));
  return Reader(payload_.subspan(offset_[key]));
}

WireError FieldTable::read_kind(MessageKind& kind) const {
  if (!has(kKindKey)) return WireError::missing_field;
  Reader reader = value(kKindKey);
  std::uint64_t raw = 0;
  if (WireError e = reader.read_uint(raw); e != WireError::none) return e;
  return parse_kind(raw, kind);
}

}  // namespace weft::wire
