// Names for the link states, for test output and diagnostics; the states
// and their transition tables are in link_state.hpp.
#include "kernel/links/link_state.hpp"

#include "kernel/assert.hpp"

namespace weft {

std::string_view to_string(OutboundState state) {
  switch (state) {
    case OutboundState::idle: return "idle";
    case OutboundState::dialing: return "dialing";
    case OutboundState::handshaking: return "handshaking";
    case OutboundState::established: return "established";
    case OutboundState::retired: return "retired";
  }
  WEFT_ASSERT(false);
  return "";
}

std::string_view to_string(InboundState state) {
  switch (state) {
    case InboundState::awaiting_hello: return "awaiting_hello";
    case InboundState::awaiting_proof: return "awaiting_proof";
    case InboundState::established: return "established";
    case InboundState::closed: return "closed";
  }
  WEFT_ASSERT(false);
  return "";
}

}  // namespace weft
