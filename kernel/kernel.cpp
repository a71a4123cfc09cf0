// The kernel's clock, links, frames and outputs. Membership, detection and
// actors live in kernel_membership.cpp, kernel_detection.cpp and
// kernel_actors.cpp.
#include "kernel/kernel.hpp"

#include <algorithm>

#include "kernel/kernel_internal.hpp"

namespace weft {

namespace {

// A handshake frame is a few hundred bytes at most (a 64-byte cluster name,
// a 253-byte host), far below the smallest max_frame_bytes (4 KiB).
template <class Message>
void append_handshake_frame(std::vector<std::uint8_t>& out, const Message& message) {
  const wire::WireError error = wire::append_frame(out, message);
  WEFT_ASSERT(error == wire::WireError::none);
}

}  // namespace

Kernel::Kernel(Config config, std::uint64_t seed)
    : config_(std::move(config)),
      prng_(seed),
      self_{config_.self, config_.incarnation},
      asks_(config_.max_pending_asks, first_ask_id(config_.incarnation)) {
  WEFT_ASSERT(config_.validate().empty());
}

Kernel::~Kernel() = default;

void Kernel::mark(Mark m) { ++counters_.marks[static_cast<std::size_t>(m)]; }

void Kernel::advance(Instant now) {
  if (!started_) {
    started_ = true;
    now_ = now;
    start_membership();
    return;
  }
  WEFT_ASSERT(now >= now_);
  if (now - now_ > config_.self_pause_threshold) {
    now_ = now;
    forgive_own_pause();
  }
  now_ = now;
}

// --- Links

void Kernel::queue_transmit(OutboundIt it) {
  if (it->second.transmit_queued) return;
  it->second.transmit_queued = true;
  transmit_out_.push(it);
}

void Kernel::queue_transmit(InboundIt it) {
  if (it->second.transmit_queued) return;
  it->second.transmit_queued = true;
  transmit_in_.push(it);
}

void Kernel::queue_dial(OutboundIt it) {
  if (it->second.dial_queued) return;
  it->second.dial_queued = true;
  dial_waiting_.push_back(it);
}

std::size_t Kernel::AddressHash::operator()(const NodeAddress& address) const {
  return static_cast<std::size_t>(
      fingerprint_u64(fingerprint_bytes(0, address.host.data(), address.host.size()), address.port));
}

Kernel::OutboundIt Kernel::find_outbound(const NodeAddress& peer) {
  const auto found = outbound_index_.find(peer);
  return found == outbound_index_.end() ? outbound_.end() : found->second;
}

Kernel::InboundIt Kernel::find_inbound(LinkId link) {
  const auto found = inbound_index_.find(link);
  return found == inbound_index_.end() ? inbound_.end() : found->second;
}

// Every path that queues bytes for a peer comes through here.
Kernel::Outbound& Kernel::outbound(const NodeAddress& peer) {
  WEFT_ASSERT(peer != self_.address);
  auto it = find_outbound(peer);
  if (it == outbound_.end()) {
    it = outbound_.emplace(peer, Outbound(config_.max_frame_bytes)).first;
    outbound_index_.emplace(peer, it);
    it->second.next_attempt = now_;
    it->second.backoff = config_.reconnect_backoff_min;
    queue_dial(it);
  } else if (it->second.retired) {
    it->second.retired = false;
    it->second.next_attempt = now_ + it->second.backoff;
    queue_dial(it);
  }
  queue_transmit(it);
  return it->second;
}

void Kernel::connect_due(Instant now) {
  dial_due_.clear();
  std::erase_if(dial_waiting_, [&](OutboundIt it) {
    Outbound& out = it->second;
    if (!out.retired && !out.link.has_value() && out.next_attempt > now) return false;
    out.dial_queued = false;
    if (!out.retired && !out.link.has_value()) dial_due_.push_back(it);
    return true;
  });
  // Dialled in address order, as a walk of outbound_ would.
  std::sort(dial_due_.begin(), dial_due_.end(),
            [](const OutboundIt& a, const OutboundIt& b) { return a->first < b->first; });
  for (const OutboundIt it : dial_due_) {
    const LinkId id{next_link_id_++};
    it->second.link = id;
    it->second.connected = false;
    outbound_by_link_[id] = it;
    commands_.push_back(ConnectCommand{id, it->first});
  }
}

// A peer just dialed us, so it is listening: our link to it need not wait
// out a backoff grown while it was down (or cut off). Reset the backoff and
// redial at the next tick if we were waiting to.
void Kernel::redial_now(const NodeAddress& peer) {
  const auto it = find_outbound(peer);
  if (it == outbound_.end() || it->second.retired) return;
  Outbound& out = it->second;
  out.backoff = config_.reconnect_backoff_min;
  if (!out.link.has_value() && out.next_attempt > now_) {
    out.next_attempt = now_;
    queue_dial(it);
  }
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
  return whiten_nonce(config_.auth, nonce, ++nonces_made_);
}

bool Kernel::proof_holds(std::span<const std::uint8_t> proof, HandshakeRole prover, const HelloSide& dialer,
                         const HelloSide& acceptor) const {
  if (config_.mutations.proof_check_off) return true;
  return verify_handshake(config_.auth, proof, prover, config_.cluster_name, dialer, acceptor);
}

std::optional<CloseReason> Kernel::check_hello(const wire::Hello& hello) const {
  if (hello.protocol_version != wire::kProtocolVersion) return CloseReason::wrong_version;
  if (hello.cluster_name != config_.cluster_name && !config_.mutations.cluster_check_off) {
    return CloseReason::wrong_cluster;
  }
  if (hello.address.host == self_.address.host && hello.address.port == self_.address.port) {
    return CloseReason::self_connection;
  }
  if (const Member* known = members_.find(hello.address.to_owned())) {
    if (hello.incarnation < known->incarnation().value) return CloseReason::stale_incarnation;
    if (hello.incarnation - known->incarnation().value > config_.max_incarnation_jump &&
        !config_.mutations.ingest_guard_off) {
      return CloseReason::implausible_incarnation;
    }
  }
  return std::nullopt;
}

void Kernel::close_outbound(const NodeAddress& peer, CloseReason reason, wire::WireError error) {
  const auto it = find_outbound(peer);
  if (it == outbound_.end()) return;
  Outbound& out = it->second;
  if (!out.retired) retired_out_.push_back(it->first);
  if (out.link) {
    commands_.push_back(CloseCommand{*out.link, reason, error});
    outbound_by_link_.erase(*out.link);
  }
  ++counters_.links_closed[static_cast<std::size_t>(reason)];
  if (error != wire::WireError::none) ++counters_.wire_errors[static_cast<std::size_t>(error)];
  counters_.dead_letters[static_cast<std::size_t>(DeadLetterReason::link_lost)] += out.user_frames;
  // The record (and the decoder that may be running) stays until sweep().
  out.drop_link();
  out.retired = true;
  needs_sweep_ = true;
  out.peer.reset();
  out.control.clear();
  out.user.clear();
  out.user_head = 0;
  out.user_frames = 0;
}

void Kernel::sweep() {
  if (!needs_sweep_) return;
  needs_sweep_ = false;
  transmit_in_.drop_if([](const InboundIt& it) { return it->second.closed; });
  transmit_out_.drop_if([](const OutboundIt& it) { return it->second.retired; });
  std::erase_if(dial_waiting_, [](const OutboundIt& it) { return it->second.retired; });
  for (const LinkId link : closed_in_) {
    const auto found = inbound_index_.find(link);
    if (found == inbound_index_.end() || !found->second->second.closed) continue;  // gone with its link
    inbound_.erase(found->second);
    inbound_index_.erase(found);
  }
  closed_in_.clear();
  for (const NodeAddress& peer : retired_out_) {
    const auto found = outbound_index_.find(peer);
    if (found == outbound_index_.end() || !found->second->second.retired) continue;  // revived by outbound()
    WEFT_ASSERT(!found->second->second.link.has_value());
    outbound_.erase(found->second);
    outbound_index_.erase(found);
  }
  retired_out_.clear();
  WEFT_ASSERT(outbound_index_.size() == outbound_.size() && inbound_index_.size() == inbound_.size());
}

void Kernel::close_inbound(LinkId link, CloseReason reason, wire::WireError error) {
  const auto it = find_inbound(link);
  if (it == inbound_.end() || it->second.closed) return;
  it->second.closed = true;
  closed_in_.push_back(link);
  if (!it->second.peer) awaiting_hello_.erase({it->second.hello_due, link});
  needs_sweep_ = true;
  commands_.push_back(CloseCommand{link, reason, error});
  ++counters_.links_closed[static_cast<std::size_t>(reason)];
  if (error != wire::WireError::none) ++counters_.wire_errors[static_cast<std::size_t>(error)];
}

LinkId Kernel::handle_link_accepted(Instant now) {
  advance(now);
  const LinkId id{next_link_id_++};
  const InboundIt it = inbound_.emplace(id, Inbound(config_.max_frame_bytes)).first;
  inbound_index_.emplace(id, it);
  Inbound& in = it->second;
  in.hello_due = now_ + config_.handshake_timeout;
  awaiting_hello_.emplace(in.hello_due, id);
  return id;
}

void Kernel::handle_link_up(Instant now, LinkId link) {
  advance(now);
  const auto by_link = outbound_by_link_.find(link);
  if (by_link == outbound_by_link_.end()) return;  // closed meanwhile
  const OutboundIt it = by_link->second;
  Outbound& out = it->second;
  out.connected = true;
  queue_transmit(it);
  out.decoder = wire::FrameDecoder(config_.max_frame_bytes);
  out.peer.reset();
  out.nonce = fresh_nonce();
  out.hello_incarnation = self_.incarnation.value;
  ++counters_.frames_out;
  if (config_.auth.enabled()) {
    // Nothing but the hello until the acceptor has proven itself.
    out.handshake.clear();
    append_handshake_frame(out.handshake, make_hello(out.nonce));
    return;
  }
  std::vector<std::uint8_t> hello;
  append_handshake_frame(hello, make_hello(out.nonce));
  out.control.insert(out.control.begin(), hello.begin(), hello.end());
}

void Kernel::handle_link_down(Instant now, LinkId link, LinkDownCause cause) {
  advance(now);
  if (const auto in = find_inbound(link); in != inbound_.end()) {
    if (in->second.decoder.buffered_bytes() > 0) mark(Mark::truncated_frame);
    // A peer's closed link voids what we last heard from it: a helper asked
    // to vouch for it must probe, not quote stale evidence.
    if (in->second.peer && cause == LinkDownCause::closed_by_peer) {
      last_heard_.erase(in->second.peer->address);
      ++liveness_generation_;
    }
    if (in->second.transmit_queued) {
      transmit_in_.drop_if([&](const InboundIt& it) { return it == in; });
    }
    if (!in->second.peer) awaiting_hello_.erase({in->second.hello_due, link});
    if (in->second.claimed && !in->second.peer) ++counters_.handshakes_abandoned;
    inbound_index_.erase(link);
    inbound_.erase(in);
    return;
  }
  const auto by_link = outbound_by_link_.find(link);
  if (by_link == outbound_by_link_.end()) return;
  const OutboundIt it = by_link->second;
  const NodeAddress peer = it->first;
  outbound_by_link_.erase(by_link);
  Outbound& out = it->second;
  if (out.decoder.buffered_bytes() > 0) mark(Mark::truncated_frame);
  out.drop_link();
  queue_dial(it);
  // Capped exponential backoff with up to 25 % jitter, so a healed
  // partition is not redialled by everyone in the same instant.
  const Duration jitter = Duration::nanoseconds(static_cast<std::int64_t>(
      prng_.below(static_cast<std::uint64_t>(out.backoff.ns() / 4 + 1))));
  out.next_attempt = now_ + out.backoff + jitter;
  out.backoff = std::min(out.backoff * 2, config_.reconnect_backoff_max);
  if (cause == LinkDownCause::refused) {
    // A refused redial is stronger evidence than silence: a dead process's
    // sockets are closed by its OS at once and nothing listens any more.
    // Probe without waiting for phi (a paused process keeps its sockets open
    // and accepts, so it is not affected).
    last_heard_.erase(peer);
    ++liveness_generation_;
    for (auto& [subject, monitor] : monitors_) {
      if (subject.address == peer && !monitor.marked_unreachable) {
        mark(Mark::early_crash_suspicion);
        start_probe(subject);
      }
    }
  }
}

void Kernel::handle_bytes(Instant now, LinkId link, std::span<const std::uint8_t> bytes) {
  advance(now);
  counters_.bytes_in += bytes.size();
  if (const auto in = find_inbound(link); in != inbound_.end()) {
    Inbound& inbound = in->second;
    const wire::WireError error = inbound.decoder.feed(bytes, [&](wire::Bytes payload) {
      if (!inbound.closed) on_inbound_frame(link, inbound, payload);
    });
    if (error != wire::WireError::none) close_inbound(link, CloseReason::wire_error, error);
    sweep();
    return;
  }
  const auto by_link = outbound_by_link_.find(link);
  if (by_link == outbound_by_link_.end()) return;
  const NodeAddress peer = by_link->second->first;
  Outbound& out = by_link->second->second;
  const wire::WireError error = out.decoder.feed(bytes, [&](wire::Bytes payload) {
    const auto still = find_outbound(peer);
    if (still != outbound_.end() && still->second.link == link) on_outbound_frame(still->second, payload);
  });
  const auto still = find_outbound(peer);
  if (error != wire::WireError::none && still != outbound_.end() && still->second.link == link) {
    close_outbound(peer, CloseReason::wire_error, error);
  }
  sweep();
}

void Kernel::on_outbound_frame(Outbound& out, std::span<const std::uint8_t> payload) {
  ++counters_.frames_in;
  wire::Decoded<wire::Hello> hello = wire::decode_hello(payload);
  const NodeAddress peer = outbound_by_link_.at(*out.link)->first;
  if (!hello.ok() || out.peer.has_value()) {
    // The only frame a peer sends on a link we dialed is its hello reply.
    close_outbound(peer, hello.ok() ? CloseReason::unexpected_frame : CloseReason::wire_error,
                   hello.error);
    return;
  }
  if (const auto refused = check_hello(hello.value)) {
    close_outbound(peer, *refused);
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
    const Proof proof = sign_handshake(config_.auth, HandshakeRole::dialer, config_.cluster_name, dialer, acceptor);
    // The handshake buffer, not the control queue: it is lent ahead of
    // everything (a mutation that puts control behind user frames must not
    // put user frames ahead of the proof) and starts empty on every link.
    append_handshake_frame(out.handshake, wire::HelloProof{proof});
    ++counters_.frames_out;
    queue_transmit(find_outbound(peer));
  }
  out.peer = MemberId{hello.value.address.to_owned(), Incarnation{hello.value.incarnation}};
  out.backoff = config_.reconnect_backoff_min;
  observe(*out.peer);
}

// The dialer's hello. Unauthenticated, it names the peer at once; with a
// secret, the reply carries our proof and the peer is named by its own.
void Kernel::on_hello(LinkId link, Inbound& in, const wire::Hello& hello) {
  if (in.peer.has_value() || in.claimed.has_value()) {
    close_inbound(link, CloseReason::unexpected_frame);
    return;
  }
  if (const auto refused = check_hello(hello)) {
    close_inbound(link, *refused);
    return;
  }
  const MemberId sender{hello.address.to_owned(), Incarnation{hello.incarnation}};
  wire::Hello reply = make_hello(fresh_nonce());
  Proof proof{};
  if (config_.auth.enabled()) {
    in.claimed = sender;
    in.dialer_nonce = hello.nonce;
    in.our_nonce = reply.nonce;
    in.our_incarnation = reply.incarnation;
    proof = sign_handshake(config_.auth, HandshakeRole::acceptor, config_.cluster_name, HelloSide::of(hello),
                           HelloSide::of(reply));
    reply.proof = proof;
  }
  append_handshake_frame(in.control, reply);
  queue_transmit(find_inbound(link));
  ++counters_.frames_out;
  if (in.claimed) return;  // the proof must still come by hello_due
  accept_peer(link, in, sender);
}

void Kernel::on_hello_proof(LinkId link, Inbound& in, const wire::HelloProof& proof) {
  if (!in.claimed.has_value() || in.peer.has_value()) {
    close_inbound(link, CloseReason::unexpected_frame);
    return;
  }
  const HelloSide dialer{in.claimed->address.host, in.claimed->address.port, in.claimed->incarnation.value,
                         in.dialer_nonce};
  const HelloSide acceptor{self_.address.host, self_.address.port, in.our_incarnation, in.our_nonce};
  if (!proof_holds(proof.proof, HandshakeRole::dialer, dialer, acceptor)) {
    close_inbound(link, CloseReason::bad_proof);
    return;
  }
  // The hello was checked up to handshake_timeout ago; the member may have
  // taken a newer incarnation (or been downed as this one) meanwhile.
  wire::Hello claimed;
  claimed.cluster_name = config_.cluster_name;
  claimed.address = wire::AddressView::of(in.claimed->address);
  claimed.incarnation = in.claimed->incarnation.value;
  if (const auto refused = check_hello(claimed)) {
    close_inbound(link, *refused);
    return;
  }
  accept_peer(link, in, *in.claimed);
}

void Kernel::accept_peer(LinkId link, Inbound& in, const MemberId& peer) {
  in.peer = peer;
  awaiting_hello_.erase({in.hello_due, link});
  redial_now(in.peer->address);
  observe(*in.peer);
}

void Kernel::on_inbound_frame(LinkId link, Inbound& in, std::span<const std::uint8_t> payload) {
  ++counters_.frames_in;
  wire::Decoded<wire::Message> decoded = wire::decode_message(payload);
  if (!decoded.ok()) {
    close_inbound(link, CloseReason::wire_error, decoded.error);
    return;
  }
  if (const auto* hello = std::get_if<wire::Hello>(&decoded.value)) {
    on_hello(link, in, *hello);
    return;
  }
  if (const auto* proof = std::get_if<wire::HelloProof>(&decoded.value)) {
    on_hello_proof(link, in, *proof);
    return;
  }
  if (!in.peer.has_value()) {
    close_inbound(link, in.claimed ? CloseReason::unauthenticated : CloseReason::handshake_required);
    return;
  }
  // A user frame is evidence of life as much as a heartbeat (F2: a flood
  // must never look like silence); the mutation reads life from control
  // frames alone, as Akka reads it from heartbeat replies.
  if (!config_.mutations.liveness_behind_user || !std::holds_alternative<wire::Envelope>(decoded.value)) {
    observe_inbound(in);
  }
  const MemberId& peer = *in.peer;
  on_message(peer, std::move(decoded.value));
}

void Kernel::on_message(const MemberId& peer, wire::Message&& message) {
  if (shut_down_) return;
  std::visit(
      [&](auto&& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, wire::Envelope>) {
          on_envelope(peer, m);
        } else if constexpr (std::is_same_v<T, wire::Join>) {
          if (!accept_record(Member{peer, MemberStatus::joining})) return;
          const std::vector<Member> before(members_.members().begin(), members_.members().end());
          if (members_.merge(Member{peer, MemberStatus::joining})) {
            emit_member_changes(before);
            on_state_changed();
          }
          send_gossip_state(peer.address);
        } else if constexpr (std::is_same_v<T, wire::Heartbeat>) {
          send_control(peer.address, wire::HeartbeatAck{m.sequence});
        } else if constexpr (std::is_same_v<T, wire::HeartbeatAck>) {
          // Liveness evidence only; observe() already took it.
        } else if constexpr (std::is_same_v<T, wire::ProbeRequest>) {
          on_probe_request(peer, m);
        } else if constexpr (std::is_same_v<T, wire::Probe>) {
          send_control(peer.address, wire::ProbeAck{m.probe});
        } else if constexpr (std::is_same_v<T, wire::ProbeAck>) {
          on_probe_ack(peer, m);
        } else if constexpr (std::is_same_v<T, wire::ProbeAlive>) {
          on_probe_alive(peer, m);
        } else if constexpr (std::is_same_v<T, wire::GossipDigest>) {
          if (m.digest == digest_) {
            const auto at = std::lower_bound(seen_.begin(), seen_.end(), peer);
            if (at == seen_.end() || *at != peer) {
              seen_.insert(at, peer);
              ++seen_version_;
              on_seen_grew();
            }
            // Seen sets spread epidemically, like the state (O(log N)
            // rounds), instead of only by the digests each node receives
            // itself (O(N)): whoever knows of more members that saw this
            // state sends its state, which carries the seen set, and equal
            // states merge seen sets. Equal counts send nothing, so a
            // converged cluster exchanges digests only.
            if (seen_.size() > m.seen) {
              send_gossip_state(peer.address);
            } else if (seen_.size() < m.seen) {
              send_control(peer.address, wire::GossipDigest{digest_, seen_.size()});
            }
          } else {
            send_gossip_state(peer.address);
          }
        } else if constexpr (std::is_same_v<T, wire::GossipState>) {
          merge_gossip(peer, std::move(m));
        } else {
          // Handshake frames never get here: on_inbound_frame takes them.
          static_assert(std::is_same_v<T, wire::Hello> || std::is_same_v<T, wire::HelloProof>);
        }
      },
      std::move(message));
}

