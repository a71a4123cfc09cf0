// F4, one broken link downs nobody: see broken_link_checker.hpp.
#include "sim/broken_link_checker.hpp"

#include <algorithm>

#include "sim/scenario.hpp"
#include "sim/text.hpp"

namespace weft::sim {

BrokenLinkDowning::BrokenLinkDowning(const FaultExcuses& excuses, Judged* judged)
    : excuses_(excuses),
      judged_(judged),
      down_node_(excuses.nodes() + 1),
      unwitnessed_(excuses.nodes() + 1),
      downs_(excuses.nodes() + 1) {}

void BrokenLinkDowning::on_fault(const Fault& f, Instant now) {
  const Duration grace = excuses_.grace();
  switch (f.kind) {
    case Fault::Kind::cut:
    case Fault::Kind::cut_one_way: {
      active_cuts_.insert({std::min(f.nodes[0], f.nodes[1]), std::max(f.nodes[0], f.nodes[1])});
      if (active_cuts_.size() > 1) {  // no longer "one broken link": F4 does not apply
        for (const auto& [x, y] : active_cuts_) down_node_[x].active = down_node_[y].active = true;
      } else if (witnessed(f.nodes[0], f.nodes[1])) {
        count(judged_, Check::f4_single_cut);
      }
      break;
    }
    case Fault::Kind::partition:
    case Fault::Kind::flap:
      down_everyone_.active = true;
      if (f.kind == Fault::Kind::flap) down_everyone_.extend(now + f.length + grace);  // it heals itself
      break;
    case Fault::Kind::heal:
      for (Excuse& e : down_node_) e.end(now, grace);
      down_everyone_.end(now, grace);
      active_cuts_.clear();
      break;
    case Fault::Kind::spike:
      if (f.extra >= Duration::milliseconds(500)) down_everyone_.extend(now + f.length + grace);
      break;
    case Fault::Kind::crash:
    case Fault::Kind::lose:
    case Fault::Kind::restart:
    case Fault::Kind::pause:
    case Fault::Kind::flood:
    case Fault::Kind::asks:
    case Fault::Kind::truncate:
    case Fault::Kind::corrupt:
    case Fault::Kind::rogue: break;  // the node's own are the excuses'; the rest excuse nothing
  }
  update_witnesses(now);
}

bool BrokenLinkDowning::witnessed(std::size_t a, std::size_t b) const {
  bool witness = false;
  for (std::size_t z = 1; z <= excuses_.nodes() && !witness; ++z) witness = z != a && z != b && !excuses_.crashed(z);
  return witness;
}

void BrokenLinkDowning::update_witnesses(Instant now) {
  // F4 rests on indirect probes: a third node vouches for a peer that one
  // broken link hides. With every other node crashed there is nobody to
  // ask, and a cut between the last two is a partition: either may down the
  // other. The excuse ends T_down after a third node lives again (a
  // restarted node must join and link before it can vouch) or the cut heals.
  std::vector<bool> unwitnessed(excuses_.nodes() + 1, false);
  for (const auto& [a, b] : active_cuts_) {
    if (!witnessed(a, b)) unwitnessed[a] = unwitnessed[b] = true;
  }
  for (std::size_t n = 1; n <= excuses_.nodes(); ++n) {
    if (unwitnessed[n]) {
      unwitnessed_[n].active = true;
    } else {
      unwitnessed_[n].end(now, excuses_.grace());
    }
  }
}

bool BrokenLinkDowning::down_excused(std::size_t subject, Instant now) const {
  return down_everyone_.holds(now) || excuses_.node_excused(subject, now) || down_node_[subject].holds(now) ||
         unwitnessed_[subject].holds(now);
}

void BrokenLinkDowning::check(const Simulator& sim, std::size_t i, const Kernel& k,
                              std::vector<std::string>& failures) {
  // The table's down records are gathered again only when its digest moved:
  // scanning every record of every table each step was N x N.
  Downs& downs = downs_[i];
  if (const std::uint64_t digest = k.members().digest(); !downs.read || downs.digest != digest) {
    downs.down.clear();
    for (const Member& m : k.members().members()) {
      if (m.status == MemberStatus::down) downs.down.push_back(m.id);
    }
    downs.read = true;
    downs.digest = digest;
  }
  for (const MemberId& id : downs.down) {
    const std::size_t j = sim.node_of(id.address);
    const Kernel* sk = j == 0 ? nullptr : sim.kernel(j);
    if (sk == nullptr || sk->self() != id || down_excused(j, sim.now())) continue;
    if (!reported_.insert({id.incarnation.value, j}).second) continue;
    failures.push_back(cat("F4: ", node_name(i), " holds ", node_name(j), " (", id.to_string(),
                           ") down, though it never lost more than one link at a time"));
  }
}

}  // namespace weft::sim
