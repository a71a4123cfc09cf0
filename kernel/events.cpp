// Names of link-down causes, close reasons, ask outcomes, dead-letter reasons
// and marks, and marks parsed back from their names.
#include "kernel/events.hpp"

namespace weft {

std::string_view to_string(LinkDownCause cause) {
  switch (cause) {
    case LinkDownCause::closed_by_peer: return "closed_by_peer";
    case LinkDownCause::refused: return "refused";
    case LinkDownCause::unreachable: return "unreachable";
    case LinkDownCause::io_error: return "io_error";
    case LinkDownCause::closed_locally: return "closed_locally";
  }
  return "invalid";
}

std::string_view to_string(CloseReason reason) {
  switch (reason) {
    case CloseReason::wire_error: return "wire_error";
    case CloseReason::handshake_required: return "handshake_required";
    case CloseReason::wrong_cluster: return "wrong_cluster";
    case CloseReason::wrong_version: return "wrong_version";
    case CloseReason::self_connection: return "self_connection";
    case CloseReason::stale_incarnation: return "stale_incarnation";
    case CloseReason::implausible_incarnation: return "implausible_incarnation";
    case CloseReason::unexpected_frame: return "unexpected_frame";
    case CloseReason::peer_gone: return "peer_gone";
    case CloseReason::control_overflow: return "control_overflow";
    case CloseReason::rejoining: return "rejoining";
    case CloseReason::shutting_down: return "shutting_down";
    case CloseReason::handshake_timeout: return "handshake_timeout";
    case CloseReason::bad_proof: return "bad_proof";
    case CloseReason::unauthenticated: return "unauthenticated";
    case CloseReason::wrong_peer: return "wrong_peer";
    case CloseReason::idle: return "idle";
    case CloseReason::handshake_capacity: return "handshake_capacity";
    case CloseReason::wrong_name: return "wrong_name";
  }
  return "invalid";
}

std::string_view to_string(AskOutcome outcome) {
  switch (outcome) {
    case AskOutcome::reply: return "reply";
    case AskOutcome::timeout: return "timeout";
    case AskOutcome::target_down: return "target_down";
    case AskOutcome::rejected: return "rejected";
  }
  return "invalid";
}

std::string_view to_string(DeadLetterReason reason) {
  switch (reason) {
    case DeadLetterReason::unknown_actor: return "unknown_actor";
    case DeadLetterReason::unknown_member: return "unknown_member";
    case DeadLetterReason::member_down: return "member_down";
    case DeadLetterReason::mailbox_full: return "mailbox_full";
    case DeadLetterReason::outbound_full: return "outbound_full";
    case DeadLetterReason::too_large: return "too_large";
    case DeadLetterReason::misdelivered: return "misdelivered";
    case DeadLetterReason::late_reply: return "late_reply";
    case DeadLetterReason::reply_outside_ask: return "reply_outside_ask";
    case DeadLetterReason::link_lost: return "link_lost";
  }
  return "invalid";
}

std::string_view to_string(Mark mark) {
  switch (mark) {
    case Mark::suspicion_refuted: return "suspicion_refuted";
    case Mark::indirect_probe_saved: return "indirect_probe_saved";
    case Mark::mailbox_overflow: return "mailbox_overflow";
    case Mark::truncated_frame: return "truncated_frame";
    case Mark::rejoined_after_down: return "rejoined_after_down";
    case Mark::refuted_claim: return "refuted_claim";
    case Mark::dialed_back: return "dialed_back";
    case Mark::self_pause_forgiven: return "self_pause_forgiven";
    case Mark::ingest_guard: return "ingest_guard";
    case Mark::early_crash_suspicion: return "early_crash_suspicion";
  }
  return "invalid";
}

std::optional<Mark> mark_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kMarkCount; ++i) {
    const auto mark = static_cast<Mark>(i);
    if (to_string(mark) == name) return mark;
  }
  return std::nullopt;
}

}  // namespace weft
