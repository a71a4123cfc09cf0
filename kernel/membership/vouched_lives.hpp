// Vouched lives: which members this node has evidence exist.
//
// Model. A gossiped record is hearsay: any peer past the handshake (anyone
// at all, on a cluster without a key) may invent members. A record that
// names nobody never answers, so before this model one frame of invented
// members stalled the cluster: convergence waited on them, the lowest of
// them was elected leader, the monitoring ring spent its walks on them,
// and a join waited until each had been found unreachable in turn (issue
// 34: 200 fakes made a join take 50.7 s; 20,000 took half an hour to clear).
//
// A life is vouched for here when this node has evidence that it exists:
//   proof  a handshake here established it (Kernel::note_proven);
//   seen   its bit is set in this node's seen set, so some member reports
//          that it holds this node's state (SeenSet; a life sets its own
//          bit in every state it holds, and the bits spread with the state).
// A live record not vouched for is *unvouched*. It is kept and gossiped
// like any other (the tables stay one semilattice, M1) but it counts for
// nothing this node decides: it is excused from convergence (as an
// unreachable member is), never elected leader, off the monitoring ring,
// never a biased gossip pick, and never moved up. A leader downs a member
// it has held unvouched for down_after_unreachable, as it would one a
// single observer holds unreachable. A real member that joins is vouched
// for as soon as its bit reaches the leader, which is what convergence
// waits for anyway, so honest joins go as fast as before.
//
// What it does not stop: an insider who also forges seen bits (a state
// with our whole table, its inventions, and every bit set) has its
// inventions vouched for; they then cost what every invented member cost
// before, until the ring finds them unreachable. Seen bits carry no
// signature, and the cluster's key is shared, so nothing second-hand can.
// docs/deploy.md's security model says so. Nor does it bound how many
// records a flood adds: new_member_budget.hpp does, per peer and interval.
//
// Invariant: view() is exactly the live records of the table last refreshed,
// but this node, that are not vouched for, sorted by MemberId; since() holds
// one instant for each (since_[i] for view_[i]), when this node first held
// that life unvouched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "kernel/ids.hpp"
#include "kernel/membership/member.hpp"
#include "kernel/membership/member_table.hpp"
#include "kernel/time.hpp"

namespace weft {

class VouchedLives {
 public:
  // `off`: every life counts as vouched for (Mutations::vouching_off, the
  // behaviour before this model).
  explicit VouchedLives(bool off = false) : off_(off) {}

  // Evidence of `life` (and so of older lives of its address); true if it
  // was not vouched for before.
  bool note(const MemberId& life);
  bool holds(const MemberId& life) const;
  // Notes each unvouched member of `table` whose bit `seen` (a seen set over
  // `table`, SeenSet::bits) sets; true if any was new. Costs nothing while
  // the view is empty, which is most of the time.
  bool note_seen(const MemberTable& table, std::span<const std::uint8_t> seen);

  // Recomputes the view over `table`; true if it changed.
  bool refresh(const MemberTable& table, const MemberId& self, Instant now);
  std::span<const MemberId> view() const { return view_; }
  bool excuses(const MemberId& id) const;
  std::optional<Instant> since(const MemberId& id) const;
  // Moves on whenever view() changes, so a reader may cache what it derives.
  std::uint64_t version() const { return version_; }
  // Moves on whenever holds() may answer otherwise.
  std::uint64_t evidence_version() const { return evidence_version_; }

  // The table was replaced, not merged (Mutations::merge_order_dependent):
  // its version may repeat the one the view is over.
  void table_replaced() { stale_ = true; }
  // Forgets addresses `table` no longer holds once they outnumber its
  // records (strangers' proven hellos among them): a bound on growth that
  // costs nothing on most ticks, as for the kernel's proven lives.
  void prune(const MemberTable& table);
  std::size_t size() const { return lives_.size(); }

 private:
  bool off_;
  std::map<NodeAddress, Incarnation> lives_;  // the newest vouched life of each address
  std::vector<MemberId> view_;                // sorted
  std::vector<Instant> since_;                // since_[i]: when view_[i] was first held unvouched
  std::uint64_t version_ = 0;
  std::uint64_t evidence_version_ = 0;
  std::optional<std::uint64_t> table_version_;  // the MemberTable::version() view_ is over
  bool stale_ = true;                           // lives_ moved since view_ was computed
};

}  // namespace weft
