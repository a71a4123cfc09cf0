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
  // The downs one live node holds.
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
  // (incarnation, subject) of the downed lives already reported.
  std::set<std::pair<std::uint64_t, std::size_t>> reported_;
};

}  // namespace weft::sim
