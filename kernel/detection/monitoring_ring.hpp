// The monitoring ring: which members each member watches.
//
// Model. The live members (joining, up, leaving, exiting) sit on a ring
// ordered by key(address), a fingerprint of the address, so a member's
// neighbours are spread independently of how addresses sort (racks, hosts
// sharing a prefix). A member watches the members after it (successors)
// until it has passed k that are not unreachable, k = monitored_by, and
// watches the unreachable ones it passes too; it is watched by the members
// before it (predecessors: its monitors) under the same rule. With nobody
// unreachable that is the k nearest each way, so every live member is
// watched by k others (fewer when the ring is smaller) and heartbeat traffic
// is k per member, O(N) in all, not O(N^2).
//
// Why the walk passes unreachable members (as Akka's heartbeat ring does):
// when a member and all k of its predecessors crash at one instant, the k
// nearest would leave it unwatched until they were downed, and a dead
// leader is never downed. Passing them, the next live predecessor starts
// watching it once it holds the k unreachable, so it is found within twice
// the time a single crash takes.
//
// Properties served: F1 (every live member of a cluster of two or more has
// monitors, so a crash is noticed, even when its monitors die with it) and
// F4 via F1's downing: the leader's wait shrinks as more of a subject's
// expected observers, its predecessors, agree
// (kernel/membership/leader_actions.hpp).
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
  // address order (a MemberTable's records), but those in `left_off`
  // (sorted by MemberId).
  void update(std::span<const Member> members, std::span<const MemberId> left_off = {});

  std::size_t size() const { return ids_.size(); }
  // The ring's members in address order.
  std::span<const MemberId> ids() const { return ids_; }

  // The members after `id` on the ring up to and including the k-th that is
  // not in `unreachable` (sorted by MemberId), or all others when fewer are
  // reachable; sorted by MemberId. Empty when `id` is not on the ring.
  std::vector<MemberId> successors(const MemberId& id, std::size_t k,
                                   std::span<const MemberId> unreachable = {}) const;
  // The members before `id` under the same rule, nearest first: exactly
  // those whose successors include `id`. Empty when `id` is not on the ring.
  std::vector<MemberId> predecessors(const MemberId& id, std::size_t k,
                                     std::span<const MemberId> unreachable = {}) const;

 private:
  using Entry = std::pair<std::uint64_t, MemberId>;

  // The walk after (`forward`) or before `id`, nearest first.
  std::vector<MemberId> neighbours(const MemberId& id, std::size_t k, std::span<const MemberId> unreachable,
                                   bool forward) const;
  void apply(std::vector<MemberId>&& gone, std::vector<Entry>&& added);

  std::vector<Entry> ring_;    // by (key, id)
  std::vector<MemberId> ids_;  // the same members, by address
};

}  // namespace weft
