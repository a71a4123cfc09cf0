// The fault model F1-F4 judge against (docs/properties.md): which faults
// excuse a suspicion or a down, of which nodes, and until when, and which
// disturb the cluster's connectivity. Not a checker: the failure-detection
// checkers (detection_checks.hpp) share one, fed every fault as it is
// applied, before any of them hears of it.
//
// A suspicion of a subject by an observer (F2, F3) is excused by
//   - a crash, host loss or restart of either (until the restart, or from
//     it, plus T_down);
//   - a pause of either lasting at least phi_acceptable_pause (overlapping
//     pauses are one, from the first start to the last end: the process
//     hears nothing in between), until it ends plus T_down;
//   - a cut or partition between them, until the heal plus T_down; a flap
//     until its time is up plus T_down;
//   - a latency spike of 500 ms or more, of anyone, until it ends plus T_down.
// Floods, asks, rogue peers and damaged streams excuse nothing: a lost link
// is redialled at once.
//
// A down of a node (F4, where only single broken links are promised to down
// nobody) is excused by its own crash, restart or long pause as above, and
// by a partition, a flap or a spike of 500 ms or more (anybody may be
// downed), by two or more cuts at once (every node they touch), and by a cut
// while every node but its two ends is crashed: that is a partition, nobody
// being left to vouch, until a third node restarts or the cut heals. Each
// until T_down after it ends.
//
// The connectivity is disturbed (F1's timed bounds do not hold) by any cut,
// partition, flap or spike, until T_down after it ends.
//
// T_down (compute_bounds) is how long a detector may take to catch up once a
// fault is over.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "kernel/config.hpp"
#include "kernel/time.hpp"

namespace weft::sim {

struct Fault;

// One excuse: in force while its fault is (active), then until `until`.
struct Excuse {
  bool active = false;
  Instant until;
  bool holds(Instant now) const { return active || now < until; }
  void end(Instant now, Duration grace) {
    if (active) until = std::max(until, now + grace);
    active = false;
  }
  void extend(Instant to) { until = std::max(until, to); }
};

class FaultExcuses {
 public:
  FaultExcuses(const Config& config, std::size_t nodes);
  // Every fault as it is applied, at its virtual time (the heal at the end
  // of the chaos phase too).
  void on_fault(const Fault& fault, Instant now);

  // A suspicion of `subject` by `observer` is excused now. pauses_count
  // false: the subject's own pause does not excuse it (a refutation is due
  // once the pause is over).
  bool suspicion_excused(std::size_t observer, std::size_t subject, Instant now, bool pauses_count = true) const;
  // A down of `subject` is excused now.
  bool down_excused(std::size_t subject, Instant now) const;
  // The node crashed, restarted or paused long within T_down: it may rightly
  // be downed, and as an observer it may not have caught up.
  bool node_excused(std::size_t node, Instant now) const {
    return node_[node].holds(now) || pause_[node].holds(now);
  }
  // A cut, partition, flap or spike is in force, or ended within T_down.
  bool connectivity_disturbed(Instant now) const { return connectivity_.holds(now); }
  // The cuts in force (a heal ends them all).
  std::size_t cuts() const { return active_cuts_.size(); }
  // A third node, neither a nor b, is not crashed: it can vouch for them.
  bool witnessed(std::size_t a, std::size_t b) const;
  // Crashed (or lost) and not restarted since: nothing runs to be paused.
  bool crashed(std::size_t node) const { return node_[node].active; }
  // The pause the node is in or last had, overlapping pauses as one.
  Instant pause_start(std::size_t node) const { return pause_start_[node]; }
  Instant pause_end(std::size_t node) const { return pause_end_[node]; }
  // Some pause of the node was shorter than phi_acceptable_pause: a mark of
  // it is F3's, not F2's.
  bool short_paused(std::size_t node) const { return short_paused_[node]; }

  Duration grace() const { return grace_; }  // T_down
  Duration acceptable_pause() const { return acceptable_pause_; }
  std::size_t nodes() const { return nodes_; }

 private:
  Excuse& pair(std::size_t a, std::size_t b);
  bool pair_excused(std::size_t a, std::size_t b, Instant now) const;
  void cut(std::size_t a, std::size_t b);
  void partition(const Fault& f, Instant now);
  void heal(Instant now);
  void update_witnesses(Instant now);

  Duration grace_;
  Duration acceptable_pause_;
  std::size_t nodes_;
  std::vector<Excuse> node_;   // [node] crash or restart of the node
  std::vector<Excuse> pause_;  // [node] a long pause of the node
  std::vector<bool> short_paused_;
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
  Excuse everyone_;  // a big latency spike
  // Downs (F4):
  std::set<std::pair<std::size_t, std::size_t>> active_cuts_;  // (low, high)
  std::vector<Excuse> down_node_;    // [node] overlapping cuts touching the node
  std::vector<Excuse> unwitnessed_;  // [node] cut from a peer while no third node lives
  Excuse down_everyone_;             // a partition, flap or big spike
  Excuse connectivity_;              // any cut, partition, flap or spike (F1)
};

}  // namespace weft::sim
