// F1, timed (docs/properties.md): a crashed process or lost host is
// unreachable (or no longer live) in every live view within T_detect of the
// crash, and down or removed within T_down (compute_bounds).
//
// Judged only for a crash no cut, partition, flap or latency spike disturbed
// from T_down before it to the deadline (FaultExcuses::connectivity_disturbed):
// the detector's bounds assume the rest of the cluster can hear each other. An observer that crashed,
// restarted or paused for at least phi_acceptable_pause within T_down is not
// judged (FaultExcuses::node_excused); the heal phase checks everyone at the
// end (one_view). A crash with its sockets closed has a tighter bound of its
// own (crash_downing_checker.hpp).
//
// A crash whose monitors died with it. A node is watched by the k =
// monitored_by members before it on the monitoring ring that are not
// unreachable (monitoring_ring.hpp); when r of its nearest predecessors
// crash at the same instant as it, the first live one before them watches
// it only after it has found the r dead ones unreachable, k at a time. Both
// deadlines move by floor(r / k) x T_detect (T_detect x 2 when it and its
// five monitors die together); with r < k, as for any lone crash, they are
// as above.
//
// Judged: "F1 T_detect", "F1 T_down" (crashes judged at each deadline).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/checkers.hpp"
#include "sim/fault_excuses.hpp"

namespace weft::sim {

class CrashDetection {
 public:
  CrashDetection(const Config& config, std::size_t nodes, const FaultExcuses& excuses, Judged* judged = nullptr);
  // Just before a crash or host loss is applied, with the life that dies.
  void on_crash(std::size_t node, const MemberId& life, Instant now);
  void check(const Simulator& sim, std::vector<std::string>& failures);

 private:
  struct Crash {
    std::size_t node = 0;
    MemberId life;
    Instant at;
    bool disturbed = false;
    bool detect_checked = false;
    std::optional<Duration> orphaned;  // the time before a live member must watch it
  };
  // floor(r / k) x T_detect, r its predecessors on the ring of the running
  // nodes that crashed at the same instant (read just after that instant).
  Duration orphaned_for(const Simulator& sim, const Crash& crash) const;
  std::string orphaned_note(Duration orphaned) const;
  const FaultExcuses& excuses_;
  Judged* judged_;
  Duration detect_;  // T_detect
  Duration down_;    // T_down
  std::size_t monitored_by_;
  std::vector<Crash> crashes_;
};

}  // namespace weft::sim
