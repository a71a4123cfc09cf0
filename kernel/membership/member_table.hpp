// The member table: what one node believes about every address in the
// cluster. One record per address, sorted by address.
//
// Merge laws (property M1). The table is a join-semilattice under merge: for
// each address keep the record that supersedes the other (the newer
// incarnation; within one incarnation the status further along, see
// member.hpp). That is a max over a total order per address, so merge is
//   commutative  merge(a, b) == merge(b, a)
//   associative  merge(merge(a, b), c) == merge(a, merge(b, c))
//   idempotent   merge(a, a) == a
// and gossip converges whatever order, duplication or delay it suffers.
// Monotonicity (M2) follows: a record only ever moves up that order.
//
// The one operation outside the lattice is prune(): it drops removed
// tombstones after their grace period, trading the laws for bounded memory;
// a tombstone outlives any gossip that could still carry its member.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "kernel/membership/member.hpp"
#include "kernel/membership/position_hints.hpp"

namespace weft {

class MemberTable {
 public:
  MemberTable() = default;

  std::span<const Member> members() const { return members_; }
  std::size_t size() const { return members_.size(); }
  bool empty() const { return members_.empty(); }
  const Member* find(const NodeAddress& address) const;

  // A table of `members`, which must be sorted by address and unique (as
  // the gossip decoder delivers them); asserted.
  static MemberTable from_sorted(std::vector<Member> members);

  // Merges one record; true if the table changed.
  bool merge(const Member& member);
  // Merges another table in O(n + m); true if this table changed. When it
  // did and `previous` is given, *previous receives the records as they
  // were before (moved out, not copied).
  bool merge(const MemberTable& other, std::vector<Member>* previous = nullptr);

  // Removes the records `drop` selects (removed tombstones past their grace
  // period). Outside the merge laws; see the header comment.
  std::size_t prune(const std::function<bool(const Member&)>& drop);

  // A fingerprint of the whole table, equal on two nodes iff (with
  // overwhelming likelihood) their tables are equal: the sum of a print of
  // each record (then folded with the count), so a merge keeps it up to date
  // by the records it changes, in O(changes), instead of a walk of the
  // whole table per change. Summed in O(n) only the first time a table is
  // asked (a table made from_sorted, or pruned), then cached per version.
  std::uint64_t digest() const { return digest_version_ == version_ ? digest_ : compute_digest(); }
  // Moves on whenever the table changes, so a reader may cache what it
  // derives from the records (indices into members() included).
  std::uint64_t version() const { return version_; }

  friend bool operator==(const MemberTable& a, const MemberTable& b) { return a.members_ == b.members_; }

 private:
  // Every change goes through here, and moving the version on is what
  // invalidates the cached digest.
  void changed() { ++version_; }
  std::uint64_t compute_digest() const;

  std::vector<Member> members_;  // sorted by address, unique
  std::vector<Member> scratch_;  // reused by merge(table)
  PositionHints hints_;          // where find() last found an address
  // The digest is valid for exactly one version of the table, the one it was
  // computed from: a cache valid only while the table is unchanged, by
  // construction. No table reaches version UINT64_MAX.
  mutable std::uint64_t digest_ = 0;
  mutable std::uint64_t digest_version_ = UINT64_MAX;
  // The sum of record_print over members_ (mod 2^64), while sum_valid_.
  mutable std::uint64_t sum_ = 0;
  mutable bool sum_valid_ = true;
  std::uint64_t version_ = 0;
};

// Folds bytes into a running 64-bit fingerprint (FNV-1a, then mixed); the
// same everywhere, unlike std::hash.
std::uint64_t fingerprint_bytes(std::uint64_t state, const void* data, std::size_t size);
std::uint64_t fingerprint_u64(std::uint64_t state, std::uint64_t value);
// An address folded in eight bytes of host at a time, then the port (and
// the host's length, so no two addresses fold alike): a third of the mixing
// fingerprint_bytes does per byte. Table digests and the link table's hash
// index take it; the monitoring ring's keys keep fingerprint_bytes, since
// which member follows which on the ring is behaviour.
std::uint64_t fingerprint_address(std::uint64_t state, const NodeAddress& address);
// fingerprint_address, then the incarnation.
std::uint64_t fingerprint_member_id(std::uint64_t state, const MemberId& id);

}  // namespace weft
