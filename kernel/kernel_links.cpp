// The Kernel's side of the links: dialing and redialing, the handshake on
// each side (hello, and with a secret the proofs), reading frames off a
// link, closing links, and lending queued bytes to the driver. The records
// this works on, their states and the legal moves between them are in
// kernel/links/ (link_state.hpp draws the diagrams); here is the protocol
// that decides when to move them.
#include <algorithm>
#include <cctype>

#include "kernel/kernel.hpp"
#include "kernel/kernel_internal.hpp"

namespace weft {

namespace {

// A handshake frame is a few hundred bytes at most (a 64-byte cluster name,
// a 253-byte host): within the limit a link reads before its handshake is
// done (wire::kMaxHandshakeFrameBytes).
template <class Message>
void append_handshake_frame(std::vector<std::uint8_t>& out, const Message& message) {
  const wire::WireError error = wire::append_frame(out, message, wire::kMaxHandshakeFrameBytes);
  WEFT_ASSERT(error == wire::WireError::none);
}

}  // namespace

// Every path that queues bytes for a peer comes through here: a record
// that is missing (or retired, not yet swept) is made idle, to dial.
Kernel::Outbound& Kernel::outbound(const NodeAddress& peer) {
  WEFT_ASSERT(peer != self_.address);
  auto it = links_.find_outbound(peer);
  if (!links_.found(it)) {
    const RedialBackoff::Options backoff{config_.reconnect_backoff_min, config_.reconnect_backoff_max};
    // The acceptor's hello is the only frame a dialed link reads.
    it = links_.add_outbound(peer, wire::kMaxHandshakeFrameBytes, RedialBackoff(backoff, now_));
    if (!is_live(peer)) unlive_links_.insert(peer);
  } else if (it->second.retired()) {
    links_.revive(it);
    it->second.redial.wait_from(now_);
    if (!is_live(peer)) unlive_links_.insert(peer);
  }
  links_.queue_transmit(it);
  it->second.last_queued = now_;
  WEFT_ASSERT(!it->second.retired() && it->second.transmit_queued);
  return it->second;
}

void Kernel::connect_due(Instant now) {
  for (const OutboundIt it : links_.take_due_dials(now)) {
    const LinkId id = links_.dial(it);
    WEFT_ASSERT(links_.outbound_of(id) == it && it->second.state() == OutboundState::dialing);
    commands_.push_back(ConnectCommand{id, it->first});
  }
  WEFT_ASSERT(links_.earliest_dial() > now);  // every idle record due by now was dialed
}

// A peer just dialed us, so it is listening: our link to it need not wait
// out a backoff grown while it was down (or cut off). Reset the backoff and
// redial at the next tick if we were waiting to.
void Kernel::redial_now(const NodeAddress& peer) {
  const auto it = links_.find_outbound(peer);
  if (!links_.found(it) || it->second.retired()) return;
  Outbound& out = it->second;
  out.redial.reset();
  if (out.state() == OutboundState::idle && out.redial.hurry(now_)) links_.queue_dial(it);
  WEFT_ASSERT(out.state() != OutboundState::idle || out.dial_queued);  // the dial timer sees it
}

wire::Hello Kernel::make_hello(std::array<std::uint8_t, wire::kNonceBytes> nonce) const {
  wire::Hello hello;
  hello.protocol_version = wire::kProtocolVersion;
  hello.cluster_name = config_.cluster_name;
  hello.address = wire::AddressView::of(self_.address);
  hello.incarnation = self_.incarnation.value;
  hello.nonce = nonce;
  return hello;
}

std::array<std::uint8_t, wire::kNonceBytes> Kernel::fresh_nonce() {
  std::array<std::uint8_t, wire::kNonceBytes> nonce{};
  for (auto& b : nonce) b = static_cast<std::uint8_t>(prng_.next_u64());
  if (!config_.auth.enabled()) return nonce;
  // The PRNG is drawn either way, so the mutation moves nothing else.
  if (config_.mutations.nonce_reuse) return whiten_nonce(config_.auth, {}, 0);
  return whiten_nonce(config_.auth, nonce, ++nonces_made_);
}

HandshakeRole Kernel::transcript_role(HandshakeRole prover) const {
  return config_.mutations.role_unbound ? HandshakeRole::dialer : prover;
}

bool Kernel::proof_holds(std::span<const std::uint8_t> proof, HandshakeRole prover, const HelloSide& dialer,
                         const HelloSide& acceptor) const {
  if (config_.mutations.proof_check_off) return true;
  return verify_handshake(config_.auth, proof, transcript_role(prover), config_.cluster_name, dialer, acceptor);
}

std::optional<CloseReason> Kernel::check_hello(const wire::Hello& hello) const {
  if (hello.protocol_version != wire::kProtocolVersion) return CloseReason::wrong_version;
  if (hello.cluster_name != config_.cluster_name && !config_.mutations.cluster_check_off) {
    return CloseReason::wrong_cluster;
  }
  if (hello.address.host == self_.address.host && hello.address.port == self_.address.port) {
    return CloseReason::self_connection;
  }
  const Member* known = members_.find(hello.address.to_owned());
  if ((known == nullptr || hello.incarnation > known->incarnation().value) && above_clock(hello.incarnation)) {
    // A life above the clock plus incarnation_clock_skew: a forged hello, or
    // a process whose clock runs ahead of this node's by more than the skew
    // (membership/life_ceiling.hpp; weftd logs the close with the fix).
    return CloseReason::implausible_incarnation;
  }
  if (known != nullptr) {
    // Older than a life this node has heard first-hand: an old process.
    // Older only than hearsay (a record gossiped, perhaps forged, of a
    // life no link has shown), the hello is the better word: refused, the
    // member could never hear the record it must refute (W4).
    if (hello.incarnation < known->incarnation().value && proven(known->id)) {
      return CloseReason::stale_incarnation;
    }
    if (hello.incarnation > known->incarnation().value &&
        hello.incarnation - known->incarnation().value > config_.max_incarnation_jump &&
        !config_.mutations.ingest_guard_off) {
      return CloseReason::implausible_incarnation;
    }
  } else if (const Incarnation newest = newest_incarnation();
             hello.incarnation > newest.value && hello.incarnation - newest.value > config_.max_incarnation_jump &&
             !config_.mutations.ingest_guard_off) {
    // An address held nothing of, far above every life this node knows
    // (accept_record judges its records the same way).
    return CloseReason::implausible_incarnation;
  }
  return std::nullopt;
}

void Kernel::note_proven(const MemberId& life) {
  Incarnation& newest = proven_lives_[life.address];
  newest = std::max(newest, life.incarnation);
  if (vouched_.note(life)) on_vouching_changed();
}

bool Kernel::proven(const MemberId& life) const {
  const auto it = proven_lives_.find(life.address);
  return it != proven_lives_.end() && it->second >= life.incarnation;
}

bool Kernel::held_for_dial_back(const MemberId& peer, bool join) {
  // The caller asks only without a key and for a peer without a record.
  WEFT_ASSERT(!config_.auth.enabled());
  if (config_.mutations.dial_back_off || dial_answered(peer)) return false;
  ++counters_.stranger_frames_unanswered;
  switch (dial_backs_.wait(peer, join, now_ + config_.handshake_timeout)) {
    case DialBacks::Wait::started:
      // Nothing is queued for the address, so the link carries our hello
      // alone until its acceptor answers (on_outbound_frame).
      mark(Mark::dialed_back);
      (void)outbound(peer.address);
      break;
    case DialBacks::Wait::waiting: break;
    case DialBacks::Wait::full: ++counters_.dial_backs_full; break;
  }
  return true;
}

bool Kernel::dial_answered(const MemberId& life) const {
  const Outbound* out = links_.find_outbound(life.address);
  return out != nullptr && out->state() == OutboundState::established && out->peer == life;
}

// Closing a record already retired (closed twice before the sweep, say as
// an idle link and then as a member gone) only counts the close again: it
// has no link, nothing queued and no state left to leave.
void Kernel::close_outbound(const NodeAddress& peer, CloseReason reason, wire::WireError error) {
  const auto it = links_.find_outbound(peer);
  if (!links_.found(it)) return;
  Outbound& out = it->second;
  if (out.link) commands_.push_back(CloseCommand{*out.link, reason, error});
  count_close(reason, error);
  counters_.dead_letters[static_cast<std::size_t>(DeadLetterReason::link_lost)] += out.user_frames;
  if (!out.retired()) links_.retire(it);
  WEFT_ASSERT(out.retired() && out.user_frames == 0);
}

void Kernel::close_inbound(LinkId link, CloseReason reason, wire::WireError error) {
  const auto it = links_.find_inbound(link);
  if (!links_.found(it) || it->second.closed()) return;
  links_.close(it);
  commands_.push_back(CloseCommand{link, reason, error});
  count_close(reason, error);
  WEFT_ASSERT(it->second.closed());
}

void Kernel::count_close(CloseReason reason, wire::WireError error) {
  WEFT_ASSERT(static_cast<std::size_t>(reason) < kAllCloseReasons.size());
  WEFT_ASSERT((error != wire::WireError::none) == (reason == CloseReason::wire_error));
  ++counters_.links_closed[static_cast<std::size_t>(reason)];
  if (error != wire::WireError::none) ++counters_.wire_errors[static_cast<std::size_t>(error)];
}

bool Kernel::replace_auth_keys(std::vector<AuthKey> keys, std::string& error) {
  if (keys.empty() != !config_.auth.enabled()) {
    error = config_.auth.enabled() ? "no keys: turning authentication off takes a restart of every node"
                                   : "turning authentication on takes a restart of every node";
    return false;
  }
  config_.auth.keys = std::move(keys);
  return true;
}

namespace {

// Whether a certificate's names allow `host`: unchecked without names;
// DNS names compare without regard to case, addresses as the text they are.
bool names_allow(const std::optional<std::vector<std::string>>& names, std::string_view host) {
  if (!names) return true;
  const auto same = [&](const std::string& name) {
    return name.size() == host.size() && std::equal(name.begin(), name.end(), host.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
  };
  return std::any_of(names->begin(), names->end(), same);
}

}  // namespace

LinkId Kernel::handle_link_accepted(Instant now, std::optional<std::vector<std::string>> peer_names) {
  advance(now);
  // Raised to max_frame_bytes once the dialer has proven itself (accept_peer).
  const LinkId id = links_.accept(wire::kMaxHandshakeFrameBytes, now_ + config_.handshake_timeout);
  links_.find_inbound(id)->second.peer_names = std::move(peer_names);
  WEFT_ASSERT(links_.next_handshake_deadline() <= now_ + config_.handshake_timeout);
  if (links_.pending_handshakes() > config_.max_pending_handshakes) {
    const LinkId oldest = links_.oldest_pending_handshake();
    close_inbound(oldest, CloseReason::handshake_capacity);
    WEFT_ASSERT(oldest != id);  // the newest is last: hello_due, then id, both grow
  }
  return id;
}

void Kernel::handle_link_up(Instant now, LinkId link, std::optional<std::vector<std::string>> peer_names) {
  advance(now);
  const OutboundIt it = links_.outbound_of(link);
  if (!links_.found(it)) return;  // closed meanwhile
  Outbound& out = it->second;
  links_.link_up(it);
  out.peer_names = std::move(peer_names);
  out.decoder = wire::FrameDecoder(wire::kMaxHandshakeFrameBytes);
  WEFT_ASSERT(!out.peer.has_value() && out.handshake.empty());
  out.nonce = fresh_nonce();
  out.hello_incarnation = self_.incarnation.value;
  ++counters_.frames_out;
  wire::Hello ours = make_hello(out.nonce);
  if (const auto stale = stale_answers_.find(it->first); stale != stale_answers_.end()) {
    ours.held_incarnation = stale->second.value;
  }
  if (config_.auth.enabled()) {
    // Nothing but the hello until the acceptor has proven itself.
    append_handshake_frame(out.handshake, ours);
    WEFT_ASSERT(out.state() == OutboundState::handshaking && out.transmit_queued);
    return;
  }
  std::vector<std::uint8_t> hello;
  append_handshake_frame(hello, ours);
  out.control.insert(out.control.begin(), hello.begin(), hello.end());
  WEFT_ASSERT(out.state() == OutboundState::handshaking && out.transmit_queued);
}

void Kernel::handle_link_down(Instant now, LinkId link, LinkDownCause cause) {
  advance(now);
  if (const InboundIt in = links_.find_inbound(link); links_.found(in)) {
    inbound_down(in, cause);
  } else if (const OutboundIt out = links_.outbound_of(link); links_.found(out)) {
    outbound_down(out, cause);
  }
}

void Kernel::inbound_down(InboundIt it, LinkDownCause cause) {
  const Inbound& in = it->second;
  if (in.decoder.buffered_bytes() > 0) mark(Mark::truncated_frame);
  // A peer's closed link voids what we last heard from it: a helper asked
  // to vouch for it must probe, not quote stale evidence.
  if (in.peer && cause == LinkDownCause::closed_by_peer) {
    last_heard_.erase(in.peer->address);
    ++liveness_generation_;
  }
  // The dialer left after our proof and before its own (or we closed the
  // link while its proof was due).
  if (in.claimed && !in.peer) ++counters_.handshakes_abandoned;
  const std::size_t links_before = links_.inbound().size();
  links_.erase_inbound(it);
  WEFT_ASSERT(links_.inbound().size() + 1 == links_before);
}

void Kernel::outbound_down(OutboundIt it, LinkDownCause cause) {
  const NodeAddress& peer = it->first;  // the record stays (idle) until a sweep
  Outbound& out = it->second;
  if (out.decoder.buffered_bytes() > 0) mark(Mark::truncated_frame);
  links_.lose_link(it);
  out.redial.lost(now_, prng_);
  WEFT_ASSERT(out.state() == OutboundState::idle && out.redial.next_attempt() > now_);
  if (cause == LinkDownCause::refused) suspect_refused(peer);
}

// A refused redial is stronger evidence than silence: a dead process's
// sockets are closed by its OS at once and nothing listens any more. Probe
// without waiting for phi (a paused process keeps its sockets open and
// accepts, so it is not affected).
void Kernel::suspect_refused(const NodeAddress& peer) {
  last_heard_.erase(peer);
  ++liveness_generation_;
  for (auto& [subject, monitor] : monitors_) {
    if (subject.address == peer && !monitor.marked_unreachable) {
      mark(Mark::early_crash_suspicion);
      start_probe(subject);
    }
  }
}

void Kernel::handle_bytes(Instant now, LinkId link, std::span<const std::uint8_t> bytes) {
  advance(now);
  counters_.bytes_in += bytes.size();
  if (const InboundIt in = links_.find_inbound(link); links_.found(in)) {
    read_inbound(in, bytes);
  } else if (const OutboundIt out = links_.outbound_of(link); links_.found(out)) {
    read_outbound(out, bytes);
  } else {
    return;  // closed meanwhile; nothing to sweep for it
  }
  links_.sweep();
}

void Kernel::read_inbound(InboundIt it, std::span<const std::uint8_t> bytes) {
  const LinkId link = it->first;
  Inbound& in = it->second;
  in.last_read = now_;
  // The record stays put while its decoder runs: only a sweep erases.
  const wire::WireError error = in.decoder.feed(bytes, [&](wire::Bytes payload) {
    if (!in.closed()) on_inbound_frame(it, payload);
  });
  if (error != wire::WireError::none) close_inbound(link, CloseReason::wire_error, error);
  WEFT_ASSERT(error == wire::WireError::none || in.closed());
}

void Kernel::read_outbound(OutboundIt it, std::span<const std::uint8_t> bytes) {
  // The acceptor writes only after reading our hello, so bytes come only
  // after handle_link_up.
  WEFT_ASSERT(it->second.connected());
  const LinkId link = *it->second.link;
  // A frame may close the link: the frames behind it are not read.
  const wire::WireError error = it->second.decoder.feed(bytes, [&](wire::Bytes payload) {
    if (const OutboundIt still = links_.outbound_of(link); links_.found(still)) on_outbound_frame(still, payload);
  });
  if (error != wire::WireError::none && links_.found(links_.outbound_of(link))) {
    close_outbound(it->first, CloseReason::wire_error, error);
  }
  WEFT_ASSERT(error == wire::WireError::none || !links_.found(links_.outbound_of(link)));
}

void Kernel::on_outbound_frame(OutboundIt it, std::span<const std::uint8_t> payload) {
  const NodeAddress& peer = it->first;
  Outbound& out = it->second;
  WEFT_ASSERT(out.connected());
  ++counters_.frames_in;
  wire::Decoded<wire::Hello> hello = wire::decode_hello(payload);
  if (!hello.ok() || out.state() == OutboundState::established) {
    // The only frame a peer sends on a link we dialed is its hello reply.
    close_outbound(peer, hello.ok() ? CloseReason::unexpected_frame : CloseReason::wire_error,
                   hello.error);
    return;
  }
  if (const auto refused = check_hello(hello.value)) {
    // The process listening at a member's address now is older than the
    // life proven there: a restart below a life taken to refute a claim
    // (one process per address: the proven one is gone). Our next hello
    // there tells it the life to pass (hear_held_life).
    const bool first_stale = *refused == CloseReason::stale_incarnation &&
                             hello.value.address.to_owned() == peer && !config_.mutations.held_life_unsaid &&
                             stale_answers_.emplace(peer, members_.find(peer)->incarnation()).second;
    close_outbound(peer, *refused);
    // Once per such answer, at once: the hello that names the life.
    if (first_stale) {
      (void)outbound(peer);
      redial_now(peer);
    }
    return;
  }
  if (!names_allow(out.peer_names, peer.host)) {
    close_outbound(peer, CloseReason::wrong_name);
    return;
  }
  // We dialed a member's address and someone else answered: a stale DNS
  // entry, a reused port, or a relay. Its hello (and proof) name another
  // node, so nothing on this link may count for the member we meant.
  if (hello.value.address.to_owned() != peer && members_.find(peer) != nullptr) {
    close_outbound(peer, CloseReason::wrong_peer);
    return;
  }
  if (config_.auth.enabled()) {
    const HelloSide dialer{self_.address.host, self_.address.port, out.hello_incarnation, out.nonce};
    const HelloSide acceptor = HelloSide::of(hello.value);
    if (!proof_holds(hello.value.proof, HandshakeRole::acceptor, dialer, acceptor)) {
      close_outbound(peer, CloseReason::bad_proof);
      return;
    }
    const Proof proof =
        sign_handshake(config_.auth, transcript_role(HandshakeRole::dialer), config_.cluster_name, dialer, acceptor);
    // The handshake buffer, not the control queue: it is lent ahead of
    // everything (a mutation that puts control behind user frames must not
    // put user frames ahead of the proof) and starts empty on every link.
    append_handshake_frame(out.handshake, wire::HelloProof{proof});
    ++counters_.frames_out;
    links_.queue_transmit(it);
  }
  links_.establish(it, MemberId{hello.value.address.to_owned(), Incarnation{hello.value.incarnation}});
  note_proven(*out.peer);
  stale_answers_.erase(peer);
  out.redial.reset();
  WEFT_ASSERT(out.state() == OutboundState::established && (!config_.auth.enabled() || !out.handshake.empty()));
  const MemberId answered = *out.peer;
  observe(answered);
  // A stranger whose dial we waited for: its Join is taken now.
  if (!dial_backs_.empty() && dial_backs_.answered(answered)) take_joiner(answered);
}

// The dialer's hello. Unauthenticated, it names the peer at once; with a
// secret, the reply carries our proof and the peer is named by its own.
void Kernel::on_hello(InboundIt it, const wire::Hello& hello) {
  const LinkId link = it->first;
  Inbound& in = it->second;
  WEFT_ASSERT(!in.closed());  // read_inbound reads nothing more from a closed link
  if (in.state() != InboundState::awaiting_hello) {
    close_inbound(link, CloseReason::unexpected_frame);
    return;
  }
  if (const auto refused = check_hello(hello)) {
    close_inbound(link, *refused);
    if (*refused == CloseReason::stale_incarnation) dial_stale_address(hello.address.to_owned());
    return;
  }
  if (!names_allow(in.peer_names, hello.address.host)) {
    close_inbound(link, CloseReason::wrong_name);
    return;
  }
  const MemberId sender{hello.address.to_owned(), Incarnation{hello.incarnation}};
  wire::Hello reply = make_hello(fresh_nonce());
  Proof proof{};  // reply.proof is a view: the bytes must outlive the encoding below
  if (config_.auth.enabled()) {
    links_.claim(it, sender);
    in.dialer_nonce = hello.nonce;
    in.our_nonce = reply.nonce;
    in.our_incarnation = reply.incarnation;
    proof = sign_handshake(config_.auth, transcript_role(HandshakeRole::acceptor), config_.cluster_name,
                           HelloSide::of(hello), HelloSide::of(reply));
    reply.proof = proof;
  }
  append_handshake_frame(in.control, reply);
  links_.queue_transmit(it);
  ++counters_.frames_out;
  WEFT_ASSERT(!in.control.empty() && in.transmit_queued);  // our reply goes out either way
  if (in.state() == InboundState::awaiting_proof) {
    in.dialer_held = hello.held_incarnation;  // heard once the dialer has proven itself
    return;  // the proof must still come by hello_due
  }
  accept_peer(it, sender);
  hear_held_life(hello.held_incarnation);
}

// A dialer holds a life of our address above ours: we restarted below a
// life this address took (to refute a claim), and every peer that proved
// that life refuses our hello as an old process's. What we hear is a claim
// about us, judged as gossip's are (note_claim_about_self: the jump bound,
// one new life a gossip_interval); refuted, our next hellos pass it. Only
// the process listening at the address hears this (it is the one dialed),
// so an old process elsewhere still dialing as the address never does.
void Kernel::hear_held_life(std::uint64_t held) {
  if (held <= self_.incarnation.value) return;
  ++counters_.held_lives_heard;
  note_claim_about_self(Member{MemberId{self_.address, Incarnation{held}}, MemberStatus::up});
  check_self_status();  // refuted now if no refutation came this gossip_interval
}

// A dialer named a member's address in a life older than the one proven
// there. It may be an old process, or the address's process restarted
// below a life it took to refute a claim: dialing the address reaches
// whichever listens there now, and its answer tells (on_outbound_frame).
// Once per stale episode of the address, so a dialer repeating itself
// costs one dial.
void Kernel::dial_stale_address(const NodeAddress& address) {
  if (config_.mutations.held_life_unsaid || stale_answers_.count(address) != 0) return;
  if (members_.find(address) == nullptr) return;
  (void)outbound(address);
  redial_now(address);
}

void Kernel::on_hello_proof(InboundIt it, const wire::HelloProof& proof) {
  const LinkId link = it->first;
  const Inbound& in = it->second;
  WEFT_ASSERT(!in.closed());  // read_inbound reads nothing more from a closed link
  if (in.state() != InboundState::awaiting_proof) {
    close_inbound(link, CloseReason::unexpected_frame);
    return;
  }
  const MemberId& claimed = *in.claimed;
  const HelloSide dialer{claimed.address.host, claimed.address.port, claimed.incarnation.value, in.dialer_nonce};
  const HelloSide acceptor{self_.address.host, self_.address.port, in.our_incarnation, in.our_nonce};
  if (!proof_holds(proof.proof, HandshakeRole::dialer, dialer, acceptor)) {
    close_inbound(link, CloseReason::bad_proof);
    return;
  }
  // The hello was checked up to handshake_timeout ago; the member may have
  // taken a newer incarnation (or been downed as this one) meanwhile.
  wire::Hello again;
  again.cluster_name = config_.cluster_name;
  again.address = wire::AddressView::of(claimed.address);
  again.incarnation = claimed.incarnation.value;
  if (const auto refused = check_hello(again)) {
    close_inbound(link, *refused);
    return;
  }
  const std::uint64_t held = in.dialer_held;
  accept_peer(it, claimed);
  hear_held_life(held);
}

void Kernel::accept_peer(InboundIt it, const MemberId& peer) {
  links_.establish(it, peer);
  note_proven(peer);
  // Until now the link read only handshake-sized frames; what follows
  // (gossip states of a thousand members, users' messages) may be as large
  // as max_frame_bytes.
  it->second.decoder.raise_max_frame_bytes(config_.max_frame_bytes);
  const MemberId& accepted = *it->second.peer;
  WEFT_ASSERT(accepted == peer && accepted.address != self_.address);
  redial_now(accepted.address);
  observe(accepted);
}

void Kernel::on_inbound_frame(InboundIt it, std::span<const std::uint8_t> payload) {
  const LinkId link = it->first;
  Inbound& in = it->second;
  WEFT_ASSERT(!in.closed());
  ++counters_.frames_in;
  wire::Decoded<wire::Message> decoded = wire::decode_message(payload);
  if (!decoded.ok()) {
    close_inbound(link, CloseReason::wire_error, decoded.error);
    return;
  }
  if (const auto* hello = std::get_if<wire::Hello>(&decoded.value)) {
    on_hello(it, *hello);
    return;
  }
  if (const auto* proof = std::get_if<wire::HelloProof>(&decoded.value)) {
    on_hello_proof(it, *proof);
    return;
  }
  if (in.state() != InboundState::established) {
    const bool proof_due = in.state() == InboundState::awaiting_proof;
    close_inbound(link, proof_due ? CloseReason::unauthenticated : CloseReason::handshake_required);
    return;
  }
  // A user frame is evidence of life as much as a heartbeat (F2: a flood
  // must never look like silence); the mutation reads life from control
  // frames alone, as Akka reads it from heartbeat replies.
  if (!config_.mutations.liveness_behind_user || !std::holds_alternative<wire::Envelope>(decoded.value)) {
    observe_inbound(in);
  }
  const MemberId& peer = *in.peer;
  if (!config_.auth.enabled() && !known_peer(in) &&
      held_for_dial_back(peer, std::holds_alternative<wire::Join>(decoded.value))) {
    return;
  }
  on_message(peer, std::move(decoded.value));
}

bool Kernel::known_peer(Inbound& in) const {
  if (in.member_version == members_.version() && in.member_epoch == member_table_epoch_) return true;
  if (members_.find(in.peer->address) == nullptr) return false;
  in.member_version = members_.version();
  in.member_epoch = member_table_epoch_;
  return true;
}

void Kernel::expire_handshakes() {
  while (const std::optional<LinkId> link = links_.pop_overdue_handshake(now_)) {
    close_inbound(*link, CloseReason::handshake_timeout);
    WEFT_ASSERT(links_.find_inbound(*link)->second.closed());
  }
  WEFT_ASSERT(links_.next_handshake_deadline() > now_);
}

std::optional<Transmit> Kernel::poll_transmit() {
  const auto lend = [&](std::vector<std::uint8_t>& in_flight, LinkId link, bool& writing) {
    WEFT_ASSERT(!writing && !in_flight.empty());
    writing = true;
    counters_.bytes_out += in_flight.size();
    return Transmit{link, in_flight};
  };
  OutboundIt next_out;
  while (links_.next_transmit(next_out)) {
    Outbound& out = next_out->second;
    if (!out.connected() || out.writing) continue;
    if (!out.handshake.empty()) {
      out.in_flight.clear();
      out.in_flight.swap(out.handshake);
      return lend(out.in_flight, *out.link, out.writing);
    }
    // Authenticated: nothing behind the hello until the acceptor's proof.
    if (config_.auth.enabled() && out.state() != OutboundState::established) continue;
    // Membership and detection traffic never waits behind user messages
    // (docs/messaging.md); the two mutations put it behind them, to show F2
    // and F4 fail.
    const bool user_first =
        (config_.mutations.control_behind_user || config_.mutations.liveness_behind_user) && out.user_queued() > 0;
    if (!out.control.empty() && !user_first) {
      out.in_flight.clear();
      out.in_flight.swap(out.control);
      return lend(out.in_flight, *out.link, out.writing);
    }
    if (out.user_queued() > 0) {
      out.take_user_write(config_.max_write_bytes);
      return lend(out.in_flight, *out.link, out.writing);
    }
  }
  InboundIt next_in;
  while (links_.next_transmit(next_in)) {
    Inbound& in = next_in->second;
    if (in.closed() || in.writing || in.control.empty()) continue;
    in.in_flight.clear();
    in.in_flight.swap(in.control);
    return lend(in.in_flight, next_in->first, in.writing);
  }
  return std::nullopt;
}

void Kernel::handle_sent(Instant now, LinkId link) {
  advance(now);
  // An outbound link closed or lost meanwhile, or an inbound one gone
  // down, is found nowhere. A call with no write in flight changes nothing
  // but a look at the link (test harnesses make such calls).
  // What was lent is written: its buffer is drained (wire::drain_buffer).
  if (const OutboundIt out = links_.outbound_of(link); links_.found(out)) {
    if (out->second.writing) wire::drain_buffer(out->second.in_flight);
    out->second.writing = false;
    links_.queue_transmit(out);
  } else if (const InboundIt in = links_.find_inbound(link); links_.found(in)) {
    if (in->second.writing) wire::drain_buffer(in->second.in_flight);
    in->second.writing = false;
    links_.queue_transmit(in);
  }
}

std::size_t Kernel::outbound_bytes_queued(const NodeAddress& peer) const {
  const Outbound* out = links_.find_outbound(peer);
  return out == nullptr ? 0 : out->control.size() + out->user_queued();
}

}  // namespace weft
