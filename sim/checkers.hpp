// What the simulator's checkers share: the Check counts and the FaultLog.
// The checkers judge the cluster-level properties of docs/properties.md
// over a simulated run, one class per property family, each in a file pair
// that opens with the property it checks:
//
//   M2, M3, M8              MembershipSafety    membership_checker.hpp
//   M4, M5, F1 (the heal)   one_view()          scenario_run.cpp
//   M5 T_merge, F1 T_down_partition
//                           CleanPartition      partition_checker.hpp
//   M6 T_boot               BootTogether        boot_checker.hpp
//   M7                      NoFlapping          flapping_checker.hpp
//   F1 T_detect, T_down     CrashDetection      crash_detection_checker.hpp
//   F1 T_down_closed        ClosedCrashDowning  crash_downing_checker.hpp
//   F2, F3 short and stale  SuspicionAccuracy   suspicion_checker.hpp
//   F3 refutation           PauseRefutation     refutation_checker.hpp
//   F3 forgiven pause       ForgivenPause       pause_downing_checker.hpp
//   F4                      BrokenLinkDowning   broken_link_checker.hpp
//   F5a                     ThrottleSpacing     throttle_checker.hpp
//   W3                      TrustBoundary       trust_boundary_checker.hpp
//   S1-S4                   TrafficWorkload     traffic.hpp
//
// F1 (timed) to F5 share one fault model, FaultExcuses (fault_excuses.hpp),
// and are run together by DetectionChecks (detection_checks.hpp).
//
// run() tells the checkers every fault as it is applied and calls check()
// after every step; each violation is one line starting with the
// property's name. Each checker also counts what it judged (Judged): a
// check that judged nothing in a run proved nothing, and a sweep shows it.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/simulator.hpp"

namespace weft::sim {

struct Fault;

// The checks that count their judgements, in the order a sweep prints them.
enum class Check : std::uint8_t {
  m2_records,       // member records compared with their last value
  m3_self,          // live nodes' own records inspected
  m4_one_view,      // runs that reached one view after the heal
  m5_partition_heal,  // of those, runs that had a cut, partition or flap to heal
  f1_detect,        // crashes judged at T_detect (undisturbed)
  f1_down,          // crashes judged at T_down
  f2_flood,         // (observer, monitored subject) pairs judged, unexcused, during a flood
  f3_short_pause,   // pauses shorter than phi_acceptable_pause, judged like F2
  f3_refutation,    // long pauses whose refutation was due and judged
  f4_single_cut,    // single broken links with a third node to vouch
  f5_intervals,     // detector intervals checked against the liveness window
  s1_messages,      // flood messages checked for order, duplicates and destination
  s2_asks,          // ask completions checked
  s3_down_targets,  // asks failed because their target was down (S3 watches the open ones)
  s4_mailboxes,     // mailbox sizes read after a kernel input
  s4_streams,       // (sender, receiver) streams checked while messages were outstanding
  w3_rogues,        // rogue peers judged (refused, or their records refused)
  w3_corrupt,       // corrupted streams judged (the reader closed that link)
  m7_inputs,        // kernel inputs after which own view and own row were judged (flapping_checker.hpp)
  m7_remarks,       // re-marks of a subject an observer had withdrawn
  f1_down_closed,   // clean closed-socket crashes judged at T_down_closed (crash_downing_checker.hpp)
  f3_forgiven_pause,  // clean pauses shorter than the forgiven pause, judged never downed (pause_downing_checker.hpp)
  m6_boot,          // clean boots and group restarts judged at T_boot (boot_checker.hpp)
  f1_partition_down,  // clean partitions whose downs were judged at T_down_partition (partition_checker.hpp)
  m5_merge,         // clean partitions whose heal was judged at T_merge
  w4_refutations,   // forged claims about a live node judged at T_refute (trust_boundary_checker.hpp)
  m8_dropped,       // records a node dropped from its table, watched for their return (membership_checker.hpp)
  w5_fakes,         // invented members judged down everywhere at T_vouch (trust_boundary_checker.hpp)
};
inline constexpr std::size_t kCheckCount = 28;
static_assert(static_cast<std::size_t>(Check::w5_fakes) + 1 == kCheckCount);
std::string_view to_string(Check check);
using Judged = std::array<std::uint64_t, kCheckCount>;
inline void count(Judged* judged, Check check, std::uint64_t n = 1) {
  if (judged != nullptr) (*judged)[static_cast<std::size_t>(check)] += n;
}

// When each fault was applied, in order: a check that judges only "clean"
// faults asks how many fell in a window around one.
class FaultLog {
 public:
  void add(Instant at) {
    WEFT_ASSERT(times_.empty() || times_.back() <= at);
    times_.push_back(at);
  }
  std::size_t count_in(Instant from, Instant to) const {
    return static_cast<std::size_t>(std::upper_bound(times_.begin(), times_.end(), to) -
                                    std::lower_bound(times_.begin(), times_.end(), from));
  }

 private:
  std::vector<Instant> times_;
};

}  // namespace weft::sim
