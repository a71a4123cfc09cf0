// A clean partition, both ways: while a group is cut from the rest, each
// side holds every node of the other side down within T_down_partition
// (F1: to either side the other is as silent as a lost host); once the cut
// heals, one view again within T_merge (M5, which PROPERTIES.md allows
// T_heal, tens of seconds).
//
// T_down_partition = max(T_detect, forgiven_pause + heartbeat_interval)
// + down_after_confirmed + gossip_interval + spread (10.6 s at 5 nodes;
// measured 5.4-6.1 s). Every observer on a side marks the far nodes within
// T_detect; the far side's monitors no longer count as observers there, so
// those marks are full confirmation and the leader waits only
// down_after_confirmed, once its own silence clock (forgiven_pause +
// heartbeat_interval since it last heard the subject) has run out; then the
// down spreads. Judged only where every node monitors every other (N <=
// monitored_by + 1): beyond that a far node whose monitors all sit on its
// own side is marked only once downs have moved the ring, and a side whose
// lowest address is such a node has no leader and downs nobody
// (docs/testing.md, "Scenario families").
//
// T_merge = 5/4 x reconnect_backoff_max + join_retry_interval + T_boot
// (8.2 s at 5 nodes; measured 0.1-2.8 s). Once each side has downed the
// other, the only links across are the heal probes' dials, which failed
// while the cut held, so the first redial after the heal waits out a
// backoff of up to reconnect_backoff_max plus its jitter (a quarter);
// then the nodes that learn they were downed rejoin, rejoiners that find
// each other first can form an island that the next heal probe merges
// (join_retry_interval), and the new lives come up as in a boot (T_boot).
//
// Judged only for a clean partition: no other fault from T_down before it
// until the deadline (the heal aside, for T_merge), and nothing lasting in
// force when it began. Both bounds stretch with the slowest clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernel/config.hpp"
#include "sim/checkers.hpp"
#include "sim/ongoing_faults.hpp"

namespace weft::sim {

Duration partition_down_bound(const Config& config, std::size_t nodes);
Duration merge_bound(const Config& config, std::size_t nodes);

class CleanPartition {
 public:
  // Whether the live nodes hold one view now; if not, why (a failure line
  // of the heal's own check, "M5: ...").
  using OneView = std::function<bool(std::string* why)>;
  // `faults` and `ongoing`: every fault of the run as it is applied.
  CleanPartition(const Config& config, std::size_t nodes, std::int64_t worst_ppm, const FaultLog& faults,
                 const OngoingFaults& ongoing, OneView one_view, Judged* judged = nullptr);
  // As a partition is applied (before `ongoing` hears of it): `side` is cut from the rest.
  void on_partition(const Simulator& sim, const std::vector<std::size_t>& side);
  // As every cut is healed.
  void on_heal(Instant now);
  void check(const Simulator& sim, std::vector<std::string>& failures);

 private:
  struct Partition {
    Instant at;
    std::vector<bool> side;         // by node: on the cut-off side
    std::vector<MemberId> lives;    // by node - 1: the life each had when cut (empty address if dead)
    bool down_judged = false;       // the downs were due and looked at
    std::optional<Instant> healed;  // when the cut healed
    bool done = false;              // the heal was judged (or could not be)
  };
  void check_downs(const Simulator& sim, Partition& p, std::vector<std::string>& failures);
  Duration down_bound_;    // T_down_partition, stretched by drift
  Duration merge_bound_;   // T_merge, stretched by drift
  Duration quiet_before_;  // T_down
  bool downs_judged_;      // every node monitors every other
  const FaultLog& faults_;
  const OngoingFaults& ongoing_;
  OneView one_view_;
  Judged* judged_;
  std::vector<Partition> pending_;
};

}  // namespace weft::sim
