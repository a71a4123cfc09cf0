// Why a frame or message was rejected: one closed enum for the whole wire
// layer, so a link closes with exactly one named, countable reason.
//
// Adding a reason means adding it to to_string() and to kAllWireErrors; no
// switch over this enum has a default, so the compiler finds every place.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "kernel/assert.hpp"

namespace weft::wire {

enum class WireError : std::uint8_t {
  none = 0,
  // Framing.
  frame_too_large,   // declared length above the configured maximum
  frame_empty,       // declared length zero: no message fits in it
  // MessagePack structure.
  truncated,         // the value ends before its declared size
  wrong_type,        // a value of another MessagePack type than the field needs
  trailing_bytes,    // bytes left after the message's map
  // Message schema.
  too_many_fields,   // the map declares more entries than any message has
  unknown_field,     // a key this message kind does not define
  duplicate_field,   // the same key twice
  missing_field,     // a required key is absent
  string_too_long,   // a string above its field's limit
  invalid_value,     // right type, impossible value (port 0, empty name, ...)
  unknown_kind,      // a message kind this protocol version does not define
  unexpected_kind,   // a valid kind where another was required
};

inline constexpr std::array kAllWireErrors = {
    WireError::none,           WireError::frame_too_large, WireError::frame_empty,
    WireError::truncated,      WireError::wrong_type,      WireError::trailing_bytes,
    WireError::too_many_fields, WireError::unknown_field,  WireError::duplicate_field,
    WireError::missing_field,  WireError::string_too_long, WireError::invalid_value,
    WireError::unknown_kind,   WireError::unexpected_kind,
};
// Every reason once, in order; a reason added after unexpected_kind must
// move the second line.
static_assert(lists_values_in_order(kAllWireErrors));
static_assert(kAllWireErrors.back() == WireError::unexpected_kind);

std::string_view to_string(WireError error);

// A decoded value or the reason there is none. `value` is meaningful only
// when ok(); decoders leave it default-constructed otherwise.
template <class T>
struct Decoded {
  T value{};
  WireError error = WireError::none;

  bool ok() const { return error == WireError::none; }
};

}  // namespace weft::wire
