// What a kernel tells its driver besides bytes: link commands and events.
// Drivers drain both after every input (see kernel.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "kernel/actors/behavior.hpp"
#include "kernel/assert.hpp"
#include "kernel/ids.hpp"
#include "kernel/membership/member.hpp"
#include "kernel/wire/errors.hpp"

namespace weft {

struct LinkId {
  std::uint64_t value = 0;
  friend auto operator<=>(const LinkId&, const LinkId&) = default;
};

// Why the driver reports a link down.
enum class LinkDownCause : std::uint8_t {
  closed_by_peer,  // orderly close or reset from the other side
  refused,         // a connect attempt was refused (nothing listens there)
  unreachable,     // a connect attempt timed out or the network said no
  io_error,        // anything else the socket reported
  closed_locally,  // the driver closed it because the kernel asked
};

// Why the kernel closes a link: each one is counted.
enum class CloseReason : std::uint8_t {
  wire_error,            // the peer sent bytes the codec rejects (see WireError)
  handshake_required,    // the first frame on an inbound link was not a hello
  wrong_cluster,         // the hello named another cluster
  wrong_version,         // the hello spoke another protocol version
  self_connection,       // the hello came from this node's own address
  stale_incarnation,     // the hello's incarnation is older than one known for its address
  implausible_incarnation,  // far above the known one (ingest guard)
  unexpected_frame,      // a frame that has no business on this link
  peer_gone,             // the peer is down or removed
  control_overflow,      // the control queue hit its bound: the link is hopeless
  rejoining,             // this node took a new incarnation
  shutting_down,         // this node stopped
  handshake_timeout,     // an accepted link sent no hello (or no proof) within handshake_timeout
  bad_proof,             // a handshake proof no accepted key gives, or none where one is required
  unauthenticated,       // a frame before the dialer's proof, on an authenticated link
  wrong_peer,            // we dialed a member's address and another node answered
  idle,                  // nothing queued for link_idle_timeout, and the peer is neither gossip view nor subject
  handshake_capacity,    // the oldest of max_pending_handshakes accepted links awaiting their handshake, for a newer one
  wrong_name,            // the peer's TLS certificate does not name the host it claims (or we dialed)
};

inline constexpr std::array kAllCloseReasons = {
    CloseReason::wire_error,       CloseReason::handshake_required, CloseReason::wrong_cluster,
    CloseReason::wrong_version,    CloseReason::self_connection,    CloseReason::stale_incarnation,
    CloseReason::implausible_incarnation, CloseReason::unexpected_frame, CloseReason::peer_gone,
    CloseReason::control_overflow, CloseReason::rejoining,          CloseReason::shutting_down,
    CloseReason::handshake_timeout, CloseReason::bad_proof,      CloseReason::unauthenticated,
    CloseReason::wrong_peer,       CloseReason::idle,               CloseReason::handshake_capacity,
    CloseReason::wrong_name,
};
// Every reason once, in order; a reason added after wrong_name must move
// the second line.
static_assert(lists_values_in_order(kAllCloseReasons));
static_assert(kAllCloseReasons.back() == CloseReason::wrong_name);

std::string_view to_string(LinkDownCause cause);
std::string_view to_string(CloseReason reason);

struct ConnectCommand {
  LinkId link;
  NodeAddress address;
};
struct CloseCommand {
  LinkId link;
  CloseReason reason;
  wire::WireError wire_error = wire::WireError::none;  // set when reason is wire_error
};
using LinkCommand = std::variant<ConnectCommand, CloseCommand>;

// A member's status changed in this node's view (including a new member
// appearing: from_known false).
struct MemberEvent {
  Member member;
  bool from_known = false;
  MemberStatus from = MemberStatus::joining;
};

// This node's aggregate view of a subject flipped: unreachable iff some live,
// reachable observer finds it unreachable.
struct ReachabilityEvent {
  MemberId subject;
  bool unreachable = false;
};

enum class AskOutcome : std::uint8_t { reply, timeout, target_down, rejected };
std::string_view to_string(AskOutcome outcome);

// An ask the driver made (Kernel::ask) completed. Each id appears once.
struct AskCompleted {
  AskId id = 0;
  AskOutcome outcome = AskOutcome::timeout;
  std::uint32_t type_tag = 0;           // of the reply
  std::vector<std::uint8_t> body;       // of the reply
};

enum class DeadLetterReason : std::uint8_t {
  unknown_actor,
  unknown_member,
  member_down,
  mailbox_full,
  outbound_full,
  too_large,
  misdelivered,     // a frame for another node's actor
  late_reply,       // a reply for an ask that already completed
  reply_outside_ask,
  link_lost,        // queued for a peer that went down before it was sent
};
inline constexpr std::size_t kDeadLetterReasonCount = 10;
// Counters are indexed by reason: a reason added after link_lost must move this.
static_assert(kDeadLetterReasonCount == static_cast<std::size_t>(DeadLetterReason::link_lost) + 1);
std::string_view to_string(DeadLetterReason reason);

struct DeadLetter {
  DeadLetterReason reason = DeadLetterReason::unknown_actor;
  ActorRef target;
  std::uint32_t type_tag = 0;
};

// The node stopped taking part (it was downed and on_downed is shut_down,
// or it left and was removed).
struct ShutdownEvent {
  bool downed = false;
};

// Rare branches worth counting (the simulator's coverage marks read these).
enum class Mark : std::uint8_t {
  suspicion_refuted,      // an unreachable subject became reachable again
  indirect_probe_saved,   // a helper reached a subject this node could not
  mailbox_overflow,
  truncated_frame,        // a link closed mid-frame
  rejoined_after_down,
  self_pause_forgiven,    // this node's own pause was not blamed on peers
  ingest_guard,           // a gossip record was rejected by a guard
  early_crash_suspicion,  // a refused redial started probing before phi did
  refuted_claim,          // this node took a newer life to refute a forged claim about it
  dialed_back,            // without a key, a stranger's frame made this node dial its address first
};
inline constexpr std::size_t kMarkCount = 10;
// Counters are indexed by mark and mark_from_string walks 0..kMarkCount-1: a
// mark added after dialed_back must move this.
static_assert(kMarkCount == static_cast<std::size_t>(Mark::dialed_back) + 1);
std::string_view to_string(Mark mark);
// The mark that to_string names `name`; nullopt if none does.
std::optional<Mark> mark_from_string(std::string_view name);

using Event = std::variant<MemberEvent, ReachabilityEvent, AskCompleted, DeadLetter, ShutdownEvent>;

}  // namespace weft
