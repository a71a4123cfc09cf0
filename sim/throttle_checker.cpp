// F5, the throttle's spacing: see throttle_checker.hpp.
#include "sim/throttle_checker.hpp"

#include <algorithm>

#include "sim/text.hpp"

namespace weft::sim {

ThrottleSpacing::ThrottleSpacing(std::size_t nodes, Judged* judged) : judged_(judged), intervals_seen_(nodes + 1) {}

void ThrottleSpacing::check(std::size_t node, const Kernel& k, std::span<const MemberId> monitored,
                            std::vector<std::string>& failures) {
  const Duration window = k.config().liveness_window;
  for (const MemberId& subject : monitored) {
    const PhiDetector* d = k.detector(subject);
    if (d == nullptr) continue;
    std::uint64_t& seen = intervals_seen_[node][{k.self().incarnation.value, subject}];
    const std::uint64_t recorded = d->intervals_recorded();
    if (recorded < seen) seen = 0;  // monitoring stopped and began again: a new detector
    const auto fresh = static_cast<std::uint32_t>(std::min<std::uint64_t>(recorded - seen, d->sample_count()));
    seen = recorded;
    for (std::uint32_t age = 0; age < fresh; ++age) {
      if (recorded - age <= 2) break;  // the bootstrap samples, not observations
      count(judged_, Check::f5_intervals);
      const std::int64_t interval = d->recent_interval_ns(age);
      if (interval >= window.ns()) continue;
      failures.push_back("F5: " + node_name(node) + "'s detector for " + subject.to_string() +
                         " recorded observations " + std::to_string(interval / 1'000'000) + "." +
                         std::to_string(interval / 100'000 % 10) + " ms apart; the throttle passes at most one per " +
                         std::to_string(window.ms()) + " ms");
      return;
    }
  }
}

}  // namespace weft::sim
