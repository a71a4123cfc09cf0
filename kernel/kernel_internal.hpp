// The kernel's private records, shared by the files that implement it
// (kernel.cpp, kernel_membership.cpp, kernel_detection.cpp,
// kernel_actors.cpp). Not part of the kernel's interface.
#pragma once

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
};

// This node's sending side towards one peer address: the link it dials and
// the frames waiting for it. Frames queue here while the link connects or
// redials, within the configured bounds.
struct Kernel::Outbound {
  explicit Outbound(std::uint32_t max_frame_bytes) : decoder(max_frame_bytes) {}

  std::optional<LinkId> link;
  bool connected = false;
  std::optional<MemberId> peer;         // from the peer's hello (and, authenticated, its proof)
  wire::FrameDecoder decoder;           // reads the peer's hello reply
  // Authenticated links: our hello, lent alone until the peer has proven
  // itself, then our proof, lent ahead of everything; and what the hello
  // carried, for the proofs.
  std::vector<std::uint8_t> handshake;
  std::array<std::uint8_t, wire::kNonceBytes> nonce{};
  std::uint64_t hello_incarnation = 0;
  std::vector<std::uint8_t> control;    // whole frames, sent first
  std::vector<std::uint8_t> user;       // whole frames; those before user_head are written
  std::size_t user_head = 0;
  std::uint64_t user_frames = 0;        // frames queued in `user`, for link_lost counts
  std::vector<std::uint8_t> in_flight;  // lent by poll_transmit until handle_sent
  bool writing = false;

  std::size_t user_queued() const { return user.size() - user_head; }
  // The link is gone (down or closed): a write in flight died with it, and
  // the next link starts idle.
  void drop_link() {
    link.reset();
    connected = false;
    writing = false;
    in_flight.clear();
    handshake.clear();
  }
  Instant next_attempt;
  Duration backoff;
  bool retired = false;                 // closed; erased after the current input
  bool transmit_queued = false;         // in Kernel::transmit_out_
  bool dial_queued = false;             // in Kernel::dial_waiting_
};

// A link a peer dialed: this node reads from it and answers only its hello.
struct Kernel::Inbound {
  explicit Inbound(std::uint32_t max_frame_bytes) : decoder(max_frame_bytes) {}

  wire::FrameDecoder decoder;
  std::optional<MemberId> peer;         // set by the peer's hello (authenticated: by its proof)
  Instant hello_due;                    // closed if no hello (or proof) by then
  // Authenticated links, between the dialer's hello and its proof: who it
  // claims to be, and the nonces and incarnation the proofs cover.
  std::optional<MemberId> claimed;
  std::array<std::uint8_t, wire::kNonceBytes> dialer_nonce{};
  std::array<std::uint8_t, wire::kNonceBytes> our_nonce{};
  std::uint64_t our_incarnation = 0;
  std::vector<std::uint8_t> control;    // our hello reply
  std::vector<std::uint8_t> in_flight;  // lent by poll_transmit until handle_sent
  bool writing = false;
  bool closed = false;                  // erased after the current input
  bool transmit_queued = false;         // in Kernel::transmit_in_
  // Per-frame lookups, cached while Kernel::liveness_generation_ holds.
  std::uint64_t cache_generation = 0;
  Instant* heard = nullptr;            // this peer's Kernel::last_heard_ entry
  Monitor* monitor = nullptr;
};

// One subject this node observes.
struct Kernel::Monitor {
  Monitor(const PhiParameters& parameters, Duration window) : detector(parameters), throttle(window) {}

  PhiDetector detector;
  LivenessThrottle throttle;
  bool marked_unreachable = false;   // this node's row lists the subject
  Instant next_probe;                // no new probe round before this
  // Only a probe started at or after this may mark the subject: set when
  // monitoring starts and when a mark is withdrawn, so a probe that was in
  // flight across the withdrawal (the evidence already answered) cannot
  // re-mark it a moment later (M7).
  Instant evidence_since;
};

struct Kernel::ProbeAsked {
  MemberId subject;
  Instant started;
  Instant deadline;
  // Timed out and condemned the subject; kept until `deadline` so that a
  // helper's late answer can still withdraw the mark.
  bool condemned = false;
};

struct Kernel::ProbeHelping {
  MemberId asker;
  std::uint64_t asker_probe = 0;
  MemberId subject;
  Instant deadline;
};

// Queues a control frame to `peer`, ahead of user frames. A control queue
// past its bound means the peer reads nothing: the link is closed.
template <class Message>
void Kernel::send_control(const NodeAddress& peer, const Message& message) {
  Outbound& out = outbound(peer);
  if (wire::append_frame(out.control, message, config_.max_frame_bytes) != wire::WireError::none) {
    return;  // a control message never exceeds a frame; gossip is bounded far below
  }
  ++counters_.frames_out;
  if (out.control.size() > config_.max_outbound_control_bytes) {
    close_outbound(peer, CloseReason::control_overflow);
  }
}

}  // namespace weft
