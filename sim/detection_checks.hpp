// The failure-detection checkers of a run, F1 to F5 (docs/properties.md);
// F1 to F4 read one fault model, FaultExcuses (fault_excuses.hpp), which
// hears of every fault before they do:
//
//   F1  at T_detect and T_down   CrashDetection     crash_detection_checker.hpp
//   F2, F3 short and stale marks SuspicionAccuracy  suspicion_checker.hpp
//   F3  refutation               PauseRefutation    refutation_checker.hpp
//   F4                           BrokenLinkDowning  broken_link_checker.hpp
//   F5a                          ThrottleSpacing    throttle_checker.hpp
//
// (F1 with closed sockets, F1 across a clean partition and F3's forgiven
// pause judge clean faults only and have checkers of their own.)
//
// Each step F1 looks at its crashes, then every live node is judged by F5,
// F2/F3, F3's refutation and F4 in turn, in one pass over the nodes, so a
// step's failure lines come out node by node in that order.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/broken_link_checker.hpp"
#include "sim/checkers.hpp"
#include "sim/crash_detection_checker.hpp"
#include "sim/fault_excuses.hpp"
#include "sim/refutation_checker.hpp"
#include "sim/suspicion_checker.hpp"
#include "sim/throttle_checker.hpp"

namespace weft::sim {

class DetectionChecks {
 public:
  DetectionChecks(const Config& config, std::size_t nodes, Judged* judged = nullptr);
  DetectionChecks(const DetectionChecks&) = delete;
  DetectionChecks& operator=(const DetectionChecks&) = delete;
  // Call as each fault is applied, at its virtual time.
  void on_fault(const Fault& fault, Instant now);
  // Call just before a crash is applied, with the life that dies.
  void on_crash(std::size_t node, const MemberId& life, Instant now);
  // Every event a kernel emits, as it emits it.
  void on_event(const Simulator& sim, std::size_t node, const Event& event);
  void check(const Simulator& sim, std::vector<std::string>& failures);

 private:
  FaultExcuses excuses_;  // first: the checkers below read it
  CrashDetection crash_detection_;
  SuspicionAccuracy suspicion_;
  PauseRefutation refutation_;
  BrokenLinkDowning broken_link_;
  ThrottleSpacing throttle_;
};

}  // namespace weft::sim
