// The kernel's private records, shared by the files that implement it
// (kernel.cpp, kernel_links.cpp, kernel_membership.cpp, kernel_detection.cpp,
// kernel_actors.cpp). Not part of the kernel's interface. The link records
// are in kernel/links/link_table.hpp.
#pragma once

#include "kernel/detection/silence_clock.hpp"
#include "kernel/kernel.hpp"

namespace weft {

struct Kernel::Actor {
  std::string name;
  ActorRef ref;
  std::unique_ptr<Behavior> behavior;
  Mailbox mailbox;
  // Ask completions for this actor: delivered before user messages and never
  // dropped (their number is bounded by max_pending_asks).
  std::deque<MailboxSlot> system;
  bool scheduled = false;  // in the run queue
  bool watches_members = false;         // Behavior::watches_members(), read at spawn
  bool members_change_queued = false;   // a members_changed is in `system`
};

// One subject this node observes. (At namespace scope, not in Kernel: an
// inbound link record, link_table.hpp, caches a pointer to its peer's.)
struct Monitor {
  // `fresh` is a detector that has heard nothing: a copy costs less than
  // building one, which solves for its threshold.
  Monitor(const PhiDetector& fresh, Duration window) : detector(fresh), throttle(window) {}

  PhiDetector detector;
  LivenessThrottle throttle;
  bool marked_unreachable = false;   // this node's row lists the subject
  Instant next_probe;                // no new probe round before this
  // Only a probe started at or after this may mark the subject: set when
  // monitoring starts and when a mark is withdrawn, so a probe that was in
  // flight across the withdrawal (the evidence already answered) cannot
  // re-mark it a moment later (M7).
  Instant evidence_since;
  SilenceClock silence;  // for the leader's floor under downing
};

// Queues a control frame to `peer`, ahead of user frames. A control queue
// past its bound means the peer reads nothing: the link is closed.
template <class Message>
void Kernel::send_control(const NodeAddress& peer, const Message& message) {
  Outbound& out = outbound(peer);
  if (wire::append_frame(out.control, message, config_.max_frame_bytes) != wire::WireError::none) {
    // Only a gossip state can outgrow a frame (it grows with the cluster;
    // max_frame_bytes may be as low as 4096): counted, never silent.
    ++counters_.control_too_large;
    return;
  }
  ++counters_.frames_out;
  if (out.control.size() > config_.max_outbound_control_bytes) {
    close_outbound(peer, CloseReason::control_overflow);
  }
}

}  // namespace weft
