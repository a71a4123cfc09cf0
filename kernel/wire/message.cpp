#include "kernel/wire/message.hpp"

namespace weft::wire {
namespace {

template <class T>
Decoded<Message> widen(const Decoded<T>& decoded) {
  if (!decoded.ok()) return {.error = decoded.error};
  return {.value = Message(decoded.value)};
}

}  // namespace

Decoded<Message> decode_message(Bytes payload) {
  FieldTable fields;
  if (WireError e = fields.index(payload); e != WireError::none) return {.error = e};
  MessageKind kind{};
  if (WireError e = fields.read_kind(kind); e != WireError::none) return {.error = e};
  switch (kind) {
    case MessageKind::hello: return widen(decode_hello(fields, kind));
    case MessageKind::tell:
    case MessageKind::ask:
    case MessageKind::reply: return widen(decode_envelope(fields, kind));
  }
  return {.error = WireError::unknown_kind};
}

}  // namespace weft::wire
