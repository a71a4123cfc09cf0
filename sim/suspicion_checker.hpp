// F2, and F3's short pauses and stale marks (docs/properties.md): nobody is
// suspected without a fault that excuses it.
//
//   F2  a mark in an observer's own reachability row (its suspicion of a
//       subject) is excused by a fault of that pair (fault_excuses.hpp: a
//       crash or restart, a long pause, a cut or partition between them, a
//       big spike), however much traffic flows: floods excuse nothing
//   F3  short pauses: the same for a subject whose pauses were all shorter
//       than phi_acceptable_pause, reported as F3
//   F3  stale marks: a mark made, or still held, while a fault excused it is
//       withdrawn by the time the excuse ends (the fault's end plus T_down)
//
// Each violation is reported once per (observer, subject life).
//
// Judged: "F2 pairs in a flood" ((observer, monitored subject) pairs judged,
// unexcused, while a flood ran), "F3 short pauses" (pauses shorter than
// phi_acceptable_pause).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "sim/checkers.hpp"
#include "sim/fault_excuses.hpp"

namespace weft::sim {

class SuspicionAccuracy {
 public:
  SuspicionAccuracy(const FaultExcuses& excuses, Judged* judged = nullptr);
  // Every fault as it is applied, after the excuses heard of it.
  void on_fault(const Fault& fault, Instant now);
  // One live node's suspicions: `monitored` are the subjects it monitors,
  // `own_row` its own reachability row (null if it has none).
  void check(const Simulator& sim, std::size_t node, std::span<const MemberId> monitored,
             const ReachabilityRow* own_row, std::vector<std::string>& failures);

 private:
  using Key = std::tuple<std::size_t, std::uint64_t, std::size_t>;  // (observer, subject incarnation, subject)
  void count_flood_pairs(const Simulator& sim, std::size_t node, std::span<const MemberId> monitored);
  // Marks made while a fault excused them and since withdrawn are forgotten:
  // a new mark is judged afresh.
  void forget_withdrawn(const Simulator& sim, std::size_t node, const ReachabilityRow& own_row);
  void judge_mark(const Simulator& sim, std::size_t node, const MemberId& subject, std::vector<std::string>& failures);

  const FaultExcuses& excuses_;
  Judged* judged_;
  Instant flood_until_;  // a flood runs until then (F2's judgements count it)
  // Violations already reported, so each is reported once.
  std::set<Key> reported_;
  // The marks an observer holds that were made, or seen, while a fault
  // excused them (F3: they must be withdrawn once the fault is over).
  std::set<Key> excused_marks_;
};

}  // namespace weft::sim
