// F4 (docs/properties.md): one broken link between two healthy nodes downs
// neither. A node that only ever lost single links, one at a time, while a
// third live node could vouch for it (indirect probes), is never downed.
//
// Excused (FaultExcuses::down_excused), each until T_down after it ends:
// partitions and flaps (anyone may be downed), spikes of 500 ms or more, the
// node's own crash, restart or long pause, two or more cuts at once (every
// node they touch); and a cut while every other node is crashed, which is a
// partition (nobody is left to vouch), until T_down after a third node
// restarts or the cut heals.
//
// Each downed life is reported once.
//
// Judged: "F4 single cuts" (cuts applied while they were the only one and a
// third node lived).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/checkers.hpp"
#include "sim/fault_excuses.hpp"

namespace weft::sim {

class BrokenLinkDowning {
 public:
  BrokenLinkDowning(const FaultExcuses& excuses, Judged* judged = nullptr);
  // Every fault as it is applied, after the excuses heard of it.
  void on_fault(const Fault& fault);
  // Every event a kernel emits, as it emits it: a down is judged at that
  // instant too, so one that a rejoin replaces within a checking step (the
  // downed life restarts and gossip swaps its record for the new life's)
  // is not missed.
  void on_event(const Simulator& sim, std::size_t node, const Event& event);
  // The downs one live node holds; and the downs seen as events since the
  // last check.
  void check(const Simulator& sim, std::size_t node, const Kernel& kernel, std::vector<std::string>& failures);

 private:
  const FaultExcuses& excuses_;
  Judged* judged_;
  // Per node, the members its table holds down, read again only when the
  // table's digest moves.
  struct Downs {
    bool read = false;
    std::uint64_t digest = 0;
    std::vector<MemberId> down;
  };
  std::vector<Downs> downs_;
  // `node` holds `life` down: a failure unless the life is gone or excused.
  void judge(const Simulator& sim, std::size_t node, const MemberId& life, std::vector<std::string>& failures);
  // (incarnation, subject) of the downed lives already reported.
  std::set<std::pair<std::uint64_t, std::size_t>> reported_;
  std::vector<std::string> seen_as_events_;  // failures found by on_event, for the next check
};

}  // namespace weft::sim
