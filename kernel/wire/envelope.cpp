// The envelope codec (fields in envelope.hpp): the sender's validation, the
// size, the encoder and the one-pass decoder.
#include "kernel/wire/envelope.hpp"

#include <algorithm>

namespace weft::wire {
namespace {

constexpr unsigned key(EnvelopeField field) { return static_cast<unsigned>(field); }

constexpr std::uint32_t kRequired =
    field_bit(key(EnvelopeField::kind)) | field_bit(key(EnvelopeField::target)) |
    field_bit(key(EnvelopeField::sender)) | field_bit(key(EnvelopeField::correlation_id)) |
    field_bit(key(EnvelopeField::type_tag)) | field_bit(key(EnvelopeField::body));

bool valid_ref(const ActorRefView& ref) {
  return !ref.node.host.empty() && ref.node.host.size() <= kMaxHostBytes && ref.node.port != 0 &&
         !ref.name.empty() && ref.name.size() <= kMaxActorNameBytes;
}

}  // namespace

bool operator==(const Envelope& a, const Envelope& b) {
  return a.kind == b.kind && a.target == b.target && a.sender == b.sender &&
         a.correlation_id == b.correlation_id && a.type_tag == b.type_tag &&
         std::equal(a.body.begin(), a.body.end(), b.body.begin(), b.body.end());
}

namespace {

WireError check_field_rules(const Envelope& envelope) {
  if (!is_user(envelope.kind)) return WireError::unexpected_kind;
  const bool is_tell = envelope.kind == MessageKind::tell;
  if (is_tell != (envelope.correlation_id == 0)) return WireError::invalid_value;
  if (envelope.kind == MessageKind::ask && envelope.sender.empty()) return WireError::invalid_value;
  return WireError::none;
}

}  // namespace

WireError validate(const Envelope& envelope) {
  if (!valid_ref(envelope.target)) return WireError::invalid_value;
  if (!envelope.sender.empty() && !valid_ref(envelope.sender)) return WireError::invalid_value;
  return check_field_rules(envelope);
}

std::size_t encoded_size(const Envelope& envelope) {
  const std::size_t sender =
      envelope.sender.empty() ? Writer::size_of_nil() : size_of_ref(envelope.sender);
  return 1                                                     // fixmap of six
         + 1 + Writer::size_of_uint(static_cast<std::uint8_t>(envelope.kind))
         + 1 + size_of_ref(envelope.target)
         + 1 + sender
         + 1 + Writer::size_of_uint(envelope.correlation_id)
         + 1 + Writer::size_of_uint(envelope.type_tag)
         + 1 + Writer::size_of_bin(envelope.body.size());
}

void encode(const Envelope& envelope, Writer& writer) {
  WEFT_ASSERT(validate(envelope) == WireError::none);
  writer.write_map_header(6);
  writer.write_uint(key(EnvelopeField::kind));
  writer.write_uint(static_cast<std::uint8_t>(envelope.kind));
  writer.write_uint(key(EnvelopeField::target));
  write_ref(writer, envelope.target);
  writer.write_uint(key(EnvelopeField::sender));
  if (envelope.sender.empty()) {
    writer.write_nil();
  } else {
    write_ref(writer, envelope.sender);
  }
  writer.write_uint(key(EnvelopeField::correlation_id));
  writer.write_uint(envelope.correlation_id);
  writer.write_uint(key(EnvelopeField::type_tag));
  writer.write_uint(envelope.type_tag);
  writer.write_uint(key(EnvelopeField::body));
  writer.write_bin(envelope.body);
}

Decoded<Envelope> decode_envelope(Bytes payload) {
  Envelope envelope;
  std::uint64_t type_tag = 0;
  const WireError e = decode_fields(payload, kRequired, envelope.kind, [&](unsigned key, Reader& r) {
    switch (static_cast<EnvelopeField>(key)) {
      case EnvelopeField::target: return read_ref(r, envelope.target);
      case EnvelopeField::sender: return r.try_read_nil() ? WireError::none : read_ref(r, envelope.sender);
      case EnvelopeField::correlation_id: return r.read_uint(envelope.correlation_id);
      case EnvelopeField::type_tag: return r.read_uint(type_tag);
      case EnvelopeField::body: return r.read_bin(envelope.body);
      case EnvelopeField::kind: break;
    }
    return WireError::unknown_field;
  });
  if (e != WireError::none) return {.error = e};
  if (type_tag > 0xffffffffULL) return {.error = WireError::invalid_value};
  envelope.type_tag = static_cast<std::uint32_t>(type_tag);
  // Refs were checked as they were read; what is left are the rules that tie
  // fields together.
  if (WireError rules = check_field_rules(envelope); rules != WireError::none) return {.error = rules};
  return {.value = envelope};
}

}  // namespace weft::wire
