// F3, the forgiven pause: a node paused no longer than the forgiven pause
// (compute_bounds().forgiven_pause: the earliest mark, phi_acceptable_pause
// + heartbeat_interval + probe_timeout, plus down_after_confirmed; 5 s at the
// defaults, as serf forgives) is never downed. Silence from a lost host and
// from a paused process look the same until the pause ends, so this is the
// floor under confirmation-scaled downing (docs/failure-detection.md).
//
// Judged only for a clean pause: no other fault of any kind from the
// forgiven pause before it to the forgiven pause after it ends (by then a
// wrongful down would have happened), since a crash or cut near it can
// rightly cost a node its life (a partition's minority is downed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel/config.hpp"
#include "sim/checkers.hpp"

namespace weft::sim {

class ForgivenPause {
 public:
  // worst_ppm: the largest clock drift of any node, either way. Kernels
  // measure silence on their own clocks, so a pause is judged against the
  // forgiven pause as the fastest clock would stretch it.
  // `faults`: every fault of the run as it is applied (a pause too).
  ForgivenPause(const Config& config, std::size_t nodes, std::int64_t worst_ppm, const FaultLog& faults,
                Judged* judged = nullptr);
  // As a pause is applied, with the paused life.
  void on_pause(std::size_t node, const MemberId& life, Instant now, Duration length);
  void check(const Simulator& sim, std::vector<std::string>& failures);

 private:
  struct Pause {
    std::size_t node = 0;
    MemberId life;
    Instant at;
    Duration length;
    bool downed = false;
  };
  Duration forgiven_;  // compute_bounds().forgiven_pause; also the quiet needed before and after
  const FaultLog& faults_;
  Judged* judged_;
  std::vector<Pause> pending_;
};

}  // namespace weft::sim
