// F1 at T_detect and T_down: see crash_detection_checker.hpp.
#include "sim/crash_detection_checker.hpp"

#include "sim/text.hpp"

namespace weft::sim {

CrashDetection::CrashDetection(const Config& config, std::size_t nodes, const FaultExcuses& excuses,
                               Judged* judged)
    : excuses_(excuses),
      judged_(judged),
      detect_(compute_bounds(config, nodes).detect),
      down_(compute_bounds(config, nodes).down) {}

void CrashDetection::on_crash(std::size_t node, const MemberId& life, Instant now) {
  crashes_.push_back(Crash{node, life, now, excuses_.connectivity_disturbed(now), false});
}

void CrashDetection::check(const Simulator& sim, std::vector<std::string>& failures) {
  const Instant now = sim.now();
  for (Crash& c : crashes_) c.disturbed = c.disturbed || excuses_.connectivity_disturbed(now);
  std::erase_if(crashes_, [](const Crash& c) { return c.disturbed; });
  for (Crash& c : crashes_) {
    const bool detect_due = !c.detect_checked && now >= c.at + detect_;
    const bool down_due = now >= c.at + down_;
    if (!detect_due && !down_due) continue;
    count(judged_, down_due ? Check::f1_down : Check::f1_detect);
    for (std::size_t i = 1; i <= sim.size(); ++i) {
      const Kernel* k = sim.kernel(i);
      if (i == c.node || k == nullptr || k->is_shut_down() || excuses_.node_excused(i, now)) continue;
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

}  // namespace weft::sim