// --- Ticks and outputs

void Kernel::expire_handshakes() {
  while (!awaiting_hello_.empty() && awaiting_hello_.begin()->first <= now_) {
    const LinkId link = awaiting_hello_.begin()->second;
    awaiting_hello_.erase(awaiting_hello_.begin());
    close_inbound(link, CloseReason::handshake_timeout);
  }
}

// One duty per due timer, in the table's order. check_detectors() runs on
// every tick: phi is a level, not an event, so it is sampled whenever the
// kernel wakes (at the latest every gossip_interval). A gossip round takes
// the leader's actions with it, so the down check runs alone only between
// rounds.
void Kernel::handle_tick(Instant now) {
  advance(now);
  if (shut_down_) return;
  if (timers().due(Timer::handshake, now_)) expire_handshakes();
  if (timers().due(Timer::ask, now_)) expire_asks();
  if (timers().due(Timer::probe, now_)) expire_probes();
  if (timers_.due(Timer::heartbeat, now_)) heartbeat_round();
  check_detectors();
  if (timers_.due(Timer::gossip, now_)) {
    gossip_round();
  } else if (timers_.due(Timer::down_check, now_)) {
    leader_actions();
  }
  if (shut_down_) return;  // downed by the round: nothing more to do
  if (timers_.due(Timer::join, now_)) join_attempt();
  if (timers_.due(Timer::heal_probe, now_)) heal_probe();
  if (timers().due(Timer::dial, now_)) connect_due(now_);
  dispatch();
  sweep();
}

