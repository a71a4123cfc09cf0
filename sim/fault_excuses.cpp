// The fault model of F1-F4: see fault_excuses.hpp.
#include "sim/fault_excuses.hpp"

#include "sim/scenario.hpp"

namespace weft::sim {

FaultExcuses::FaultExcuses(const Config& config, std::size_t nodes)
    : grace_(compute_bounds(config, nodes).down),
      acceptable_pause_(config.phi_acceptable_pause),
      nodes_(nodes),
      node_(nodes + 1),
      pause_(nodes + 1),
      short_paused_(nodes + 1, false),
      pause_start_(nodes + 1),
      pause_end_(nodes + 1),
      down_node_(nodes + 1),
      unwitnessed_(nodes + 1) {}

Excuse& FaultExcuses::pair(std::size_t a, std::size_t b) { return pair_[{std::min(a, b), std::max(a, b)}]; }

bool FaultExcuses::pair_excused(std::size_t a, std::size_t b, Instant now) const {
  const auto it = pair_.find({std::min(a, b), std::max(a, b)});
  if (it != pair_.end() && it->second.holds(now)) return true;
  return std::any_of(sides_.begin(), sides_.end(),
                     [&](const Side& side) { return side.in[a] != side.in[b] && side.excuse.holds(now); });
}

bool FaultExcuses::suspicion_excused(std::size_t observer, std::size_t subject, Instant now,
                                     bool pauses_count) const {
  if (everyone_.holds(now) || node_[observer].holds(now) || node_[subject].holds(now)) return true;
  if (pause_[observer].holds(now) || (pauses_count && pause_[subject].holds(now))) return true;
  return pair_excused(observer, subject, now);
}

bool FaultExcuses::down_excused(std::size_t subject, Instant now) const {
  return down_everyone_.holds(now) || node_[subject].holds(now) || pause_[subject].holds(now) ||
         down_node_[subject].holds(now) || unwitnessed_[subject].holds(now);
}

bool FaultExcuses::witnessed(std::size_t a, std::size_t b) const {
  bool witness = false;
  for (std::size_t z = 1; z <= nodes_ && !witness; ++z) witness = z != a && z != b && !node_[z].active;
  return witness;
}

void FaultExcuses::on_fault(const Fault& f, Instant now) {
  switch (f.kind) {
    case Fault::Kind::crash:
    case Fault::Kind::lose:
    case Fault::Kind::leave: node_[f.nodes[0]].active = true; break;  // a leaver's process ends soon
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
      } else {
        short_paused_[n] = true;
      }
      break;
    }
    case Fault::Kind::cut:
    case Fault::Kind::cut_one_way: cut(f.nodes[0], f.nodes[1]); break;
    case Fault::Kind::partition:
    case Fault::Kind::flap: partition(f, now); break;
    case Fault::Kind::heal: heal(now); break;
    case Fault::Kind::spike:
      connectivity_.extend(now + f.length + grace_);
      if (f.extra >= Duration::milliseconds(500)) {
        everyone_.extend(now + f.length + grace_);
        down_everyone_.extend(now + f.length + grace_);
      }
      break;
    case Fault::Kind::flood:
    case Fault::Kind::asks:
    case Fault::Kind::truncate:
    case Fault::Kind::corrupt:
    case Fault::Kind::rogue: break;  // none excuses a suspicion: a lost link is redialled at once
  }
  update_witnesses(now);
}

void FaultExcuses::cut(std::size_t a, std::size_t b) {
  pair(a, b).active = true;
  connectivity_.active = true;
  active_cuts_.insert({std::min(a, b), std::max(a, b)});
  if (active_cuts_.size() > 1) {  // no longer "one broken link": F4 does not apply
    for (const auto& [x, y] : active_cuts_) down_node_[x].active = down_node_[y].active = true;
  }
}

// A partition or flap: every pair across its side, and anybody's down.
void FaultExcuses::partition(const Fault& f, Instant now) {
  Side side{std::vector<bool>(nodes_ + 1, false), Excuse{}};
  for (std::size_t a : f.nodes) side.in[a] = true;
  side.excuse.active = true;
  sides_.push_back(std::move(side));
  down_everyone_.active = true;
  connectivity_.active = true;
  if (f.kind == Fault::Kind::flap) {  // it heals itself when its time is up
    for (auto& [key, excuse] : pair_) excuse.extend(now + f.length + grace_);
    for (Side& s : sides_) s.excuse.extend(now + f.length + grace_);
    down_everyone_.extend(now + f.length + grace_);
    connectivity_.extend(now + f.length + grace_);
  }
}

void FaultExcuses::heal(Instant now) {
  for (auto& [key, excuse] : pair_) excuse.end(now, grace_);
  for (Side& s : sides_) s.excuse.end(now, grace_);
  for (Excuse& e : down_node_) e.end(now, grace_);
  down_everyone_.end(now, grace_);
  connectivity_.end(now, grace_);
  active_cuts_.clear();
}

void FaultExcuses::update_witnesses(Instant now) {
  // F4 rests on indirect probes: a third node vouches for a peer that one
  // broken link hides. With every other node crashed there is nobody to
  // ask, and a cut between the last two is a partition: either may down the
  // other. The excuse ends T_down after a third node lives again (a
  // restarted node must join and link before it can vouch) or the cut heals.
  std::vector<bool> unwitnessed(nodes_ + 1, false);
  for (const auto& [a, b] : active_cuts_) {
    if (!witnessed(a, b)) unwitnessed[a] = unwitnessed[b] = true;
  }
  for (std::size_t n = 1; n <= nodes_; ++n) {
    if (unwitnessed[n]) {
      unwitnessed_[n].active = true;
    } else {
      unwitnessed_[n].end(now, grace_);
    }
  }
}

}  // namespace weft::sim
