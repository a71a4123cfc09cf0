// F1, tight for the crash a closed socket announces: a process that dies
// with its sockets closed (its OS resets them; a redial is refused) is down
// on every live node within T_down_closed (compute_bounds), far inside the
// T_down that silence is allowed. Every observer sees the close at once, so
// every expected observer confirms and the leader waits only
// down_after_confirmed (docs/failure-detection.md).
//
// Judged only for a clean crash: no other fault of any kind from T_down
// before it to the deadline, since a paused, crashed or cut-off observer
// rightly withholds its confirmation and the leader then waits longer.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "kernel/config.hpp"
#include "sim/checkers.hpp"

namespace weft::sim {

class ClosedCrashDowning {
 public:
  // `faults`: every fault of the run as it is applied (a crash too).
  ClosedCrashDowning(const Config& config, std::size_t nodes, const FaultLog& faults, Judged* judged = nullptr);
  // Just before a crash (sockets closed) is applied, with the life that dies.
  void on_crash(std::size_t node, const MemberId& life, Instant now);
  void check(const Simulator& sim, std::vector<std::string>& failures);

 private:
  struct Crash {
    std::size_t node = 0;
    MemberId life;
    Instant at;
  };
  Duration quiet_before_;  // T_down: no fault this long before the crash
  Duration bound_;         // T_down_closed
  const FaultLog& faults_;
  Judged* judged_;
  std::vector<Crash> pending_;
};

}  // namespace weft::sim
