// F3 for forgiven pauses: see pause_downing_checker.hpp.
#include "sim/pause_downing_checker.hpp"

#include <algorithm>

#include "sim/text.hpp"

namespace weft::sim {

ForgivenPause::ForgivenPause(const Config& config, std::size_t nodes, std::int64_t worst_ppm,
                             const FaultLog& faults, Judged* judged)
    : forgiven_(Duration::nanoseconds(compute_bounds(config, nodes).forgiven_pause.ns() / 1'000'000 *
                                      (1'000'000 - worst_ppm))),
      faults_(faults),
      judged_(judged) {}

void ForgivenPause::on_pause(std::size_t node, const MemberId& life, Instant now, Duration length) {
  if (length <= forgiven_) pending_.push_back(Pause{node, life, now, length});
}

void ForgivenPause::check(const Simulator& sim, std::vector<std::string>& failures) {
  const Instant now = sim.now();
  for (Pause& p : pending_) {
    // Downed at any moment is downed for good (the node rejoins as a new
    // life), so each step looks; the verdict waits for the window to close.
    const Kernel* paused = sim.kernel(p.node);
    if (paused == nullptr || paused->is_shut_down() || paused->self() != p.life) p.downed = true;
    for (std::size_t i = 1; i <= sim.size() && !p.downed; ++i) {
      const Kernel* k = sim.kernel(i);
      if (k == nullptr || k->is_shut_down()) continue;
      const Member* m = k->members().find(p.life.address);
      if (m != nullptr && m->id == p.life && !is_live_status(m->status)) p.downed = true;
    }
    const Instant window_end = p.at + p.length + forgiven_;
    if (now < window_end) continue;
    if (faults_.count_in(p.at - forgiven_, window_end) != 1) continue;  // only the pause itself: clean
    count(judged_, Check::f3_forgiven_pause);
    if (p.downed) {
      failures.push_back(cat("F3: n", std::to_string(p.node), " (", p.life.to_string(), ") was downed for a pause of ",
                             std::to_string(p.length.ms()), " ms, no longer than the forgiven ",
                             std::to_string(forgiven_.ms()), " ms"));
    }
  }
  std::erase_if(pending_, [&](const Pause& p) { return now >= p.at + p.length + forgiven_; });
}

}  // namespace weft::sim
