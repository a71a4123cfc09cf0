// F1-F5 over one fault model: see detection_checks.hpp.
#include "sim/detection_checks.hpp"

namespace weft::sim {

DetectionChecks::DetectionChecks(const Config& config, std::size_t nodes, Judged* judged)
    : excuses_(config, nodes),
      crash_detection_(config, nodes, excuses_, judged),
      suspicion_(excuses_, judged),
      refutation_(config, excuses_, judged),
      broken_link_(excuses_, judged),
      throttle_(nodes, judged) {}

void DetectionChecks::on_fault(const Fault& fault, Instant now) {
  excuses_.on_fault(fault, now);
  suspicion_.on_fault(fault, now);
  refutation_.on_fault(fault);
  broken_link_.on_fault(fault);
}

void DetectionChecks::on_crash(std::size_t node, const MemberId& life, Instant now) {
  crash_detection_.on_crash(node, life, now);
}

void DetectionChecks::on_event(const Simulator& sim, std::size_t node, const Event& event) {
  broken_link_.on_event(sim, node, event);
}

void DetectionChecks::check(const Simulator& sim, std::vector<std::string>& failures) {
  crash_detection_.check(sim, failures);
  for (std::size_t i = 1; i <= sim.size(); ++i) {
    const Kernel* k = sim.kernel(i);
    if (k == nullptr || k->is_shut_down()) continue;
    const std::vector<MemberId> monitored = k->monitored_subjects();
    throttle_.check(i, *k, monitored, failures);
    const ReachabilityRow* own_row = k->reachability().row(k->self());
    suspicion_.check(sim, i, monitored, own_row, failures);
    refutation_.check(sim, i, own_row, failures);
    broken_link_.check(sim, i, *k, failures);
  }
  refutation_.end_step(sim.now());
}

}  // namespace weft::sim
