// Failure detection: monitoring this node's ring successors
// (detection/monitoring_ring.hpp), heartbeats, liveness observations through
// the throttle, phi checks, indirect probes, and forgiving this node's own
// pauses.
#include <algorithm>

#include "kernel/kernel.hpp"
#include "kernel/kernel_internal.hpp"

namespace weft {

std::vector<MemberId> Kernel::monitored_subjects() const {
  std::vector<MemberId> subjects;
  for (const auto& [subject, monitor] : monitors_) subjects.push_back(subject);
  return subjects;
}

double Kernel::phi(const MemberId& subject, Instant now) const {
  const auto it = monitors_.find(subject);
  return it == monitors_.end() ? 0.0 : it->second.detector.phi(now);
}

const PhiDetector* Kernel::detector(const MemberId& subject) const {
  const auto it = monitors_.find(subject);
  return it == monitors_.end() ? nullptr : &it->second.detector;
}

void Kernel::refresh_monitors() {
  // This node's monitors follow its ring successors (monitoring_ring.hpp),
  // walking past the members its view holds unreachable.
  // Most refreshes follow a change of rows or of the view alone: the ring
  // is rebuilt only when the member table moved (its walk over a thousand
  // members was a twentieth of a run).
  // Members no one vouches for are off the ring: watching them would spend
  // the walk on invented members while real ones went unwatched.
  if (ring_members_version_ != members_.version() || ring_vouched_version_ != vouched_.version()) {
    ring_.update(members_.members(), vouched_.view());
    ring_members_version_ = members_.version();
    ring_vouched_version_ = vouched_.version();
  }
  ring_view_ = unreachable_view_;
  const std::vector<MemberId> wanted = ring_.successors(self_, config_.monitored_by, ring_view_);
  for (auto it = monitors_.begin(); it != monitors_.end();) {
    if (std::binary_search(wanted.begin(), wanted.end(), it->first)) {
      ++it;
      continue;
    }
    // No longer ours to judge: withdraw any mark we made.
    if (it->second.marked_unreachable) reachability_.mark_reachable(self_, it->first);
    it = monitors_.erase(it);
    ++liveness_generation_;
  }
  for (const MemberId& subject : wanted) {
    if (monitors_.count(subject) != 0) continue;
    Monitor& monitor = monitors_.emplace(subject, Monitor(fresh_detector_, config_.liveness_window))
                           .first->second;
    // Monitoring starts as if heard from now, so a subject that never
    // answers still accrues suspicion. It counts as the throttle's first
    // observation, so the detector's history keeps F5's spacing.
    (void)monitor.throttle.observe(now_);
    monitor.detector.heartbeat(now_);
    monitor.next_probe = now_;
    monitor.evidence_since = now_;
    ++liveness_generation_;
  }
  // Exactly the ring successors, never this node itself.
  WEFT_ASSERT(monitors_.size() == wanted.size());
  WEFT_ASSERT(monitors_.find(self_) == monitors_.end());
}

void Kernel::heartbeat_round() {
  timers_.arm(Timer::heartbeat, now_ + config_.heartbeat_interval);
  const std::uint64_t first_sequence = heartbeat_sequence_;
  for (auto& [subject, monitor] : monitors_) {
    monitor.silence.heartbeat_sent(now_, last_heard(subject.address));
    send_control(subject.address, wire::Heartbeat{++heartbeat_sequence_});
  }
  WEFT_ASSERT(heartbeat_sequence_ == first_sequence + monitors_.size());  // one per subject
  WEFT_ASSERT(timers_.deadline(Timer::heartbeat) > now_);
}

void Kernel::observe(const MemberId& peer) {
  // A peer named by a hello, which check_hello() refuses for our address.
  WEFT_ASSERT(peer.address != self_.address);
  last_heard_[peer.address] = now_;
  const auto it = monitors_.find(peer);
  if (it != monitors_.end()) observe_monitor(peer, it->second);
}

void Kernel::observe_inbound(Inbound& link) {
  // Every inbound frame passes here: the two lookups are cached per link.
  WEFT_ASSERT(link.state() == InboundState::established);  // so link.peer is set
  if (link.cache_generation != liveness_generation_) {
    link.heard = &last_heard_.try_emplace(link.peer->address, now_).first->second;
    const auto it = monitors_.find(*link.peer);
    link.monitor = it == monitors_.end() ? nullptr : &it->second;
    link.cache_generation = liveness_generation_;
  }
  *link.heard = now_;
  if (link.monitor != nullptr) observe_monitor(*link.peer, *link.monitor);
}

void Kernel::observe_monitor(const MemberId& peer, Monitor& monitor) {
  if (!monitor.throttle.observe(now_) && !config_.mutations.throttle_off) {
    ++counters_.observations_throttled;
    return;
  }
  ++counters_.observations_passed;
  monitor.detector.heartbeat(now_);
  if (monitor.marked_unreachable && monitor.detector.available(now_) && !config_.mutations.refutation_off) {
    withdraw_mark(monitor);
    reachability_.mark_reachable(self_, peer);
    mark(Mark::suspicion_refuted);
    on_state_changed();
  }
}

void Kernel::check_detectors() {
  std::vector<MemberId> suspects;
  for (const auto& [subject, monitor] : monitors_) {
    // A subject already marked is still probed, less often: helpers that
    // could not answer at first (a link still redialling, a restarted
    // member not yet linked) may vouch for it later.
    if (now_ < monitor.next_probe) continue;
    if (monitor.marked_unreachable || !monitor.detector.available(now_)) suspects.push_back(subject);
  }
  for (const MemberId& subject : suspects) start_probe(subject);
}

void Kernel::start_probe(const MemberId& subject) {
  WEFT_ASSERT(subject.address != self_.address);  // subjects are monitored, and this node never is
  const auto it = monitors_.find(subject);
  if (it == monitors_.end() || now_ < it->second.next_probe) return;
  it->second.next_probe =
      now_ + (it->second.marked_unreachable ? std::max(config_.probe_timeout, config_.heartbeat_interval)
                                            : config_.probe_timeout);
  // Before blaming the subject, ask others whether they can reach it: one
  // broken link between two healthy nodes must down neither (F4).
  std::vector<NodeAddress> candidates;
  for (const Member& m : members_.members()) {
    if (m.address() == self_.address || !is_live_status(m.status)) continue;
    if (m.address() != subject.address && !is_unreachable(m.id)) candidates.push_back(m.address());
  }
  const Duration wait = config_.probe_timeout +
                        (config_.mutations.suspicion_delayed ? config_.heartbeat_interval * 8 : Duration::zero());
  if (config_.mutations.indirect_probes_off) candidates.clear();
  const std::vector<NodeAddress> helpers =
      IndirectProbes::pick_helpers(std::move(candidates), config_.indirect_probes, prng_);
  const std::uint64_t id = probes_.ask(subject, now_, wait, helpers);
  send_control(subject.address, wire::Probe{id});  // the direct path, once more
  for (const NodeAddress& helper : helpers) {
    WEFT_ASSERT(helper != subject.address && helper != self_.address);
    send_control(helper, wire::ProbeRequest{subject, id});
  }
  WEFT_ASSERT(it->second.next_probe > now_);
}

void Kernel::on_probe_request(const MemberId& from, const wire::ProbeRequest& request) {
  if (const std::optional<Instant> heard = last_heard(request.subject.address);
      heard && now_ - *heard < config_.probe_timeout) {
    send_control(from.address, wire::ProbeAlive{request.subject, request.probe});
    return;
  }
  if (!is_live(request.subject.address) || request.subject.address == self_.address) return;
  const std::uint64_t id = probes_.help(from, request.probe, request.subject, now_ + config_.probe_timeout);
  send_control(request.subject.address, wire::Probe{id});
}

void Kernel::on_probe_ack(const MemberId& from, const wire::ProbeAck& ack) {
  if (const std::optional<ProbeHelping> helped = probes_.on_ack(from.address, ack.probe)) {
    send_control(helped->asker.address, wire::ProbeAlive{helped->subject, helped->asker_probe});
  }
}

void Kernel::on_probe_alive(const MemberId& from, const wire::ProbeAlive& alive) {
  const AliveAnswer answer = probes_.on_alive(from.address, alive.probe, alive.subject);
  if (answer == AliveAnswer::unknown) return;
  mark(Mark::indirect_probe_saved);
  if (answer == AliveAnswer::in_time) return;
  // The answer came after the probe timed out and this node marked the
  // subject: the helper heard it after the probe started, so the timeout
  // was the slow path's (a latency spike, a queue), not the subject's death.
  // Withdraw the mark, or the leader would down a live node that only one
  // link could not reach (F4).
  const auto monitor = monitors_.find(alive.subject);
  if (monitor == monitors_.end() || !monitor->second.marked_unreachable) return;
  withdraw_mark(monitor->second);
  reachability_.mark_reachable(self_, alive.subject);
  on_state_changed();
}

void Kernel::expire_probes() {
  const auto heard_since = [&](const MemberId& subject, Instant started) {
    const std::optional<Instant> heard = last_heard(subject.address);
    return heard && *heard > started && !config_.mutations.indirect_probes_off;
  };
  const std::vector<CondemnedProbe> condemned = probes_.expire(now_, config_.down_after_unreachable, heard_since);
  bool changed = false;
  for (const auto& [subject, started] : condemned) {
    const auto monitor = monitors_.find(subject);
    if (monitor == monitors_.end() || monitor->second.marked_unreachable) continue;
    if (started < monitor->second.evidence_since && !config_.mutations.flap_guard_off) continue;
    monitor->second.marked_unreachable = true;
    changed = reachability_.mark_unreachable(self_, subject) || changed;
  }
  if (changed) on_state_changed();
}

void Kernel::withdraw_mark(Monitor& monitor) {
  WEFT_ASSERT(monitor.marked_unreachable);
  monitor.marked_unreachable = false;
  monitor.evidence_since = now_;
}

void Kernel::forgive_own_pause() {
  // This node was paused (a long gap between its own inputs): the silence of
  // its peers during that gap is its own, not theirs (F3).
  mark(Mark::self_pause_forgiven);
  last_disturbed_ = now_;  // a down of this node heard after a pause may be real
  for (auto& [subject, monitor] : monitors_) {
    monitor.detector.forgive_silence(now_);
    monitor.silence.forget();
  }
  probes_.postpone(now_ + config_.probe_timeout);
}

void Kernel::on_heartbeat(const MemberId& from, const wire::Heartbeat& heartbeat) {
  send_control(from.address, wire::HeartbeatAck{heartbeat.sequence});
  if (const auto it = monitors_.find(from); it != monitors_.end()) it->second.silence.heartbeat_received(now_);
}

std::optional<Instant> Kernel::last_heard(const NodeAddress& peer) const {
  const auto heard = last_heard_.find(peer);
  if (heard == last_heard_.end()) return std::nullopt;
  return heard->second;
}

}  // namespace weft
