// F1 and M5 for a clean partition: see partition_checker.hpp.
#include "sim/partition_checker.hpp"

#include <algorithm>

#include "sim/boot_checker.hpp"
#include "sim/text.hpp"

namespace weft::sim {

Duration partition_down_bound(const Config& config, std::size_t nodes) {
  const Bounds b = compute_bounds(config, nodes);
  const Duration marked = std::max(b.detect, b.forgiven_pause + config.heartbeat_interval);
  return marked + config.down_after_confirmed + config.gossip_interval + b.spread;
}

Duration merge_bound(const Config& config, std::size_t nodes) {
  // The redial's backoff with its jitter (up to a quarter), a heal probe,
  // a boot.
  return config.reconnect_backoff_max + config.reconnect_backoff_max / 4 + config.join_retry_interval +
         boot_bound(config, nodes);
}

CleanPartition::CleanPartition(const Config& config, std::size_t nodes, std::int64_t worst_ppm,
                               const FaultLog& faults, const OngoingFaults& ongoing, OneView one_view, Judged* judged)
    : down_bound_(stretched_by_drift(partition_down_bound(config, nodes), worst_ppm)),
      merge_bound_(stretched_by_drift(merge_bound(config, nodes), worst_ppm)),
      quiet_before_(compute_bounds(config, nodes).down),
      downs_judged_(nodes <= static_cast<std::size_t>(config.monitored_by) + 1),
      faults_(faults),
      ongoing_(ongoing),
      one_view_(std::move(one_view)),
      judged_(judged) {}

void CleanPartition::on_partition(const Simulator& sim, const std::vector<std::size_t>& side) {
  const Instant now = sim.now();
  if (!ongoing_.quiet_since(now - quiet_before_)) return;
  Partition p;
  p.at = now;
  p.side.assign(sim.size() + 1, false);
  for (const std::size_t n : side) p.side.at(n) = true;
  for (std::size_t n = 1; n <= sim.size(); ++n) {
    const Kernel* k = sim.kernel(n);
    p.lives.push_back(k != nullptr && !k->is_shut_down() ? k->self() : MemberId{});
  }
  pending_.push_back(std::move(p));
}

void CleanPartition::on_heal(Instant now) {
  for (Partition& p : pending_) {
    if (!p.healed) p.healed = now;
  }
}

void CleanPartition::check_downs(const Simulator& sim, Partition& p, std::vector<std::string>& failures) {
  const Instant deadline = p.at + down_bound_;
  if (p.down_judged || sim.now() < deadline) return;
  p.down_judged = true;
  // The partition itself is the one fault in the window; a heal in it
  // ends the partition before the downs were due.
  if (faults_.count_in(p.at - quiet_before_, deadline) != 1) return;
  count(judged_, Check::f1_partition_down);
  for (std::size_t o = 1; o <= sim.size(); ++o) {
    const Kernel* k = sim.kernel(o);
    if (k == nullptr || k->is_shut_down() || k->self() != p.lives[o - 1]) continue;
    std::size_t live = 0;
    std::string first;
    for (std::size_t s = 1; s <= sim.size(); ++s) {
      const MemberId& life = p.lives[s - 1];
      if (p.side[s] == p.side[o] || life.address.host.empty()) continue;
      const Member* m = k->members().find(life.address);
      if (m == nullptr || m->id != life || !is_live_status(m->status)) continue;
      if (live++ == 0) first = cat("n", std::to_string(s), " (", life.to_string(), ": ", to_string(m->status), ")");
    }
    if (live == 0) continue;
    failures.push_back(cat("F1: n", std::to_string(o), " still holds ", std::to_string(live),
                           " node(s) across the partition live, first ", first, ", ", std::to_string(down_bound_.ms()),
                           " ms (T_down_partition) after the cut"));
  }
}

void CleanPartition::check(const Simulator& sim, std::vector<std::string>& failures) {
  const Instant now = sim.now();
  for (Partition& p : pending_) {
    if (downs_judged_) check_downs(sim, p, failures);
    if (!p.healed || p.done) continue;
    const Instant deadline = *p.healed + merge_bound_;
    // Checked every step (at most 100 ms apart), so a view that formed
    // just before the deadline is seen at the first step after it.
    std::string why;
    const bool one = one_view_(now < deadline ? nullptr : &why);
    if (!one && now < deadline) continue;
    // The partition and its heal are the only faults in the window.
    if (faults_.count_in(p.at - quiet_before_, std::min(now, deadline)) == 2) {
      count(judged_, Check::m5_merge);
      if (!one) {
        const std::size_t colon = why.find(": ");
        failures.push_back(cat("M5: views still differ ", std::to_string(merge_bound_.ms()),
                               " ms (T_merge) after a clean partition healed: ",
                               colon == std::string::npos ? why : why.substr(colon + 2)));
      }
    }
    p.done = true;  // a heal before the downs were due leaves them unjudged
  }
  std::erase_if(pending_, [](const Partition& p) { return p.done; });
}

}  // namespace weft::sim
