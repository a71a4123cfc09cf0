// Names of wire errors, as counters and logs print them.
#include "kernel/wire/errors.hpp"

namespace weft::wire {

std::string_view to_string(WireError error) {
  switch (error) {
    case WireError::none: return "none";
    case WireError::frame_too_large: return "frame_too_large";
    case WireError::frame_empty: return "frame_empty";
    case WireError::truncated: return "truncated";
    case WireError::wrong_type: return "wrong_type";
    case WireError::trailing_bytes: return "trailing_bytes";
    case WireError::too_many_fields: return "too_many_fields";
    case WireError::unknown_field: return "unknown_field";
    case WireError::duplicate_field: return "duplicate_field";
    case WireError::missing_field: return "missing_field";
    case WireError::string_too_long: return "string_too_long";
    case WireError::invalid_value: return "invalid_value";
    case WireError::unknown_kind: return "unknown_kind";
    case WireError::unexpected_kind: return "unexpected_kind";
  }
  return "invalid_wire_error";
}

}  // namespace weft::wire
