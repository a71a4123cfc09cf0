// Lives whose tombstones this node has dropped, remembered so that a peer
// still holding one cannot bring it back.
//
// Model. A removed member's record (its tombstone) stays in the table for
// tombstone_ttl, then is pruned. Nodes prune at different moments, so
// without a memory the first to prune re-learns the tombstone from a peer
// that has not yet, holds it for another tombstone_ttl, and hands it back
// to that peer after it prunes in turn: a tombstone never leaves, and a
// forger's inventions stay for good (issue 43, case 4). chitchat keeps the
// last 500 collected ids for the same reason.
//
// So a pruned life is remembered, address -> the highest incarnation pruned
// there, and a record of that address at or below it is refused at any
// status: the same life, or an older one, is over here. A newer
// incarnation is a new life (a restart), taken as any record is, and it
// ends the memory of the address. The memory is bounded: past `capacity`
// addresses the oldest remembered is forgotten first (first in, first
// out), so a forger inventing ever new addresses costs this node at most
// `capacity` entries, and what falls out can come back only from a peer
// that still holds it.
#pragma once

#include <cstddef>
#include <deque>
#include <map>

#include "kernel/ids.hpp"
#include "kernel/membership/member.hpp"

namespace weft {

class ForgottenLives {
 public:
  explicit ForgottenLives(std::size_t capacity) : capacity_(capacity) {}

  // `life`'s tombstone was pruned here.
  void remember(const MemberId& life);
  // A record of an address at or below a life pruned there: refused.
  bool covers(const Member& record) const;
  // A newer life of `address` was taken: nothing to remember of it now.
  void forget(const NodeAddress& address);

  std::size_t size() const { return pruned_.size(); }
  std::size_t capacity() const { return capacity_; }

 private:
  void check_invariants() const;

  std::size_t capacity_;
  std::map<NodeAddress, Incarnation> pruned_;
  std::deque<NodeAddress> order_;  // oldest first; the keys of pruned_, each once
};

}  // namespace weft
