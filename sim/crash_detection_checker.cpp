// F1 at T_detect and T_down: see crash_detection_checker.hpp.
#include "sim/crash_detection_checker.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "kernel/assert.hpp"
#include "kernel/detection/monitoring_ring.hpp"
#include "sim/text.hpp"

namespace weft::sim {

CrashDetection::CrashDetection(const Config& config, std::size_t nodes, const FaultExcuses& excuses,
                               Judged* judged)
    : excuses_(excuses),
      judged_(judged),
      detect_(compute_bounds(config, nodes).detect),
      down_(compute_bounds(config, nodes).down),
      monitored_by_(config.monitored_by) {
  WEFT_ASSERT(monitored_by_ > 0);  // Config::validate's rule
}

void CrashDetection::on_crash(std::size_t node, const MemberId& life, Instant now) {
  crashes_.push_back(Crash{node, life, now, excuses_.connectivity_disturbed(now), false, std::nullopt});
}

void CrashDetection::check(const Simulator& sim, std::vector<std::string>& failures) {
  const Instant now = sim.now();
  for (Crash& c : crashes_) c.disturbed = c.disturbed || excuses_.connectivity_disturbed(now);
  std::erase_if(crashes_, [](const Crash& c) { return c.disturbed; });
  for (Crash& c : crashes_) {
    if (!c.orphaned) {
      if (now <= c.at) continue;  // the same instant's other crashes may follow
      c.orphaned = orphaned_for(sim, c);
    }
    const bool detect_due = !c.detect_checked && now >= c.at + *c.orphaned + detect_;
    const bool down_due = now >= c.at + *c.orphaned + down_;
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
                           " ms (T_down) after the crash" + orphaned_note(*c.orphaned));
      } else if (!k->is_unreachable(c.life)) {
        failures.push_back("F1: " + node_name(i) + " does not hold crashed " + c.life.to_string() +
                           " unreachable " + std::to_string(detect_.ms()) + " ms (T_detect) after the crash" +
                           orphaned_note(*c.orphaned));
      }
    }
    c.detect_checked = true;
  }
  std::erase_if(crashes_, [&](const Crash& c) { return c.orphaned && now >= c.at + *c.orphaned + down_; });
}

Duration CrashDetection::orphaned_for(const Simulator& sim, const Crash& crash) const {
  // The ring of the nodes running now or dying with this one, by ring key.
  std::vector<std::pair<std::uint64_t, bool>> ring;  // (key, died at crash.at)
  std::size_t position = 0;
  for (std::size_t i = 1; i <= sim.size(); ++i) {
    const bool died = std::any_of(crashes_.begin(), crashes_.end(),
                                  [&](const Crash& other) { return other.node == i && other.at == crash.at; });
    const Kernel* k = sim.kernel(i);
    if (!died && (k == nullptr || k->is_shut_down())) continue;
    ring.emplace_back(MonitoringRing::key(sim.address(i)), died);
  }
  std::sort(ring.begin(), ring.end());
  const std::uint64_t own = MonitoringRing::key(sim.address(crash.node));
  while (position < ring.size() && ring[position].first != own) ++position;
  WEFT_ASSERT(position < ring.size());
  std::size_t dead_before = 0;
  while (dead_before + 1 < ring.size() && ring[(position + ring.size() - 1 - dead_before) % ring.size()].second) {
    ++dead_before;
  }
  return detect_ * static_cast<std::int64_t>(dead_before / monitored_by_);
}

std::string CrashDetection::orphaned_note(Duration orphaned) const {
  if (orphaned == Duration::zero()) return "";
  return " plus " + std::to_string(orphaned.ms()) + " ms until a live member must watch it (its monitors died with it)";
}

}  // namespace weft::sim
