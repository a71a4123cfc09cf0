// F1 for closed-socket crashes: see crash_downing_checker.hpp.
#include "sim/crash_downing_checker.hpp"

#include <algorithm>

#include "sim/text.hpp"

namespace weft::sim {

ClosedCrashDowning::ClosedCrashDowning(const Config& config, std::size_t nodes, const FaultLog& faults,
                                       Judged* judged)
    : quiet_before_(compute_bounds(config, nodes).down),
      bound_(compute_bounds(config, nodes).down_closed),
      faults_(faults),
      judged_(judged) {}

void ClosedCrashDowning::on_crash(std::size_t node, const MemberId& life, Instant now) {
  pending_.push_back(Crash{node, life, now});
}

void ClosedCrashDowning::check(const Simulator& sim, std::vector<std::string>& failures) {
  const Instant now = sim.now();
  for (const Crash& c : pending_) {
    if (now < c.at + bound_) continue;
    // The crash's own fault is the one at c.at; any other in the window
    // makes it unclean.
    if (faults_.count_in(c.at - quiet_before_, c.at + bound_) != 1) continue;
    count(judged_, Check::f1_down_closed);
    for (std::size_t i = 1; i <= sim.size(); ++i) {
      const Kernel* k = sim.kernel(i);
      if (i == c.node || k == nullptr || k->is_shut_down()) continue;
      const Member* m = k->members().find(c.life.address);
      if (m == nullptr || m->id != c.life || !is_live_status(m->status)) continue;
      failures.push_back(cat("F1: n", std::to_string(i), " still holds crashed ", c.life.to_string(), " ",
                             to_string(m->status), " ", std::to_string(bound_.ms()),
                             " ms (T_down_closed) after its process died with its sockets closed"));
    }
  }
  std::erase_if(pending_, [&](const Crash& c) { return now >= c.at + bound_; });
}

}  // namespace weft::sim
