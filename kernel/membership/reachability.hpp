// Reachability: who cannot reach whom, as each observer sees it.
//
// Each observer owns one row: a version it alone increments, and the set of
// subjects it currently finds unreachable. Marking a subject unreachable or
// reachable again bumps the version and rewrites the row; a subject that is
// reachable simply has no entry. Rows travel with gossip.
//
// Merge laws (M1): per observer, keep the row with the higher version (rows
// of equal version from one observer are equal unless forged; a content
// tie-break keeps merge commutative even then). A max per key, so the table
// is a join-semilattice like the member table, and a cleared entry cannot be
// resurrected by older gossip, because the clearing row has the higher
// version.
//
// Rows are keyed by the observer's MemberId and name subjects by MemberId, so
// a restarted process (new incarnation) starts a fresh row and is judged
// afresh. prune() drops rows of gone observers, and each observer drops gone
// subjects from its own row, as a versioned change.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "kernel/ids.hpp"

namespace weft {

struct ReachabilityRow {
  MemberId observer;
  std::uint64_t version = 0;
  std::vector<MemberId> unreachable;  // sorted, unique

  friend bool operator==(const ReachabilityRow&, const ReachabilityRow&) = default;
};

class ReachabilityTable {
 public:
  std::span<const ReachabilityRow> rows() const { return rows_; }
  const ReachabilityRow* row(const MemberId& observer) const;

  // The observer's own changes; true if its view changed (and its version rose).
  bool mark_unreachable(const MemberId& observer, const MemberId& subject);
  bool mark_reachable(const MemberId& observer, const MemberId& subject);
  // The observer's own row, unchanged, rewritten at a version above `claimed`
  // (row_claims.hpp): it then wins every merge against the claim.
  void rewrite_above(const MemberId& observer, std::uint64_t claimed);

  // Merges one row / a whole table; true if this table changed.
  bool merge(const ReachabilityRow& row);
  bool merge(const ReachabilityTable& other);

  // True if any observer accepted by `counts` finds `subject` unreachable.
  bool is_unreachable(const MemberId& subject,
                      const std::function<bool(const MemberId& observer)>& counts) const;
  bool is_unreachable(const MemberId& subject) const;
  // The observers that find `subject` unreachable, in order.
  std::vector<MemberId> observers_of(const MemberId& subject) const;

  // Drops the rows of observers `gone` selects, and the entries `gone`
  // selects from `owner`'s own row (bumping its version). Other observers'
  // rows are theirs to edit: pruning them here would be undone by gossip
  // carrying the same version from a node that has not pruned yet.
  std::size_t prune(const std::function<bool(const MemberId&)>& gone, const MemberId& owner);

  std::uint64_t digest() const;

  friend bool operator==(const ReachabilityTable& a, const ReachabilityTable& b) {
    return a.rows_ == b.rows_;
  }

 private:
  ReachabilityRow& row_for(const MemberId& observer);
  // Rows sorted by observer and unique, each row's subjects sorted and
  // unique; O(entries), checked after the whole-table operations.
  void check_invariants() const;

  std::vector<ReachabilityRow> rows_;  // sorted by observer, unique
};

}  // namespace weft
