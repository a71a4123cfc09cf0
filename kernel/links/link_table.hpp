// The link table: one record per outbound peer address and per inbound link,
// the indexes over them, and the bookkeeping that lets the kernel walk only
// the records that may have work (those that may transmit, those waiting to
// dial, accepted links awaiting their hello) and erase closed ones at the
// end of an input. The protocol on a link (hellos, proofs, what a frame
// means, commands to the driver) is the Kernel's (kernel/kernel_links.cpp),
// and when to redial is each record's RedialBackoff
// (kernel/links/redial_backoff.hpp); this file holds the records and moves
// them between the states of kernel/links/link_state.hpp, asserting each
// move and the data each state promises.
//
// Order. The records live in ordered maps (outbound by address, inbound by
// link id) and every walk of them takes that order, so nothing here feeds
// an unordered iteration to the kernel's outputs. The hash indexes beside
// them (flat_index.hpp) are for lookups only and cannot be iterated: at a
// thousand peers the per-frame lookups were a third of a simulated run,
// most of it comparing host strings down the trees. A record and its index
// entries come and go together.
//
// Erasing. A closed record (retired outbound, closed inbound) stays until
// sweep(), which the kernel runs at the end of a tick, of bytes read from a
// known link, and of tell, ask and leave: a decoder may still be running
// over it, and an outbound record may be revived meanwhile (when the sweep
// comes matters: a revived record keeps its backoff, a new one does not).
// sweep() erases only the records listed as closed, so closing a link
// costs O(1), not a walk of the table. An inbound link that goes down is
// erased at once (erase_inbound()).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "kernel/assert.hpp"
#include "kernel/events.hpp"
#include "kernel/ids.hpp"
#include "kernel/links/flat_index.hpp"
#include "kernel/links/key_queue.hpp"
#include "kernel/links/link_state.hpp"
#include "kernel/links/redial_backoff.hpp"
#include "kernel/prng.hpp"
#include "kernel/time.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/handshake.hpp"

namespace weft {

// The failure detector's record of one subject (kernel/kernel_internal.hpp);
// an inbound link caches a pointer to its peer's.
struct Monitor;

// weft's own mixing for the lookup indexes, the same on every platform
// (std::hash differs between standard libraries; these are never iterated,
// so their order reaches nothing anyway).
struct AddressHash {
  std::size_t operator()(const NodeAddress& address) const;
};

// This node's sending side towards one peer address: the link it dials and
// the frames waiting for it. Frames queue here while the link connects or
// redials, within the configured bounds.
struct OutboundLink {
  OutboundLink(std::uint32_t max_frame_bytes, RedialBackoff backoff) : decoder(max_frame_bytes), redial(backoff) {}

  OutboundState state() const { return state_; }
  // A link that can be lent bytes (the driver reported it up).
  bool connected() const { return state_ == OutboundState::handshaking || state_ == OutboundState::established; }
  bool retired() const { return state_ == OutboundState::retired; }
  std::size_t user_queued() const { return user.size() - user_head; }
  // Moves up to max_write_bytes of whole user frames (at least one) into
  // in_flight, so a control frame produced meanwhile waits behind one
  // bounded write, not the whole queue.
  void take_user_write(std::size_t max_write_bytes);

  std::optional<LinkId> link;           // dialing, handshaking and established only
  std::optional<MemberId> peer;         // established only: from the acceptor's hello (and proof)
  wire::FrameDecoder decoder;           // reads the acceptor's hello reply
  // Authenticated links: our hello, lent alone until the acceptor has proven
  // itself, then our proof, lent ahead of everything; and what the hello
  // carried, for the proofs.
  std::vector<std::uint8_t> handshake;
  std::array<std::uint8_t, wire::kNonceBytes> nonce{};
  std::uint64_t hello_incarnation = 0;
  // The names the acceptor's certificate gives (handle_link_up); nullopt:
  // not checked (no TLS). The dialed host must be one of them.
  std::optional<std::vector<std::string>> peer_names;
  std::vector<std::uint8_t> control;    // whole frames, sent first
  std::vector<std::uint8_t> user;       // whole frames; those before user_head are written
  std::size_t user_head = 0;
  std::uint64_t user_frames = 0;        // frames queued in `user`, for link_lost counts
  std::vector<std::uint8_t> in_flight;  // lent by poll_transmit until handle_sent
  RedialBackoff redial;                 // idle: dial no earlier than redial.next_attempt()
  // Orthogonal to the state, so flags: a write is in flight (only while
  // connected; a lost link drops it), and membership of the table's two
  // queues (a record leaves a queue when the queue hands it out, whatever
  // its state meanwhile).
  bool writing = false;
  bool transmit_queued = false;         // in LinkTable's transmit queue
  bool dial_queued = false;             // in LinkTable's dial-waiting list: every idle record
  Instant last_queued;                  // when Kernel::outbound() last queued bytes here

