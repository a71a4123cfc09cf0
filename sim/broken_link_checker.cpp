// F4, one broken link downs nobody: see broken_link_checker.hpp.
#include "sim/broken_link_checker.hpp"

#include <algorithm>
#include <variant>

#include "sim/scenario.hpp"
#include "sim/text.hpp"

namespace weft::sim {

BrokenLinkDowning::BrokenLinkDowning(const FaultExcuses& excuses, Judged* judged)
    : excuses_(excuses), judged_(judged), downs_(excuses.nodes() + 1) {}

void BrokenLinkDowning::on_fault(const Fault& f) {
  if (f.kind != Fault::Kind::cut && f.kind != Fault::Kind::cut_one_way) return;
  if (excuses_.cuts() == 1 && excuses_.witnessed(f.nodes[0], f.nodes[1])) count(judged_, Check::f4_single_cut);
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
  for (const MemberId& id : downs.down) judge(sim, i, id, failures);
  failures.insert(failures.end(), seen_as_events_.begin(), seen_as_events_.end());
  seen_as_events_.clear();
}

void BrokenLinkDowning::on_event(const Simulator& sim, std::size_t node, const Event& event) {
  const auto* change = std::get_if<MemberEvent>(&event);
  if (change != nullptr && change->member.status == MemberStatus::down) {
    judge(sim, node, change->member.id, seen_as_events_);
  }
}

void BrokenLinkDowning::judge(const Simulator& sim, std::size_t i, const MemberId& id,
                              std::vector<std::string>& failures) {
  const std::size_t j = sim.node_of(id.address);
  // A node that holds itself down is M3's to judge (it must rejoin or stop):
  // this judges the others' word about it.
  if (j == i) return;
  const Kernel* sk = j == 0 ? nullptr : sim.kernel(j);
  if (sk == nullptr || sk->self() != id || excuses_.down_excused(j, sim.now())) return;
  if (!reported_.insert({id.incarnation.value, j}).second) return;
  failures.push_back(cat("F4: ", node_name(i), " holds ", node_name(j), " (", id.to_string(),
                         ") down, though it never lost more than one link at a time"));
}

}  // namespace weft::sim
