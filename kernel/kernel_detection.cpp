// Failure detection: the monitoring ring, heartbeats, liveness observations
// through the throttle, phi checks, indirect probes, and forgiving this
// node's own pauses.
#include <algorithm>

#include "kernel/kernel.hpp"
#include "kernel/kernel_internal.hpp"

namespace weft {
namespace {

// Position on the monitoring ring: a fingerprint of the address, so
// neighbours are spread independently of how addresses sort (racks, hosts).
std::uint64_t ring_key(const NodeAddress& address) {
  return fingerprint_u64(fingerprint_bytes(7, address.host.data(), address.host.size()), address.port);
}

}  // namespace

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

void Kernel::update_ring() {
  // Most state changes leave the live members as they were: one walk tells.
  const std::span<const Member> members = members_.members();
  bool same = true;
  std::size_t live = 0;
  for (const Member& m : members) {
    if (!is_live_status(m.status)) continue;
    if (live >= ring_ids_.size() || ring_ids_[live] != m.id) {
      same = false;
      break;
    }
    ++live;
  }
  if (same && live == ring_ids_.size()) return;
  // Otherwise only the difference is hashed and sorted, then merged in. One
  // walk of the live members against ring_ids_ (both in address order)
  // finds who left and who came.
  std::vector<MemberId> gone;
  std::vector<std::pair<std::uint64_t, MemberId>> added;
  auto old = ring_ids_.begin();
  for (const Member& m : members) {
    if (!is_live_status(m.status)) continue;
    while (old != ring_ids_.end() && *old < m.id) gone.push_back(*old++);
    if (old != ring_ids_.end() && *old == m.id) {
      ++old;
    } else {
      added.emplace_back(ring_key(m.address()), m.id);
    }
  }
  gone.insert(gone.end(), old, ring_ids_.end());
  if (!gone.empty()) {
    std::erase_if(ring_, [&](const std::pair<std::uint64_t, MemberId>& entry) {
      return std::binary_search(gone.begin(), gone.end(), entry.second);
    });
    std::erase_if(ring_ids_, [&](const MemberId& id) { return std::binary_search(gone.begin(), gone.end(), id); });
  }
  if (!added.empty()) {
    std::vector<MemberId> fresh;
    fresh.reserve(added.size());
    for (const auto& entry : added) fresh.push_back(entry.second);  // address order
    std::vector<MemberId> ids;
    ids.reserve(ring_ids_.size() + fresh.size());
    std::merge(std::make_move_iterator(ring_ids_.begin()), std::make_move_iterator(ring_ids_.end()),
               std::make_move_iterator(fresh.begin()), std::make_move_iterator(fresh.end()),
               std::back_inserter(ids));
    ring_ids_.swap(ids);
    std::sort(added.begin(), added.end());
    std::vector<std::pair<std::uint64_t, MemberId>> merged;
    merged.reserve(ring_.size() + added.size());
    std::merge(std::make_move_iterator(ring_.begin()), std::make_move_iterator(ring_.end()),
               std::make_move_iterator(added.begin()), std::make_move_iterator(added.end()),
               std::back_inserter(merged));
    ring_.swap(merged);
  }
}

void Kernel::refresh_monitors() {
  // Ring of live members; this node watches the `monitored_by` members after
  // it, so each member is watched by the same number before it and total
  // heartbeat traffic is O(N).
  update_ring();
  const std::vector<std::pair<std::uint64_t, MemberId>>& ring = ring_;
  std::vector<MemberId> wanted;
  const std::pair<std::uint64_t, MemberId> self_entry{ring_key(self_.address), self_};
  const auto me = std::lower_bound(ring.begin(), ring.end(), self_entry);
  if (me != ring.end() && *me == self_entry) {
    const std::size_t start = static_cast<std::size_t>(me - ring.begin());
    const std::size_t count = std::min<std::size_t>(config_.monitored_by, ring.size() - 1);
    for (std::size_t i = 1; i <= count; ++i) wanted.push_back(ring[(start + i) % ring.size()].second);
  }
  std::sort(wanted.begin(), wanted.end());

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
    Monitor& monitor = monitors_.emplace(subject, Monitor(config_.phi_parameters(), config_.liveness_window))
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
}

std::vector<MemberId> Kernel::monitors_of(const MemberId& subject) const {
  // The inverse of refresh_monitors' choice: the members up to
  // `monitored_by` places before the subject on the ring.
  std::vector<MemberId> monitors;
  const std::pair<std::uint64_t, MemberId> entry{ring_key(subject.address), subject};
  const auto at = std::lower_bound(ring_.begin(), ring_.end(), entry);
  if (at == ring_.end() || *at != entry) return monitors;
  const std::size_t position = static_cast<std::size_t>(at - ring_.begin());
  const std::size_t count = std::min<std::size_t>(config_.monitored_by, ring_.size() - 1);
  for (std::size_t i = 1; i <= count; ++i) {
    monitors.push_back(ring_[(position + ring_.size() - i) % ring_.size()].second);
  }
  WEFT_ASSERT(monitors.size() == count);
  return monitors;
}

void Kernel::heartbeat_round() {
  timers_.arm(Timer::heartbeat, now_ + config_.heartbeat_interval);
  for (const auto& [subject, monitor] : monitors_) {
    send_control(subject.address, wire::Heartbeat{++heartbeat_sequence_});
  }
}

void Kernel::observe(const MemberId& peer) {
  last_heard_[peer.address] = now_;
  const auto it = monitors_.find(peer);
  if (it != monitors_.end()) observe_monitor(peer, it->second);
}

void Kernel::observe_inbound(Inbound& link) {
  // Every inbound frame passes here: the two lookups are cached per link.
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
  const auto it = monitors_.find(subject);
  if (it == monitors_.end() || now_ < it->second.next_probe) return;
  it->second.next_probe =
      now_ + (it->second.marked_unreachable ? std::max(config_.probe_timeout, config_.heartbeat_interval)
                                            : config_.probe_timeout);
  // Before blaming the subject, ask others whether they can reach it: one
  // broken link between two healthy nodes must down neither (F4).
  std::vector<NodeAddress> helpers;
  for (const Member& m : members_.members()) {
    if (m.address() == self_.address || !is_live_status(m.status)) continue;
    if (m.address() != subject.address && !is_unreachable(m.id)) helpers.push_back(m.address());
  }
  const std::uint64_t id = next_probe_id_++;
  const Duration wait = config_.probe_timeout +
                        (config_.mutations.suspicion_delayed ? config_.heartbeat_interval * 8 : Duration::zero());
  probes_asked_[id] = ProbeAsked{subject, now_, now_ + wait, false};
  send_control(subject.address, wire::Probe{id});  // the direct path, once more
  if (config_.mutations.indirect_probes_off) helpers.clear();
  for (std::uint32_t i = 0; i < config_.indirect_probes && !helpers.empty(); ++i) {
    const std::size_t pick = prng_.below(helpers.size());
    send_control(helpers[pick], wire::ProbeRequest{subject, id});
    helpers.erase(helpers.begin() + static_cast<std::ptrdiff_t>(pick));
  }
}

void Kernel::on_probe_request(const MemberId& from, const wire::ProbeRequest& request) {
  const auto heard = last_heard_.find(request.subject.address);
  if (heard != last_heard_.end() && now_ - heard->second < config_.probe_timeout) {
    send_control(from.address, wire::ProbeAlive{request.subject, request.probe});
    return;
  }
  if (!is_live(request.subject.address) || request.subject.address == self_.address) return;
  const std::uint64_t id = next_probe_id_++;
  probes_helping_[id] = ProbeHelping{from, request.probe, request.subject, now_ + config_.probe_timeout};
  send_control(request.subject.address, wire::Probe{id});
}

void Kernel::on_probe_ack(const MemberId& from, const wire::ProbeAck& ack) {
  if (const auto helping = probes_helping_.find(ack.probe);
      helping != probes_helping_.end() && helping->second.subject.address == from.address) {
    send_control(helping->second.asker.address,
                 wire::ProbeAlive{helping->second.subject, helping->second.asker_probe});
    probes_helping_.erase(helping);
    return;
  }
  if (const auto asked = probes_asked_.find(ack.probe);
      asked != probes_asked_.end() && asked->second.subject.address == from.address) {
    probes_asked_.erase(asked);  // the direct path works after all
  }
}

void Kernel::on_probe_alive(const MemberId& from, const wire::ProbeAlive& alive) {
  (void)from;
  const auto asked = probes_asked_.find(alive.probe);
  if (asked == probes_asked_.end() || asked->second.subject != alive.subject) return;
  const bool late = asked->second.condemned;
  probes_asked_.erase(asked);
  mark(Mark::indirect_probe_saved);
  if (!late) return;
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
  std::vector<std::pair<MemberId, Instant>> condemned;  // subject, when its probe started
  for (auto it = probes_asked_.begin(); it != probes_asked_.end();) {
    ProbeAsked& probe = it->second;
    if (probe.deadline > now_) {
      ++it;
      continue;
    }
    const auto heard = last_heard_.find(probe.subject.address);
    const bool heard_since = heard != last_heard_.end() && heard->second > probe.started &&
                             !config_.mutations.indirect_probes_off;
    if (!probe.condemned && !heard_since) {
      condemned.emplace_back(probe.subject, probe.started);
      // Kept while a late answer can still matter: until the leader would
      // down the subject.
      probe.condemned = true;
      probe.deadline = now_ + config_.down_after_unreachable;
      ++it;
      continue;
    }
    it = probes_asked_.erase(it);
  }
  std::erase_if(probes_helping_, [&](const auto& entry) { return entry.second.deadline <= now_; });
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
  for (auto& [subject, monitor] : monitors_) monitor.detector.forgive_silence(now_);
  for (auto& [id, probe] : probes_asked_) probe.deadline = std::max(probe.deadline, now_ + config_.probe_timeout);
}

}  // namespace weft
