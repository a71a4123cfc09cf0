#include "sim/checkers.hpp"

#include <algorithm>

#include "sim/scenario.hpp"
#include "sim/text.hpp"

namespace weft::sim {

std::string_view to_string(Check check) {
  switch (check) {
    case Check::m2_records: return "M2 records";
    case Check::m3_self: return "M3 own records";
    case Check::m4_one_view: return "M4 one view";
    case Check::m5_partition_heal: return "M5 partition healed";
    case Check::f1_detect: return "F1 T_detect";
    case Check::f1_down: return "F1 T_down";
    case Check::f2_flood: return "F2 pairs in a flood";
    case Check::f3_short_pause: return "F3 short pauses";
    case Check::f3_refutation: return "F3 refutations";
    case Check::f4_single_cut: return "F4 single cuts";
    case Check::f5_intervals: return "F5 intervals";
    case Check::s1_messages: return "S1 messages";
    case Check::s2_asks: return "S2 completions";
    case Check::s3_down_targets: return "S3 asks to the downed";
    case Check::s4_mailboxes: return "S4 mailbox reads";
    case Check::s4_streams: return "S4 streams";
    case Check::w3_rogues: return "W3 rogue peers";
    case Check::w3_corrupt: return "W3 corrupt streams";
    case Check::m7_inputs: return "M7 inputs";
    case Check::m7_remarks: return "M7 re-marks";
    case Check::f1_down_closed: return "F1 T_down_closed";
    case Check::f3_forgiven_pause: return "F3 forgiven pauses";
    case Check::m6_boot: return "M6 T_boot starts";
    case Check::f1_partition_down: return "F1 T_down_partition";
    case Check::m5_merge: return "M5 T_merge heals";
  }
  return "?";
}

DetectionAccuracy::DetectionAccuracy(const Config& config, std::size_t nodes, Judged* judged)
    : grace_(compute_bounds(config, nodes).down),
      acceptable_pause_(config.phi_acceptable_pause),
      nodes_(nodes),
      node_(nodes + 1),
      pause_(nodes + 1),
      refute_(nodes + 1),
      refute_within_(config.heartbeat_interval + config.probe_timeout + Duration::seconds(1)),
      short_paused_(nodes + 1, false),
      down_node_(nodes + 1),
      unwitnessed_(nodes + 1),
      pause_start_(nodes + 1),
      pause_end_(nodes + 1),
      judged_(judged),
      intervals_seen_(nodes + 1),
      downs_(nodes + 1),
      detect_(compute_bounds(config, nodes).detect),
      down_(compute_bounds(config, nodes).down) {}

DetectionAccuracy::Excuse& DetectionAccuracy::pair(std::size_t a, std::size_t b) {
  return pair_[{std::min(a, b), std::max(a, b)}];
}

bool DetectionAccuracy::pair_excused(std::size_t a, std::size_t b, Instant now) const {
  const auto it = pair_.find({std::min(a, b), std::max(a, b)});
  if (it != pair_.end() && it->second.holds(now)) return true;
  return std::any_of(sides_.begin(), sides_.end(),
                     [&](const Side& side) { return side.in[a] != side.in[b] && side.excuse.holds(now); });
}

void DetectionAccuracy::on_crash(std::size_t node, const MemberId& life, Instant now) {
  crashes_.push_back(Crash{node, life, now, connectivity_.holds(now), false});
}

void DetectionAccuracy::check_crashes(const Simulator& sim, std::vector<std::string>& failures) {
  const Instant now = sim.now();
  for (Crash& c : crashes_) c.disturbed = c.disturbed || connectivity_.holds(now);
  std::erase_if(crashes_, [](const Crash& c) { return c.disturbed; });
  for (Crash& c : crashes_) {
    const bool detect_due = !c.detect_checked && now >= c.at + detect_;
    const bool down_due = now >= c.at + down_;
    if (!detect_due && !down_due) continue;
    count(judged_, down_due ? Check::f1_down : Check::f1_detect);
    for (std::size_t i = 1; i <= sim.size(); ++i) {
      const Kernel* k = sim.kernel(i);
      if (i == c.node || k == nullptr || k->is_shut_down() || node_[i].holds(now) || pause_[i].holds(now)) continue;
      const Member* m = k->members().find(c.life.address);
      if (m == nullptr || m->id != c.life || !is_live_status(m->status)) continue;
      if (down_due) {
        failures.push_back("F1: " + node_name(i) + " still holds crashed " + c.life.to_string() + " " +
                           std::string(to_string(m->status)) + " " + std::to_string(down_.ms()) +
                           " ms (T_down) after the crash");
      } else if (!k->is_unreachable(c.life)) {
        failures.push_back("F1: " + node_name(i) + " does not hold crashed " + c.life.to_string() +
                           " unreachable " + std::to_string(detect_.ms()) + " ms (T_detect) after the crash");
      }
    }
    c.detect_checked = true;
  }
  std::erase_if(crashes_, [&](const Crash& c) { return now >= c.at + down_; });
}

void DetectionAccuracy::on_fault(const Fault& f, Instant now) {
  switch (f.kind) {
    case Fault::Kind::cut:
    case Fault::Kind::cut_one_way:
    case Fault::Kind::partition:
      connectivity_.active = true;
      break;
    case Fault::Kind::flap:
      connectivity_.active = true;
      connectivity_.extend(now + f.length + grace_);
      break;
    case Fault::Kind::spike: connectivity_.extend(now + f.length + grace_); break;
    case Fault::Kind::heal: connectivity_.end(now, grace_); break;
    case Fault::Kind::crash:
    case Fault::Kind::lose:
    case Fault::Kind::restart:
    case Fault::Kind::pause:
    case Fault::Kind::flood:
    case Fault::Kind::asks:
    case Fault::Kind::truncate:
    case Fault::Kind::corrupt:
    case Fault::Kind::rogue: break;  // none excuses a suspicion: a lost link is redialled at once
  }
  const auto cut_pair = [&](std::size_t a, std::size_t b) {
    pair(a, b).active = true;
    const std::pair<std::size_t, std::size_t> key{std::min(a, b), std::max(a, b)};
    active_cuts_.insert(key);
    if (active_cuts_.size() > 1) {  // no longer "one broken link": F4 does not apply
      for (const auto& [x, y] : active_cuts_) down_node_[x].active = down_node_[y].active = true;
    }
  };
  switch (f.kind) {
    case Fault::Kind::crash:
    case Fault::Kind::lose: node_[f.nodes[0]].active = true; break;
    case Fault::Kind::restart:
      node_[f.nodes[0]].end(now, grace_);
      pause_end_[f.nodes[0]] = std::min(pause_end_[f.nodes[0]], now);  // a new process is not paused
      break;
    case Fault::Kind::pause: {
      const std::size_t n = f.nodes[0];
      if (node_[n].active) break;  // nothing runs to be paused (the simulator ignores it)
      // A pause that starts while the node is still paused makes one longer
      // pause (the simulator keeps the later end): its peers hear nothing
      // from the first start to the last end, so that whole stretch is what
      // is judged against phi_acceptable_pause and what must be refuted.
      if (now >= pause_end_[n]) pause_start_[n] = now;
      pause_end_[n] = std::max(pause_end_[n], now + f.length);
      if (pause_end_[n] - pause_start_[n] >= acceptable_pause_) {
        pause_[n].extend(pause_end_[n] + grace_);
        refute_[n] = Refutation{pause_end_[n] + refute_within_, 0};
        const auto at = std::lower_bound(refuting_.begin(), refuting_.end(), n);
        if (at == refuting_.end() || *at != n) refuting_.insert(at, n);
      } else {
        short_paused_[n] = true;
      }
      break;
    }
    case Fault::Kind::cut:
    case Fault::Kind::cut_one_way: cut_pair(f.nodes[0], f.nodes[1]); break;
    case Fault::Kind::partition:
    case Fault::Kind::flap: {
      Side side{std::vector<bool>(nodes_ + 1, false), Excuse{}};
      for (std::size_t a : f.nodes) side.in[a] = true;
      side.excuse.active = true;
      sides_.push_back(std::move(side));
      down_everyone_.active = true;
      if (f.kind == Fault::Kind::flap) {  // it heals itself when its time is up
        for (auto& [key, excuse] : pair_) excuse.extend(now + f.length + grace_);
        for (Side& s : sides_) s.excuse.extend(now + f.length + grace_);
        down_everyone_.extend(now + f.length + grace_);
      }
      break;
    }
    case Fault::Kind::heal:
      for (auto& [key, excuse] : pair_) excuse.end(now, grace_);
      for (Side& s : sides_) s.excuse.end(now, grace_);
      for (Excuse& e : down_node_) e.end(now, grace_);
      down_everyone_.end(now, grace_);
      active_cuts_.clear();
      break;
    case Fault::Kind::spike:
      if (f.extra >= Duration::milliseconds(500)) {
        everyone_.extend(now + f.length + grace_);
        down_everyone_.extend(now + f.length + grace_);
      }
      break;
    case Fault::Kind::flood: flood_until_ = std::max(flood_until_, now + f.length); break;  // excuses nothing (F2)
    case Fault::Kind::asks:
    case Fault::Kind::truncate:
    case Fault::Kind::corrupt:
    case Fault::Kind::rogue: break;
  }
  if (f.kind == Fault::Kind::pause && !node_[f.nodes[0]].active && f.length < acceptable_pause_) {
    count(judged_, Check::f3_short_pause);
  }
  if ((f.kind == Fault::Kind::cut || f.kind == Fault::Kind::cut_one_way) && active_cuts_.size() == 1) {
    bool witness = false;
    for (std::size_t z = 1; z <= nodes_ && !witness; ++z) witness = z != f.nodes[0] && z != f.nodes[1] && !node_[z].active;
    if (witness) count(judged_, Check::f4_single_cut);
  }
  update_witnesses(now);
}

void DetectionAccuracy::update_witnesses(Instant now) {
  // F4 rests on indirect probes: a third node vouches for a peer that one
  // broken link hides. With every other node crashed there is nobody to
  // ask, and a cut between the last two is a partition: either may down the
  // other. The excuse ends T_down after a third node lives again (a
  // restarted node must join and link before it can vouch) or the cut heals.
  std::vector<bool> unwitnessed(nodes_ + 1, false);
  for (const auto& [a, b] : active_cuts_) {
    bool witness = false;
    for (std::size_t z = 1; z <= nodes_ && !witness; ++z) witness = z != a && z != b && !node_[z].active;
    if (!witness) unwitnessed[a] = unwitnessed[b] = true;
  }
  for (std::size_t n = 1; n <= nodes_; ++n) {
    if (unwitnessed[n]) {
      unwitnessed_[n].active = true;
    } else {
      unwitnessed_[n].end(now, grace_);
    }
  }
}

bool DetectionAccuracy::suspicion_excused(std::size_t observer, std::size_t subject, Instant now,
                                          bool pauses_count) const {
  if (everyone_.holds(now) || node_[observer].holds(now) || node_[subject].holds(now)) return true;
  if (pause_[observer].holds(now) || (pauses_count && pause_[subject].holds(now))) return true;
  return pair_excused(observer, subject, now);
}

bool DetectionAccuracy::down_excused(std::size_t subject, Instant now) const {
  return down_everyone_.holds(now) || node_[subject].holds(now) || pause_[subject].holds(now) ||
         down_node_[subject].holds(now) || unwitnessed_[subject].holds(now);
}

void DetectionAccuracy::check(const Simulator& sim, std::vector<std::string>& failures) {
  check_crashes(sim, failures);
  const Instant now = sim.now();
  for (std::size_t i = 1; i <= sim.size(); ++i) {
    const Kernel* k = sim.kernel(i);
    if (k == nullptr || k->is_shut_down()) continue;
    const std::vector<MemberId> monitored = k->monitored_subjects();
    check_intervals(i, *k, monitored, failures);
    // F2/F3: this node's own suspicions.
    const ReachabilityRow* own_row = k->reachability().row(k->self());
    if (now < flood_until_) {
      for (const MemberId& subject : monitored) {
        const std::size_t j = sim.node_of(subject.address);
        if (j != 0 && !suspicion_excused(i, j, now)) count(judged_, Check::f2_flood);
      }
    }
    if (own_row != nullptr) {
      // Marks made while a fault excused them and since withdrawn are
      // forgotten: a new mark is judged afresh.
      for (auto it = excused_marks_.lower_bound({i, 0, 0}); it != excused_marks_.end() && std::get<0>(*it) == i;) {
        const MemberId life{sim.address(std::get<2>(*it)), Incarnation{std::get<1>(*it)}};
        if (std::binary_search(own_row->unreachable.begin(), own_row->unreachable.end(), life)) {
          ++it;
        } else {
          it = excused_marks_.erase(it);
        }
      }
      for (const MemberId& subject : own_row->unreachable) {
        const std::size_t j = sim.node_of(subject.address);
        const Kernel* sk = j == 0 ? nullptr : sim.kernel(j);
        if (sk == nullptr || sk->self() != subject) continue;
        const std::tuple<std::size_t, std::uint64_t, std::size_t> key{i, subject.incarnation.value, j};
        if (suspicion_excused(i, j, now)) {
          excused_marks_.insert(key);
          continue;
        }
        if (!reported_.insert(key).second) continue;
        if (excused_marks_.count(key) != 0) {
          // The fault that excused the mark is over (and T_down with it), and
          // the subject has been heard since: it should have been withdrawn.
          failures.push_back("F3: " + node_name(i) + " still holds " + node_name(j) + " (" + subject.to_string() +
                             ") unreachable, " + std::to_string(grace_.ms()) +
                             " ms (T_down) after the fault that excused the mark ended: the suspicion was never refuted");
          continue;
        }
        failures.push_back(std::string(short_paused_[j] ? "F3" : "F2") + ": " + node_name(i) + " marked " +
                           node_name(j) + " (" + subject.to_string() +
                           ") unreachable, though no crash, long pause, cut or spike excuses it" +
                           (short_paused_[j] ? " (its pauses were all shorter than phi_acceptable_pause)" : ""));
      }
    }
    // F3: a long pause, once over, is refuted (unless the life was downed).
    for (const std::size_t j : refuting_) {
      std::optional<Refutation>& r = refute_[j];
      const Kernel* sk = sim.kernel(j);
      if (j == i || sk == nullptr) continue;
      if (r->incarnation == 0 && now >= r->due - refute_within_) r->incarnation = sk->self().incarnation.value;
      if (now < r->due || sk->self().incarnation.value != r->incarnation || suspicion_excused(i, j, now, false)) continue;
      // An observer paused after the subject resumed (however briefly) has
      // not had the refutation window to hear it: it refutes once it runs.
      if (pause_end_[i] > r->due - refute_within_) continue;
      if (now - r->due < Duration::milliseconds(100)) count(judged_, Check::f3_refutation);
      if (own_row != nullptr &&
          std::binary_search(own_row->unreachable.begin(), own_row->unreachable.end(), sk->self()) &&
          reported_.insert({i, r->incarnation, j + 1000}).second) {
        failures.push_back("F3: " + node_name(i) + " still holds " + node_name(j) + " (" + sk->self().to_string() +
                           ") unreachable " + std::to_string((now - r->due + refute_within_).ms()) +
                           " ms after its pause ended: the suspicion was never refuted");
      }
    }
    // F4: nobody that only lost single links is downed. The table's down
    // records are gathered again only when its digest moved: scanning every
    // record of every table each step was N x N.
    Downs& downs = downs_[i];
    if (const std::uint64_t digest = k->members().digest(); !downs.read || downs.digest != digest) {
      downs.down.clear();
      for (const Member& m : k->members().members()) {
        if (m.status == MemberStatus::down) downs.down.push_back(m.id);
      }
      downs.read = true;
      downs.digest = digest;
    }
    for (const MemberId& id : downs.down) {
      const std::size_t j = sim.node_of(id.address);
      const Kernel* sk = j == 0 ? nullptr : sim.kernel(j);
      if (sk == nullptr || sk->self() != id || down_excused(j, now)) continue;
      if (!reported_.insert({0, id.incarnation.value, j}).second) continue;
      failures.push_back(cat("F4: ", node_name(i), " holds ", node_name(j), " (", id.to_string(),
                             ") down, though it never lost more than one link at a time"));
    }
  }
  std::erase_if(refuting_, [&](std::size_t j) {
    std::optional<Refutation>& r = refute_[j];
    if (now > r->due + Duration::seconds(1)) r.reset();
    return !r;
  });
}

void DetectionAccuracy::check_intervals(std::size_t node, const Kernel& k, std::span<const MemberId> monitored,
                                        std::vector<std::string>& failures) {
  const Duration window = k.config().liveness_window;
  for (const MemberId& subject : monitored) {
    const PhiDetector* d = k.detector(subject);
    if (d == nullptr) continue;
    std::uint64_t& seen = intervals_seen_[node][{k.self().incarnation.value, subject}];
    const std::uint64_t recorded = d->intervals_recorded();
    if (recorded < seen) seen = 0;  // monitoring stopped and began again: a new detector
    const auto fresh = static_cast<std::uint32_t>(std::min<std::uint64_t>(recorded - seen, d->sample_count()));
    seen = recorded;
    for (std::uint32_t age = 0; age < fresh; ++age) {
      if (recorded - age <= 2) break;  // the bootstrap samples, not observations
      count(judged_, Check::f5_intervals);
      const std::int64_t interval = d->recent_interval_ns(age);
      if (interval >= window.ns()) continue;
      failures.push_back("F5: " + node_name(node) + "'s detector for " + subject.to_string() +
                         " recorded observations " + std::to_string(interval / 1'000'000) + "." +
                         std::to_string(interval / 100'000 % 10) + " ms apart; the throttle passes at most one per " +
                         std::to_string(window.ms()) + " ms");
      return;
    }
  }
}

}  // namespace weft::sim
