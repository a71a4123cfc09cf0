// F3, refutation (docs/properties.md): a node paused for at least
// phi_acceptable_pause, and not downed, is refuted once it resumes: within
// heartbeat_interval + probe_timeout + 1 s of the pause's end, no observer
// still holds that life unreachable. Overlapping pauses count as one, from
// the first start to the last end (fault_excuses.hpp).
//
// Not judged: an observer with an excuse of its own that does not rest on
// the subject's pause (a crash, a cut between them, a big spike), and an
// observer paused after the subject resumed, however briefly (it has not had
// the window to hear it; it refutes once it runs). A short pause's marks are
// judged by suspicion_checker.hpp, a forgiven pause's downing by
// pause_downing_checker.hpp.
//
// Judged: "F3 refutations" (long pauses whose refutation was due).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sim/checkers.hpp"
#include "sim/fault_excuses.hpp"

namespace weft::sim {

class PauseRefutation {
 public:
  PauseRefutation(const Config& config, const FaultExcuses& excuses, Judged* judged = nullptr);
  // Every fault as it is applied, after the excuses heard of it.
  void on_fault(const Fault& fault);
  // One live node as an observer, with its own reachability row (null if
  // it has none).
  void check(const Simulator& sim, std::size_t observer, const ReachabilityRow* own_row,
             std::vector<std::string>& failures);
  // After every node of a step was checked: refutations past their due
  // time are done.
  void end_step(Instant now);

 private:
  struct Refutation {
    Instant due;  // no observer may hold the subject unreachable after this
    std::uint64_t incarnation = 0;  // of the life that was paused
  };
  const FaultExcuses& excuses_;
  Judged* judged_;
  Duration refute_within_;
  std::vector<std::optional<Refutation>> refute_;  // [node]
  std::vector<std::size_t> refuting_;  // the nodes whose refute_ is set, in order
  // (observer, subject incarnation, subject) already reported.
  std::set<std::tuple<std::size_t, std::uint64_t, std::size_t>> reported_;
};

}  // namespace weft::sim