std::optional<LinkCommand> Kernel::poll_command() {
  if (commands_.empty()) return std::nullopt;
  LinkCommand command = std::move(commands_.front());
  commands_.pop_front();
  return command;
}

std::optional<Transmit> Kernel::poll_transmit() {
  const auto lend = [&](std::vector<std::uint8_t>& in_flight, LinkId link, bool& writing) {
    writing = true;
    counters_.bytes_out += in_flight.size();
    return Transmit{link, in_flight};
  };
  OutboundIt next_out;
  while (transmit_out_.pop(next_out)) {
    Outbound& out = next_out->second;
    out.transmit_queued = false;
    if (!out.connected || out.retired || out.writing) continue;
    if (!out.handshake.empty()) {
      out.in_flight.clear();
      out.in_flight.swap(out.handshake);
      return lend(out.in_flight, *out.link, out.writing);
    }
    // Authenticated: nothing behind the hello until the acceptor's proof.
    if (config_.auth.enabled() && !out.peer.has_value()) continue;
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
      take_user_write(out);
      return lend(out.in_flight, *out.link, out.writing);
    }
  }
  InboundIt next_in;
  while (transmit_in_.pop(next_in)) {
    Inbound& in = next_in->second;
    in.transmit_queued = false;
    if (in.closed || in.writing || in.control.empty()) continue;
    in.in_flight.clear();
    in.in_flight.swap(in.control);
    return lend(in.in_flight, next_in->first, in.writing);
  }
  return std::nullopt;
}

