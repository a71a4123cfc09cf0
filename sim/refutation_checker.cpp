// F3's refutation of long pauses: see refutation_checker.hpp.
#include "sim/refutation_checker.hpp"

#include <algorithm>

#include "sim/scenario.hpp"
#include "sim/text.hpp"

namespace weft::sim {

PauseRefutation::PauseRefutation(const Config& config, const FaultExcuses& excuses, Judged* judged)
    : excuses_(excuses),
      judged_(judged),
      refute_within_(config.heartbeat_interval + config.probe_timeout + Duration::seconds(1)),
      refute_(excuses.nodes() + 1) {}

void PauseRefutation::on_fault(const Fault& f) {
  if (f.kind != Fault::Kind::pause) return;
  const std::size_t n = f.nodes[0];
  if (excuses_.crashed(n)) return;  // nothing ran to be paused
  // The whole stretch of overlapping pauses is what must be refuted.
  if (excuses_.pause_end(n) - excuses_.pause_start(n) < excuses_.acceptable_pause()) return;
  refute_[n] = Refutation{excuses_.pause_end(n) + refute_within_, 0};
  const auto at = std::lower_bound(refuting_.begin(), refuting_.end(), n);
  if (at == refuting_.end() || *at != n) refuting_.insert(at, n);
}

void PauseRefutation::check(const Simulator& sim, std::size_t i, const ReachabilityRow* own_row,
                            std::vector<std::string>& failures) {
  const Instant now = sim.now();
  for (const std::size_t j : refuting_) {
    std::optional<Refutation>& r = refute_[j];
    const Kernel* sk = sim.kernel(j);
    if (j == i || sk == nullptr) continue;
    if (r->incarnation == 0 && now >= r->due - refute_within_) r->incarnation = sk->self().incarnation.value;
    if (now < r->due || sk->self().incarnation.value != r->incarnation ||
        excuses_.suspicion_excused(i, j, now, false)) {
      continue;
    }
    // An observer paused after the subject resumed (however briefly) has
    // not had the refutation window to hear it: it refutes once it runs.
    if (excuses_.pause_end(i) > r->due - refute_within_) continue;
    if (now - r->due < Duration::milliseconds(100)) count(judged_, Check::f3_refutation);
    if (own_row != nullptr &&
        std::binary_search(own_row->unreachable.begin(), own_row->unreachable.end(), sk->self()) &&
        reported_.insert({i, r->incarnation, j}).second) {
      failures.push_back("F3: " + node_name(i) + " still holds " + node_name(j) + " (" + sk->self().to_string() +
                         ") unreachable " + std::to_string((now - r->due + refute_within_).ms()) +
                         " ms after its pause ended: the suspicion was never refuted");
    }
  }
}

void PauseRefutation::end_step(Instant now) {
  std::erase_if(refuting_, [&](std::size_t j) {
    std::optional<Refutation>& r = refute_[j];
    if (now > r->due + Duration::seconds(1)) r.reset();
    return !r;
  });
}

}  // namespace weft::sim
