// The monitoring ring: which members each member watches.
//
// Model. The live members (joining, up, leaving, exiting) sit on a ring
// ordered by key(address), a fingerprint of the address, so a member's
// neighbours are spread independently of how addresses sort (racks, hosts
// sharing a prefix). With k = min(monitored_by, live members - 1), a member
// watches the k members after it (successors) and is watched by the k
// before it (predecessors: its monitors). Every live member is thus watched
// by exactly k others and heartbeat traffic is k per member, O(N) in all,
// not O(N^2).
//
// Properties served: F1 (every live member of a cluster of two or more has
// monitors, so a crash is noticed) and F4 via F1's downing: the leader's
// wait shrinks as more of a subject's expected observers, its predecessors,
// agree (kernel/membership/leader_actions.hpp).
//
// The ring is rebuilt from the member table after every change of state,
// which mostly leaves the live members as they were: update() tells that in
// one walk, and otherwise hashes and sorts only the members that came, and
// merges them in. Invariant: the ring (by key) and ids (by address) hold the
// same members, each sorted and unique.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "kernel/ids.hpp"
#include "kernel/membership/member.hpp"

namespace weft {

class MonitoringRing {
 public:
  // A member's position on the ring.
  static std::uint64_t key(const NodeAddress& address);

  // Brings the ring to the live members of `members`, which must be in
  // address order (a MemberTable's records).
  void update(std::span<const Member> members);

  std::size_t size() const { return ids_.size(); }
  // The ring's members in address order.
  std::span<const MemberId> ids() const { return ids_; }

  // The `k` members after `id` on the ring (fewer when the ring is smaller),
  // sorted by MemberId; empty when `id` is not on the ring.
  std::vector<MemberId> successors(const MemberId& id, std::size_t k) const;
  // The `k` members before `id` (fewer when the ring is smaller), nearest
  // first: those whose successors include `id`. Empty when `id` is not on
  // the ring.
  std::vector<MemberId> predecessors(const MemberId& id, std::size_t k) const;

 private:
  using Entry = std::pair<std::uint64_t, MemberId>;

  // The `k` members after (`forward`) or before `id`, nearest first.
  std::vector<MemberId> neighbours(const MemberId& id, std::size_t k, bool forward) const;
  void apply(std::vector<MemberId>&& gone, std::vector<Entry>&& added);

  std::vector<Entry> ring_;    // by (key, id)
  std::vector<MemberId> ids_;  // the same members, by address
};

}  // namespace weft