void Kernel::take_user_write(Outbound& out) {
  // At most max_write_bytes of whole frames per write, so a control frame
  // produced meanwhile waits behind one bounded write, not the whole queue.
  if (out.user_head == 0 && out.user.size() <= config_.max_write_bytes) {
    out.in_flight.clear();
    out.in_flight.swap(out.user);
    out.user_frames = 0;
    return;
  }
  std::size_t end = out.user_head;
  std::uint64_t frames = 0;
  while (end < out.user.size() && (frames == 0 || end - out.user_head < config_.max_write_bytes)) {
    const std::size_t length = wire::load_be32(out.user.data() + end);
    if (frames > 0 && end - out.user_head + wire::kFrameHeaderBytes + length > config_.max_write_bytes) break;
    end += wire::kFrameHeaderBytes + length;
    ++frames;
  }
  out.in_flight.assign(out.user.begin() + static_cast<std::ptrdiff_t>(out.user_head),
                       out.user.begin() + static_cast<std::ptrdiff_t>(end));
  out.user_head = end;
  out.user_frames -= frames;
  if (out.user_head == out.user.size()) {
    out.user.clear();
    out.user_head = 0;
  } else if (out.user_head * 2 >= out.user.size()) {
    out.user.erase(out.user.begin(), out.user.begin() + static_cast<std::ptrdiff_t>(out.user_head));
    out.user_head = 0;
  }
}

