// M6 for nodes that start together: see boot_checker.hpp.
#include "sim/boot_checker.hpp"

#include <algorithm>

#include "sim/text.hpp"

namespace weft::sim {

Duration boot_bound(const Config& config, std::size_t nodes) {
  return config.gossip_interval + compute_bounds(config, nodes).spread / 2;
}

Duration stretched_by_drift(Duration bound, std::int64_t worst_ppm) {
  WEFT_ASSERT(worst_ppm >= 0 && worst_ppm < 1'000'000);
  // A clock worst_ppm slow reads bound after bound / (1 - worst_ppm / 1e6)
  // of virtual time; rounded up, so the bound never shrinks.
  const std::int64_t denominator = 1'000'000 - worst_ppm;
  return Duration::nanoseconds((bound.ns() * 1'000'000 + denominator - 1) / denominator);
}

BootTogether::BootTogether(const Config& config, std::size_t nodes, std::int64_t worst_ppm, const FaultLog& faults,
                           const OngoingFaults& ongoing, Judged* judged)
    : bound_(stretched_by_drift(boot_bound(config, nodes), worst_ppm)),
      quiet_before_(compute_bounds(config, nodes).down),
      nodes_(nodes),
      faults_(faults),
      ongoing_(ongoing),
      judged_(judged) {}

void BootTogether::on_boot(Instant now) {
  Start start{now, {}, true, true};
  for (std::size_t n = 1; n <= nodes_; ++n) start.nodes.push_back(n);
  pending_.push_back(std::move(start));
}

void BootTogether::on_crash(std::size_t node, Instant now) { crashes_.emplace_back(node, now); }

void BootTogether::on_restart(std::size_t node, Instant now) {
  if (!pending_.empty() && pending_.back().at == now && !pending_.back().first_boot) {
    pending_.back().nodes.push_back(node);
    return;
  }
  pending_.push_back(Start{now, {node}, false, ongoing_.quiet_since(now - quiet_before_)});
}

bool BootTogether::clean(const Start& start, Instant deadline) const {
  // The first boot: any fault before the deadline (a node held down from
  // the start among them) disturbs it.
  if (start.first_boot) return faults_.count_in(start.at, deadline) == 0;
  if (!start.quiet_before) return false;
  const Instant from = start.at - quiet_before_;
  std::size_t own = start.nodes.size();
  for (const auto& [node, at] : crashes_) {
    if (at >= from && at <= start.at && std::find(start.nodes.begin(), start.nodes.end(), node) != start.nodes.end()) {
      ++own;
    }
  }
  return faults_.count_in(from, deadline) == own;
}

void BootTogether::check(const Simulator& sim, std::vector<std::string>& failures) {
  const Instant now = sim.now();
  for (const Start& start : pending_) {
    const Instant deadline = start.at + bound_;
    if (now < deadline || !clean(start, deadline)) continue;
    count(judged_, Check::m6_boot);
    const std::string what = start.first_boot ? std::string("the cluster booted")
                                              : cat(std::to_string(start.nodes.size()), " node(s) started together");
    for (std::size_t i = 1; i <= sim.size(); ++i) {
      const Kernel* k = sim.kernel(i);
      if (k == nullptr || k->is_shut_down()) continue;
      std::size_t missing = 0;
      std::string first;
      for (std::size_t j = 1; j <= sim.size(); ++j) {
        const Kernel* subject = sim.kernel(j);
        if (subject == nullptr || subject->is_shut_down()) continue;
        const Member* m = k->members().find(sim.address(j));
        if (m != nullptr && m->id == subject->self() && m->status == MemberStatus::up) continue;
        if (missing++ == 0) {
          first = cat("n", std::to_string(j), " (", subject->self().to_string(), ": ",
                      m == nullptr ? std::string_view("unknown")
                                   : m->id != subject->self() ? std::string_view("an older life") : to_string(m->status),
                      ")");
        }
      }
      if (missing == 0) continue;
      failures.push_back(cat("M6: n", std::to_string(i), " does not see ", std::to_string(missing),
                             " live node(s) up, first ", first, ", ", std::to_string(bound_.ms()),
                             " ms (T_boot) after ", what));
    }
  }
  std::erase_if(pending_, [&](const Start& s) { return now >= s.at + bound_; });
  std::erase_if(crashes_, [&](const auto& c) { return now - c.second > quiet_before_ + bound_; });
}

}  // namespace weft::sim
