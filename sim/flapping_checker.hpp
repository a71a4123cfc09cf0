// M7, no flapping from stale gossip: what a node says about liveness moves
// only on new evidence. Judged after every kernel input (not at the
// checkers' 100 ms steps: a flap lasts milliseconds):
//
//   - a live node never lists itself unreachable: its own view of itself is
//     not taken from others' rows that gossip brings (it is alive to read
//     them; their marks are withdrawn once they hear it);
//   - a node never takes back its own reachability row: the row it owns
//     only moves forward in version, whatever copy gossip carries;
//   - an observer does not re-mark a subject within probe_timeout of
//     withdrawing it: a new mark needs a probe that started after the
//     withdrawal to go unanswered, which takes at least that long.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernel/kernel.hpp"
#include "sim/checkers.hpp"

namespace weft::sim {

class NoFlapping {
 public:
  // worst_ppm: the largest clock drift of any node; a kernel times its
  // probes on its own clock, so probe_timeout is judged as the fastest
  // clock would shorten it.
  NoFlapping(const Config& config, std::int64_t worst_ppm, Judged* judged = nullptr);
  // After node's kernel took an input at `now`.
  void after_input(std::size_t node, const Kernel& kernel, Instant now);
  // Moves what after_input found into the run's failures.
  void check(std::vector<std::string>& failures);

 private:
  struct Row {
    MemberId owner;
    std::uint64_t version = 0;
    std::vector<MemberId> marked;               // as last seen, sorted
    std::map<MemberId, Instant> withdrawn_at;   // subject -> when this row last withdrew it
  };
  // Where the node's own record and own row last sat in its tables: after
  // nearly every input they still sit there, and one comparison replaces a
  // binary search over N records (this runs after every kernel input).
  struct Hints {
    std::size_t member = 0;
    std::size_t row = 0;
  };
  MemberStatus self_status(std::size_t node, const Kernel& kernel);
  const ReachabilityRow* own_row(std::size_t node, const Kernel& kernel);

  Duration probe_timeout_;
  Judged* judged_;
  std::vector<Row> rows_;      // [node]
  std::vector<Hints> hints_;   // [node]
  std::vector<std::string> found_;
};

}  // namespace weft::sim