void Kernel::handle_sent(Instant now, LinkId link) {
  advance(now);
  if (const auto by_link = outbound_by_link_.find(link); by_link != outbound_by_link_.end()) {
    const OutboundIt it = by_link->second;
    it->second.writing = false;
    queue_transmit(it);
  } else if (const auto in = find_inbound(link); in != inbound_.end()) {
    in->second.writing = false;
    queue_transmit(in);
  }
}

std::optional<Event> Kernel::poll_event() {
  if (events_.empty()) return std::nullopt;
  Event event = std::move(events_.front());
  events_.pop_front();
  return event;
}

TimerTable Kernel::timers() const {
  TimerTable table = timers_;
  table.arm(Timer::handshake, awaiting_hello_.empty() ? Instant::never() : awaiting_hello_.begin()->first);
  table.arm(Timer::ask, next_ask_expiry());
  table.arm(Timer::probe, earliest_probe_deadline());
  table.arm(Timer::dial, earliest_dial());
  return table;
}

Instant Kernel::earliest_probe_deadline() const {
  Instant earliest = Instant::never();
  for (const auto& [id, probe] : probes_asked_) earliest = std::min(earliest, probe.deadline);
  for (const auto& [id, probe] : probes_helping_) earliest = std::min(earliest, probe.deadline);
  return earliest;
}

Instant Kernel::earliest_dial() const {
  Instant earliest = Instant::never();
  for (const OutboundIt& it : dial_waiting_) {
    if (!it->second.link.has_value() && !it->second.retired) earliest = std::min(earliest, it->second.next_attempt);
  }
  return earliest;
}

Instant Kernel::next_deadline() const {
  if (!started_) return Instant{};  // the first input starts the kernel: a tick at once
  if (shut_down_) return next_ask_expiry();
  if (!run_queue_.empty()) return now_;
  return timers().next();
}

std::size_t Kernel::outbound_bytes_queued(const NodeAddress& peer) const {
  const auto it = outbound_.find(peer);
  return it == outbound_.end() ? 0 : it->second.control.size() + it->second.user_queued();
}

}  // namespace weft
