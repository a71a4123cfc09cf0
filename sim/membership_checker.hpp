// M2 and M3, membership safety (docs/properties.md), judged at every step:
//
//   M2  per observer life, a node's record of a member only moves forward:
//       (incarnation, status) grows, in the order joining < up < leaving <
//       exiting < down < removed within an incarnation
//   M3  no live node holds its own life down or removed
//   M8  a record a node dropped from its table (a pruned tombstone) does
//       not come back to that node's life at the same incarnation or an
//       older one: only a newer life of the address may return
//
// Judged: "M2 records" (records compared), "M3 own records" (live nodes'
// own records inspected), "M8 dropped records" (records seen dropped).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/checkers.hpp"

namespace weft::sim {

class MembershipSafety {
 public:
  explicit MembershipSafety(Judged* judged = nullptr) : judged_(judged) {}
  void check(const Simulator& sim, std::vector<std::string>& failures);

 private:
  // What one life of a node last held for each address it ever listed,
  // sorted by address; an address pruned from its table keeps its entry (a
  // record that comes back must not be older).
  struct Held {
    NodeAddress address;
    std::uint64_t incarnation = 0;
    int status = 0;
    bool dropped = false;  // absent from the table when last compared
  };
  struct Life {
    bool compared = false;
    std::uint64_t digest = 0;  // of the member table held when last compared
    std::vector<Held> held;
  };
  void compare(std::size_t node, const Kernel& kernel, Life& life, std::vector<std::string>& failures);

  Judged* judged_;
  std::vector<std::map<std::uint64_t, Life>> lives_;  // [node][incarnation]
};

}  // namespace weft::sim