 private:
  friend class LinkTable;
  void move_to(OutboundState to) {
    WEFT_ASSERT(legal_move(state_, to));
    state_ = to;
  }
  // The link is gone (down or closed): a write in flight died with it, and
  // the next link starts with no peer and an empty handshake.
  void drop_link() {
    link.reset();
    peer.reset();
    writing = false;
    in_flight.clear();
    handshake.clear();
    peer_names.reset();
  }
  // The data each state promises (link_state.hpp); asserted after each move.
  void check() const;

  OutboundState state_ = OutboundState::idle;
};

// A link a peer dialed: this node reads from it and answers only its hello.
struct InboundLink {
  explicit InboundLink(std::uint32_t max_frame_bytes) : decoder(max_frame_bytes) {}

  InboundState state() const { return state_; }
  bool closed() const { return state_ == InboundState::closed; }

  wire::FrameDecoder decoder;
  // Set on entering established (authenticated: by the proof), and kept
  // when the link is closed.
  std::optional<MemberId> peer;
  Instant hello_due;                    // closed if not established by then
  Instant last_read;                    // bytes last came: Kernel::close_idle_inbound
  // The names the dialer's certificate gives (handle_link_accepted);
  // nullopt: not checked. The host its hello names must be one of them.
  std::optional<std::vector<std::string>> peer_names;
  // Authenticated links, from the dialer's hello on: who it claims to be,
  // and the nonces and incarnation the proofs cover.
  std::optional<MemberId> claimed;
  std::array<std::uint8_t, wire::kNonceBytes> dialer_nonce{};
  std::uint64_t dialer_held = 0;  // the life the dialer holds for our address (hello field 7), 0: none
  // Without a key: the member table (its version and the kernel's epoch)
  // in which the peer's address last held a record, so that the check for
  // strangers costs one compare per frame, not a lookup (Kernel::known_peer).
  std::uint64_t member_version = UINT64_MAX;
  std::uint64_t member_epoch = 0;
  std::array<std::uint8_t, wire::kNonceBytes> our_nonce{};
  std::uint64_t our_incarnation = 0;
  std::vector<std::uint8_t> control;    // our hello reply
  std::vector<std::uint8_t> in_flight;  // lent by poll_transmit until handle_sent
  // Orthogonal to the state, so flags: a write is in flight (it may outlive
  // a close), and membership of the table's transmit queue.
  bool writing = false;
  bool transmit_queued = false;
  // Per-frame lookups, cached while Kernel::liveness_generation_ holds.
  std::uint64_t cache_generation = 0;
  Instant* heard = nullptr;             // this peer's Kernel::last_heard_ entry
  Monitor* monitor = nullptr;

 private:
  friend class LinkTable;
  void move_to(InboundState to) {
    WEFT_ASSERT(legal_move(state_, to));
    state_ = to;
  }
  void check() const;

  InboundState state_ = InboundState::awaiting_hello;
};

class LinkTable {
 public:
  using Outbounds = std::map<NodeAddress, OutboundLink>;
  using Inbounds = std::map<LinkId, InboundLink>;
  using OutboundIt = Outbounds::iterator;
  using InboundIt = Inbounds::iterator;

 private:
  // FlatIndex traits (flat_index.hpp). A link id is its own tag; an address's
  // tag is its fingerprint, confirmed against the record's key.
  struct ByLink {
    static std::uint64_t tag(LinkId link) { return link.value; }
    static std::uint64_t spread(std::uint64_t tag) { return mix64(tag); }
    template <class It>
    static bool matches(const It&, LinkId) { return true; }  // the tag is the key
  };
  struct ByAddress {
    static std::uint64_t tag(const NodeAddress& address) { return AddressHash{}(address) | 1; }
    static std::uint64_t spread(std::uint64_t tag) { return tag; }
    static bool matches(const OutboundIt& it, const NodeAddress& address) { return it->first == address; }
  };

 public:

  // --- walks, in key order
  const Outbounds& outbound() const { return outbound_; }
  const Inbounds& inbound() const { return inbound_; }

  // --- lookups; found() tells whether a lookup found a record
  OutboundIt find_outbound(const NodeAddress& peer) {
    const OutboundIt* found = outbound_index_.find(peer);
    return found == nullptr ? outbound_.end() : *found;
  }
  const OutboundLink* find_outbound(const NodeAddress& peer) const {
    const OutboundIt* found = outbound_index_.find(peer);
    return found == nullptr ? nullptr : &(*found)->second;
  }
  // The outbound record whose current link is `link` (dialing, handshaking
  // or established); a link closed or lost meanwhile is found nowhere.
  OutboundIt outbound_of(LinkId link) {
    const OutboundIt* found = outbound_by_link_.find(link);
    if (found == nullptr) return outbound_.end();
    WEFT_ASSERT((*found)->second.link == link);
    return *found;
  }
  InboundIt find_inbound(LinkId link) {
    const InboundIt* found = inbound_index_.find(link);
    return found == nullptr ? inbound_.end() : *found;
  }
  bool found(OutboundIt it) const { return it != outbound_.end(); }
  bool found(InboundIt it) const { return it != inbound_.end(); }

