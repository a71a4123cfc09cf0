// Names of delivery kinds and send results, as logs and counters print them.
#include "kernel/actors/behavior.hpp"

namespace weft {

std::string_view to_string(DeliveryKind kind) {
  switch (kind) {
    case DeliveryKind::tell: return "tell";
    case DeliveryKind::ask: return "ask";
    case DeliveryKind::reply: return "reply";
    case DeliveryKind::ask_timeout: return "ask_timeout";
    case DeliveryKind::ask_target_down: return "ask_target_down";
    case DeliveryKind::ask_rejected: return "ask_rejected";
    case DeliveryKind::members_changed: return "members_changed";
    case DeliveryKind::timer: return "timer";
  }
  return "invalid";
}

std::string_view to_string(SendResult result) {
  switch (result) {
    case SendResult::sent: return "sent";
    case SendResult::unknown_member: return "unknown_member";
    case SendResult::member_down: return "member_down";
    case SendResult::mailbox_full: return "mailbox_full";
    case SendResult::unknown_actor: return "unknown_actor";
    case SendResult::outbound_full: return "outbound_full";
    case SendResult::too_large: return "too_large";
    case SendResult::too_many_asks: return "too_many_asks";
    case SendResult::invalid_target: return "invalid_target";
  }
  return "invalid";
}

}  // namespace weft
