// F2 and F3's short pauses and stale marks: see suspicion_checker.hpp.
#include "sim/suspicion_checker.hpp"

#include <algorithm>

#include "sim/scenario.hpp"
#include "sim/text.hpp"

namespace weft::sim {

SuspicionAccuracy::SuspicionAccuracy(const FaultExcuses& excuses, Judged* judged)
    : excuses_(excuses), judged_(judged) {}

void SuspicionAccuracy::on_fault(const Fault& f, Instant now) {
  if (f.kind == Fault::Kind::flood) flood_until_ = std::max(flood_until_, now + f.length);  // excuses nothing
  if (f.kind == Fault::Kind::pause && !excuses_.crashed(f.nodes[0]) && f.length < excuses_.acceptable_pause()) {
    count(judged_, Check::f3_short_pause);
  }
}

void SuspicionAccuracy::check(const Simulator& sim, std::size_t node, std::span<const MemberId> monitored,
                              const ReachabilityRow* own_row, std::vector<std::string>& failures) {
  if (sim.now() < flood_until_) count_flood_pairs(sim, node, monitored);
  if (own_row == nullptr) return;
  forget_withdrawn(sim, node, *own_row);
  for (const MemberId& subject : own_row->unreachable) judge_mark(sim, node, subject, failures);
}

void SuspicionAccuracy::count_flood_pairs(const Simulator& sim, std::size_t node, std::span<const MemberId> monitored) {
  for (const MemberId& subject : monitored) {
    const std::size_t j = sim.node_of(subject.address);
    if (j != 0 && !excuses_.suspicion_excused(node, j, sim.now())) count(judged_, Check::f2_flood);
  }
}

void SuspicionAccuracy::forget_withdrawn(const Simulator& sim, std::size_t node, const ReachabilityRow& own_row) {
  for (auto it = excused_marks_.lower_bound({node, 0, 0}); it != excused_marks_.end() && std::get<0>(*it) == node;) {
    const MemberId life{sim.address(std::get<2>(*it)), Incarnation{std::get<1>(*it)}};
    if (std::binary_search(own_row.unreachable.begin(), own_row.unreachable.end(), life)) {
      ++it;
    } else {
      it = excused_marks_.erase(it);
    }
  }
}

void SuspicionAccuracy::judge_mark(const Simulator& sim, std::size_t node, const MemberId& subject,
                                   std::vector<std::string>& failures) {
  const std::size_t j = sim.node_of(subject.address);
  const Kernel* sk = j == 0 ? nullptr : sim.kernel(j);
  if (sk == nullptr || sk->self() != subject) return;
  const Key key{node, subject.incarnation.value, j};
  if (excuses_.suspicion_excused(node, j, sim.now())) {
    excused_marks_.insert(key);
    return;
  }
  if (!reported_.insert(key).second) return;
  if (excused_marks_.count(key) != 0) {
    // The fault that excused the mark is over (and T_down with it), and
    // the subject has been heard since: it should have been withdrawn.
    failures.push_back("F3: " + node_name(node) + " still holds " + node_name(j) + " (" + subject.to_string() +
                       ") unreachable, " + std::to_string(excuses_.grace().ms()) +
                       " ms (T_down) after the fault that excused the mark ended: the suspicion was never refuted");
    return;
  }
  const bool short_paused = excuses_.short_paused(j);
  failures.push_back(std::string(short_paused ? "F3" : "F2") + ": " + node_name(node) + " marked " + node_name(j) +
                     " (" + subject.to_string() + ") unreachable, though no crash, long pause, cut or spike excuses it" +
                     (short_paused ? " (its pauses were all shorter than phi_acceptable_pause)" : ""));
}

}  // namespace weft::sim