  // --- outbound moves (link_state.hpp); each asserts its from-state
  // A new idle record for `peer`, to dial at backoff.next_attempt().
  OutboundIt add_outbound(const NodeAddress& peer, std::uint32_t max_frame_bytes, RedialBackoff backoff);
  // retired -> idle: something was queued for the peer before the sweep;
  // it dials at its redial.next_attempt(), which the caller sets.
  void revive(OutboundIt it);
  // idle -> dialing, under a fresh link id (the driver's ConnectCommand).
  LinkId dial(OutboundIt it);
  // dialing -> handshaking: the driver connected it.
  void link_up(OutboundIt it);
  // handshaking -> established: the acceptor's hello named (and proved) `peer`.
  void establish(OutboundIt it, const MemberId& peer);
  // dialing, handshaking or established -> idle: the link went down.
  void lose_link(OutboundIt it);
  // any other state -> retired: closed; what was queued is dropped.
  void retire(OutboundIt it);

  // --- inbound moves
  // A new link in awaiting_hello, under a fresh link id.
  LinkId accept(std::uint32_t max_frame_bytes, Instant hello_due);
  // awaiting_hello -> awaiting_proof: an authenticated hello claimed `claimed`.
  void claim(InboundIt it, const MemberId& claimed);
  // awaiting_hello or awaiting_proof -> established.
  void establish(InboundIt it, const MemberId& peer);
  // any other state -> closed.
  void close(InboundIt it);
  // The link went down: its record goes at once, whatever its state.
  void erase_inbound(InboundIt it);
  // An accepted link not established by `now`, taken off the deadline list
  // (the caller closes it); nullopt when none is overdue.
  std::optional<LinkId> pop_overdue_handshake(Instant now);
  Instant next_handshake_deadline() const {
    return awaiting_hello_.empty() ? Instant::never() : awaiting_hello_.begin()->first;
  }
  // Accepted links not yet established, and the one accepted first.
  std::size_t pending_handshakes() const { return awaiting_hello_.size(); }
  LinkId oldest_pending_handshake() const {
    WEFT_ASSERT(!awaiting_hello_.empty());
    return awaiting_hello_.begin()->second;
  }

  // --- the links that may transmit: a superset of those poll_transmit()
  // could lend now. A link is queued when something may have made it ready
  // (bytes queued, link up, write done) and leaves when handed out; each
  // queue hands out the least key first, as a walk of the records would.
  void queue_transmit(OutboundIt it) {
    if (it->second.transmit_queued) return;
    it->second.transmit_queued = true;
    transmit_out_.push(it);
  }
  void queue_transmit(InboundIt it) {
    if (it->second.transmit_queued) return;
    it->second.transmit_queued = true;
    transmit_in_.push(it);
  }
  bool next_transmit(OutboundIt& out) {
    if (!transmit_out_.pop(out)) return false;
    WEFT_ASSERT(out->second.transmit_queued);
    out->second.transmit_queued = false;
    return true;
  }
  bool next_transmit(InboundIt& in) {
    if (!transmit_in_.pop(in)) return false;
    WEFT_ASSERT(in->second.transmit_queued);
    in->second.transmit_queued = false;
    return true;
  }

  // --- the records waiting to dial
  // Lists an idle record for its dial (at its redial.next_attempt()).
  void queue_dial(OutboundIt it);
  // The idle records whose redial.next_attempt() has come, in address
  // order, taken off the waiting list (retired ones leave it too). The span
  // is valid until the next call.
  const std::vector<OutboundIt>& take_due_dials(Instant now);
  // The earliest redial.next_attempt() among the idle records; never when
  // none.
  Instant earliest_dial() const;

  // Erases the records closed since the last sweep, and their queue and
  // index entries.
  void sweep();

 private:
  LinkId fresh_id() { return LinkId{next_link_id_++}; }

  std::uint64_t next_link_id_ = 1;                 // one sequence for both directions
  Outbounds outbound_;
  FlatIndex<NodeAddress, OutboundIt, ByAddress> outbound_index_;
  FlatIndex<LinkId, OutboundIt, ByLink> outbound_by_link_;  // dialing, handshaking, established
  Inbounds inbound_;
  FlatIndex<LinkId, InboundIt, ByLink> inbound_index_;
  // Records closed since the last sweep (an address may be listed twice if
  // it was revived and retired again; the sweep skips what is gone).
  std::vector<NodeAddress> retired_out_;
  std::vector<LinkId> closed_in_;
  bool needs_sweep_ = false;
  // Inbound links in awaiting_hello or awaiting_proof, by deadline.
  std::set<std::pair<Instant, LinkId>> awaiting_hello_;
  KeyQueue<OutboundIt> transmit_out_;
  KeyQueue<InboundIt> transmit_in_;
  // A superset of the idle records, in no order (dial_queued marks members;
  // retired ones leave at the next take_due_dials() or sweep()).
  std::vector<OutboundIt> dial_waiting_;
  std::vector<OutboundIt> dial_due_;               // take_due_dials' result
};

}  // namespace weft
