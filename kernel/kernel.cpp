// The kernel's clock, ticks and outputs, and what each message from a peer
// means. The links live in kernel_links.cpp (the records in kernel/links/);
// membership, detection and actors in kernel_membership.cpp,
// kernel_detection.cpp and kernel_actors.cpp.
#include "kernel/kernel.hpp"

#include <algorithm>

#include "kernel/kernel_internal.hpp"

namespace weft {

Kernel::Kernel(Config config, std::uint64_t seed)
    : config_(std::move(config)),
      prng_(seed),
      self_{config_.self, config_.incarnation},
      tombstones_(config_.tombstone_ttl, config_.forgotten_lives, config_.max_tombstones),
      dial_backs_(config_.max_pending_handshakes),
      new_members_(config_.max_new_members_per_peer, config_.gossip_interval),
      vouched_(config_.mutations.vouching_off),
      life_ceiling_(config_.start_wall_ms, config_.incarnation_clock_skew),
      fresh_detector_(config_.phi_parameters()),
      asks_(config_.max_pending_asks, first_ask_id(config_.incarnation)) {
  WEFT_ASSERT(config_.validate().empty());
}

Kernel::~Kernel() = default;

void Kernel::mark(Mark m) {
  WEFT_ASSERT(static_cast<std::size_t>(m) < kMarkCount);
  ++counters_.marks[static_cast<std::size_t>(m)];
}

void Kernel::advance(Instant now) {
  if (!started_) {
    started_ = true;
    now_ = now;
    life_ceiling_.start(now);
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

void Kernel::on_message(const MemberId& peer, wire::Message&& message) {
  if (shut_down_) return;
  std::visit(
      [&](auto&& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, wire::Envelope>) {
          on_envelope(peer, m);
        } else if constexpr (std::is_same_v<T, wire::Join>) {
          take_joiner(peer);
        } else if constexpr (std::is_same_v<T, wire::Heartbeat>) {
          on_heartbeat(peer, m);
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
          on_gossip_digest(peer, m);
        } else if constexpr (std::is_same_v<T, wire::GossipState>) {
          merge_gossip(peer, std::move(m));
        } else if constexpr (std::is_same_v<T, wire::GossipDelta>) {
          merge_gossip_delta(peer, std::move(m));
        } else {
          // Handshake frames never get here: on_inbound_frame takes them.
          static_assert(std::is_same_v<T, wire::Hello> || std::is_same_v<T, wire::HelloProof>);
        }
      },
      std::move(message));
}

// --- Ticks and outputs

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
  if (timers().due(Timer::actor, now_)) fire_actor_timers();
  dispatch();
  links_.sweep();
  // The owned periodic duties stay armed while the kernel runs; the
  // heartbeat, re-armed only by its own round, is never left due.
  WEFT_ASSERT(timers_.armed(Timer::gossip) && timers_.deadline(Timer::heartbeat) > now_);
}

std::optional<LinkCommand> Kernel::poll_command() {
  if (commands_.empty()) return std::nullopt;
  LinkCommand command = std::move(commands_.front());
  commands_.pop_front();
  return command;
}

std::optional<Event> Kernel::poll_event() {
  if (events_.empty()) return std::nullopt;
  Event event = std::move(events_.front());
  events_.pop_front();
  return event;
}

TimerTable Kernel::timers() const {
  TimerTable table = timers_;
  table.arm(Timer::handshake, links_.next_handshake_deadline());
  table.arm(Timer::ask, next_ask_expiry());
  table.arm(Timer::probe, earliest_probe_deadline());
  table.arm(Timer::dial, links_.earliest_dial());
  table.arm(Timer::actor, actor_timers_.next_deadline());
  return table;
}

Instant Kernel::earliest_probe_deadline() const {
  return probes_.next_deadline();
}

Instant Kernel::next_deadline() const {
  if (!started_) return Instant{};  // the first input starts the kernel: a tick at once
  if (shut_down_) return next_ask_expiry();
  if (!run_queue_.empty()) return now_;
  return timers().next();
}

}  // namespace weft
