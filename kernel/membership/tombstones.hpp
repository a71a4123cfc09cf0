// Tombstones: how long a removed member's record stays in the table, who
// decides it goes, and what is remembered once it has (issue 43, case 4;
// docs/membership.md, "Tombstones leave by agreement").
//
// Model. A removed record (a tombstone) stays so that late gossip carrying
// the dead life finds it superseded. Dropped at each node's own moment, a
// tombstone came back: the first to drop it heard it again from one that
// had not, held it another TTL, and handed it back in turn. And since
// convergence is equality of whole tables, tombstones included, a node
// holding a tombstone the others dropped (or the other way round) is not
// converged with them. So:
//
//   - the leader drops a tombstone `ttl` after it saw the removal (due());
//   - every other node drops its copy when a whole state from its leader
//     no longer holds it, once the copy is at least ttl/2 old here
//     (unheld_by_leader(): so a restarted leader that has not yet heard of
//     a removal does not take a fresh tombstone with it); a node that never
//     hears its leader drops its own after 2 ttl (due());
//   - a dropped life is remembered (ForgottenLives, bounded), and any record
//     of it, at any status, is refused (forgotten()), so a copy still held
//     elsewhere cannot bring it back. A newer life ends that (changed()).
//
// Bounded in number, too: a forger's inventions are downed within T_vouch
// and removed, and each left a tombstone for a whole ttl (one peer may
// bring in max_new_members_per_peer a gossip_interval: millions an hour).
// So past `cap` tombstones the leader drops the oldest early (due()), once
// each is `settle` old (the time its removal takes to reach every node: a
// tombstone dropped sooner leaves the others holding the life down, which
// the leader then refuses from each of them, every round), and the others
// follow its whole state without waiting for ttl/2 while they hold more
// than `cap` themselves; a node that never hears its leader drops its
// oldest past twice the cap. A forger then adds at most what it can bring
// in within `settle`, past the cap. The lives dropped early are
// remembered like any other, as far as ForgottenLives holds them.
//
// A value: it decides what goes; the kernel removes it from its tables.
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <vector>

#include "kernel/ids.hpp"
#include "kernel/membership/forgotten_lives.hpp"
#include "kernel/membership/member_table.hpp"
#include "kernel/time.hpp"

namespace weft {

class Tombstones {
 public:
  Tombstones(Duration ttl, std::size_t forgotten_capacity, std::size_t cap)
      : ttl_(ttl), cap_(cap), forgotten_(forgotten_capacity) {}

  // `address`'s record became removed here at `now` (the first time counts).
  void removed(const NodeAddress& address, Instant now) { since_.emplace(address, now); }
  // `address`'s record changed here (called before removed()): a record of
  // a dropped life is refused, so a change is its removal or a newer life,
  // and of an older life nothing is due or forgotten any more.
  void changed(const NodeAddress& address) {
    since_.erase(address);
    forgotten_.forget(address);
  }
  // No removal is waiting to be dropped here: nothing to judge.
  bool none_held() const { return since_.empty(); }
  // A record of a life whose tombstone this node dropped: refused.
  bool forgotten(const Member& record) const { return forgotten_.covers(record); }

  // Due by this node's own clock: `ttl` after the removal if it leads,
  // twice that if it does not; and the oldest past the cap if it leads
  // (past twice the cap if it does not), of those at least `settle` old.
  std::vector<NodeAddress> due(Instant now, bool leads, Duration settle = Duration::zero()) const;
  // More tombstones than the cap: due() may drop some early.
  bool crowded() const { return since_.size() > cap_; }
  // The tombstones of `table` that a whole state from this node's leader
  // (`leaders`: its addresses, sorted) no longer holds, at least ttl/2 old
  // (any age while this node holds more than the cap).
  std::vector<NodeAddress> unheld_by_leader(Instant now, std::span<const NodeAddress> leaders,
                                            const MemberTable& table) const;
  // `address`'s tombstone leaves the table: `record` (its removed life, if
  // it had one) is remembered unless `remember` is false (a planted defect).
  void dropped(const NodeAddress& address, const Member* record, bool remember);
  std::size_t size() const { return since_.size(); }

 private:
  Duration ttl_;
  std::size_t cap_;
  std::map<NodeAddress, Instant> since_;  // when each removal was seen here
  ForgottenLives forgotten_;
};

}  // namespace weft
