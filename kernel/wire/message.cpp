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
  MessageKind kind{};
  if (WireError e = peek_kind(payload, kind); e != WireError::none) return {.error = e};
  switch (kind) {
    case MessageKind::hello: return widen(decode_hello(payload));
    case MessageKind::tell:
    case MessageKind::ask:
    case MessageKind::reply: return widen(decode_envelope(payload));
  }
  return {.error = WireError::unknown_kind};
}

}  // namespace weft::wire
