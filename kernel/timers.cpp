// Names of the kernel's timers, for diagnostics and test output; the timers
// and their table are in timers.hpp.
#include "kernel/timers.hpp"

namespace weft {

std::string_view to_string(Timer timer) {
  switch (timer) {
    case Timer::handshake: return "handshake";
    case Timer::ask: return "ask";
    case Timer::probe: return "probe";
    case Timer::heartbeat: return "heartbeat";
    case Timer::gossip: return "gossip";
    case Timer::down_check: return "down_check";
    case Timer::join: return "join";
    case Timer::heal_probe: return "heal_probe";
    case Timer::dial: return "dial";
    case Timer::actor: return "actor";
  }
  WEFT_ASSERT(false);
  return "";
}

}  // namespace weft
