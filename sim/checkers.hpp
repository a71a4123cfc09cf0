// The cluster-level properties of docs/properties.md, checked over a simulated
// run. run() tells the checkers every fault as it is applied and calls
// check() after every step; each violation is one line starting with the
// property's name. M2 and M3 are judged in membership_checker.hpp, W3 in
// trust_boundary_checker.hpp, and here:
//
//   F2  accuracy: a node is never suspected (marked unreachable in an
//       observer's own row) unless a fault excuses the pair: a crash or
//       restart of either, a pause of at least phi_acceptable_pause, a cut
//       or partition between them, a latency spike of 500 ms or more; each
//       excuse lasts until the fault ends plus T_down. Floods excuse nothing.
//   F3  the same for a node paused for less than phi_acceptable_pause; and
//       a node paused longer, but not downed, is refuted: within
//       heartbeat_interval + probe_timeout + 1 s of resuming, no observer
//       still holds its life unreachable
//   F1  timed: a crashed life is unreachable in every live view within
//       T_detect and down within T_down of the crash (compute_bounds), when
//       no cut, partition or spike disturbed the cluster from T_down before
//       the crash to the deadline; observers that were paused or restarted
//       meanwhile are excused (the heal phase checks everyone at the end)
//   F4  a node that only ever lost single links (one at a time), each
//       while a third node lived to vouch for it, is never downed
//   F5  a node's detectors take at most one observation per monitored peer
//       per liveness window (the LivenessThrottle), however much arrives:
//       judged from each detector's own sample history (every interval it
//       recorded is at least liveness_window long), not from a counter kept
//       beside the throttle
//
// Each checker also counts what it judged (Judged): a check that judged
// nothing in a run proved nothing, and a sweep shows it.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <map>
#include <set>
#include <span>
#include <string>
#include <tuple>
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
};
inline constexpr std::size_t kCheckCount = 25;
static_assert(static_cast<std::size_t>(Check::m5_merge) + 1 == kCheckCount);
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

class DetectionAccuracy {
 public:
  DetectionAccuracy(const Config& config, std::size_t nodes, Judged* judged = nullptr);
  // Call as each fault is applied, at its virtual time.
  void on_fault(const Fault& fault, Instant now);
  // Call just before a crash is applied, with the life that dies.
  void on_crash(std::size_t node, const MemberId& life, Instant now);
  void check(const Simulator& sim, std::vector<std::string>& failures);

 private:
  struct Excuse {
    bool active = false;  // until the fault is over
    Instant until;        // then this long after
    bool holds(Instant now) const { return active || now < until; }
    void end(Instant now, Duration grace) {
      if (active) until = std::max(until, now + grace);
      active = false;
    }
    void extend(Instant to) { until = std::max(until, to); }
  };
  bool suspicion_excused(std::size_t observer, std::size_t subject, Instant now, bool pauses_count = true) const;
  bool down_excused(std::size_t subject, Instant now) const;
  void update_witnesses(Instant now);
  void check_intervals(std::size_t node, const Kernel& kernel, std::span<const MemberId> monitored,
                       std::vector<std::string>& failures);
  Excuse& pair(std::size_t a, std::size_t b);
  bool pair_excused(std::size_t a, std::size_t b, Instant now) const;

  Duration grace_;
  Duration acceptable_pause_;
  std::size_t nodes_;
  std::vector<Excuse> node_;           // crash or restart of the node
  std::vector<Excuse> pause_;          // a long pause of the node
  struct Refutation {
    Instant due;  // no observer may hold the subject unreachable after this
    std::uint64_t incarnation = 0;  // of the life that was paused
  };
  std::vector<std::optional<Refutation>> refute_;
  std::vector<std::size_t> refuting_;  // the nodes whose refute_ is set, in order
  Duration refute_within_;
  std::vector<bool> short_paused_;     // F3 rather than F2 in the report
  std::vector<Excuse> down_node_;      // overlapping cuts touching the node
  std::vector<Excuse> unwitnessed_;    // cut from a peer while no third node lives
  // The pause the node is in or last had: overlapping pauses are one to the
  // process (the simulator keeps the later end).
  std::vector<Instant> pause_start_;
  std::vector<Instant> pause_end_;
  std::map<std::pair<std::size_t, std::size_t>, Excuse> pair_;  // (low, high), from cuts
  // A partition or flap excuses every pair across its side: one record per
  // fault rather than a pair_ entry per crossing pair (a quarter of N x N).
  // A pair is excused while any record holding it is, as if one Excuse had
  // taken every fault that touched the pair (heal ends them all, a flap
  // extends them all).
  struct Side {
    std::vector<bool> in;  // [node]
    Excuse excuse;
  };
  std::vector<Side> sides_;
  Excuse everyone_;                    // a big latency spike
  Excuse down_everyone_;               // a partition: anybody may be downed
  std::set<std::pair<std::size_t, std::size_t>> active_cuts_;  // (low, high)
  // Violations already reported, as (observer or 0, incarnation, subject;
  // subject + 1000 for F3's refutation), so each is reported once.
  std::set<std::tuple<std::size_t, std::uint64_t, std::size_t>> reported_;
  // (observer, incarnation, subject) of the marks an observer holds that
  // were made, or seen, while a fault excused them (F3: they must be
  // withdrawn once the fault is over).
  std::set<std::tuple<std::size_t, std::uint64_t, std::size_t>> excused_marks_;
  Judged* judged_;
  // Per (node, life, subject): the detector's intervals_recorded() when last
  // checked; only the intervals recorded since are checked again.
  std::vector<std::map<std::pair<std::uint64_t, MemberId>, std::uint64_t>> intervals_seen_;  // [node][(life, subject)]
  // Per node, the members its table holds down (F4), read again only when
  // the table's digest moves.
  struct Downs {
    bool read = false;
    std::uint64_t digest = 0;
    std::vector<MemberId> down;
  };
  std::vector<Downs> downs_;
  Instant flood_until_;  // a flood runs until then (F2's judgements count it)
  struct Crash {
    std::size_t node = 0;
    MemberId life;
    Instant at;
    bool disturbed = false;
    bool detect_checked = false;
  };
  std::vector<Crash> crashes_;
  Excuse connectivity_;  // any cut, partition, flap or spike
  Duration detect_;
  Duration down_;
  void check_crashes(const Simulator& sim, std::vector<std::string>& failures);
};

}  // namespace weft::sim
