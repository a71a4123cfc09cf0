// The reachability table (merge laws in reachability.hpp): an observer's own
// marks, merging rows, queries, pruning and the digest.
#include "kernel/membership/reachability.hpp"

#include <algorithm>
#include <limits>

#include "kernel/assert.hpp"
#include "kernel/membership/member_table.hpp"

namespace weft {
namespace {

bool observer_less(const ReachabilityRow& row, const MemberId& observer) {
  return row.observer < observer;
}

// The row that wins a merge: higher version; on a tie, the larger content.
bool wins(const ReachabilityRow& a, const ReachabilityRow& b) {
  if (a.version != b.version) return a.version > b.version;
  return a.unreachable >= b.unreachable;
}

bool row_less(const ReachabilityRow& a, const ReachabilityRow& b) { return a.observer < b.observer; }

// For an element just inserted at `at` into a vector kept sorted and unique
// under `less`: it follows its predecessor and precedes its successor.
template <class T, class Less>
bool after_previous(const std::vector<T>& v, typename std::vector<T>::const_iterator at, Less less) {
  return at == v.begin() || less(*std::prev(at), *at);
}
template <class T, class Less>
bool before_next(const std::vector<T>& v, typename std::vector<T>::const_iterator at, Less less) {
  return std::next(at) == v.end() || less(*at, *std::next(at));
}

}  // namespace

const ReachabilityRow* ReachabilityTable::row(const MemberId& observer) const {
  const auto it = std::lower_bound(rows_.begin(), rows_.end(), observer, observer_less);
  return it != rows_.end() && it->observer == observer ? &*it : nullptr;
}

ReachabilityRow& ReachabilityTable::row_for(const MemberId& observer) {
  auto it = std::lower_bound(rows_.begin(), rows_.end(), observer, observer_less);
  if (it == rows_.end() || it->observer != observer) {
    it = rows_.insert(it, ReachabilityRow{observer, 0, {}});
    WEFT_ASSERT(after_previous(rows_, it, row_less));
    WEFT_ASSERT(before_next(rows_, it, row_less));
  }
  return *it;
}

bool ReachabilityTable::mark_unreachable(const MemberId& observer, const MemberId& subject) {
  ReachabilityRow& r = row_for(observer);
  const auto it = std::lower_bound(r.unreachable.begin(), r.unreachable.end(), subject);
  if (it != r.unreachable.end() && *it == subject) return false;
  const auto at = r.unreachable.insert(it, subject);
  WEFT_ASSERT(after_previous(r.unreachable, at, std::less<MemberId>()));
  WEFT_ASSERT(before_next(r.unreachable, at, std::less<MemberId>()));
  ++r.version;
  return true;
}

bool ReachabilityTable::mark_reachable(const MemberId& observer, const MemberId& subject) {
  const auto found = std::lower_bound(rows_.begin(), rows_.end(), observer, observer_less);
  if (found == rows_.end() || found->observer != observer) return false;
  ReachabilityRow& r = *found;
  const auto it = std::lower_bound(r.unreachable.begin(), r.unreachable.end(), subject);
  if (it == r.unreachable.end() || *it != subject) return false;
  r.unreachable.erase(it);
  // Unique entries: none of the subject is left.
  WEFT_ASSERT(!std::binary_search(r.unreachable.begin(), r.unreachable.end(), subject));
  ++r.version;
  return true;
}

void ReachabilityTable::rewrite_above(const MemberId& observer, std::uint64_t claimed) {
  WEFT_ASSERT(claimed < std::numeric_limits<std::uint64_t>::max());
  ReachabilityRow& r = row_for(observer);
  r.version = std::max(r.version, claimed) + 1;
}

bool ReachabilityTable::merge(const ReachabilityRow& incoming) {
  // A row's subjects are sorted and unique wherever it comes from (its
  // observer's marks, or the gossip decoder, which refuses anything else):
  // is_unreachable() binary-searches them.
  WEFT_ASSERT(std::adjacent_find(incoming.unreachable.begin(), incoming.unreachable.end(),
                                 std::greater_equal<MemberId>()) == incoming.unreachable.end());
  auto it = std::lower_bound(rows_.begin(), rows_.end(), incoming.observer, observer_less);
  if (it == rows_.end() || it->observer != incoming.observer) {
    it = rows_.insert(it, incoming);
    WEFT_ASSERT(after_previous(rows_, it, row_less));
    WEFT_ASSERT(before_next(rows_, it, row_less));
    return true;
  }
  if (*it == incoming || wins(*it, incoming)) return false;
  // wins() is a total order per observer, so what does not lose wins: a
  // row only ever moves up, and older gossip cannot resurrect an entry.
  WEFT_ASSERT(wins(incoming, *it));
  *it = incoming;
  return true;
}

bool ReachabilityTable::merge(const ReachabilityTable& other) {
  bool changed = false;
  for (const ReachabilityRow& r : other.rows_) changed = merge(r) || changed;
  check_invariants();
  return changed;
}

void ReachabilityTable::check_invariants() const {
  WEFT_ASSERT(std::adjacent_find(rows_.begin(), rows_.end(), [](const ReachabilityRow& a, const ReachabilityRow& b) {
                return !row_less(a, b);
              }) == rows_.end());
  for (const ReachabilityRow& r : rows_) {
    WEFT_ASSERT(std::adjacent_find(r.unreachable.begin(), r.unreachable.end(), std::greater_equal<MemberId>()) ==
                r.unreachable.end());
  }
}

bool ReachabilityTable::is_unreachable(
    const MemberId& subject, const std::function<bool(const MemberId&)>& counts) const {
  for (const ReachabilityRow& r : rows_) {
    if (std::binary_search(r.unreachable.begin(), r.unreachable.end(), subject) && counts(r.observer)) {
      return true;
    }
  }
  return false;
}

bool ReachabilityTable::is_unreachable(const MemberId& subject) const {
  return is_unreachable(subject, [](const MemberId&) { return true; });
}

std::vector<MemberId> ReachabilityTable::observers_of(const MemberId& subject) const {
  std::vector<MemberId> observers;
  for (const ReachabilityRow& r : rows_) {
    if (std::binary_search(r.unreachable.begin(), r.unreachable.end(), subject)) {
      observers.push_back(r.observer);
    }
  }
  return observers;
}

std::size_t ReachabilityTable::prune(const std::function<bool(const MemberId&)>& gone,
                                     const MemberId& owner) {
  std::size_t dropped = static_cast<std::size_t>(
      std::erase_if(rows_, [&](const ReachabilityRow& r) { return gone(r.observer); }));
  const auto own = std::lower_bound(rows_.begin(), rows_.end(), owner, observer_less);
  if (own != rows_.end() && own->observer == owner) {
    const auto removed = static_cast<std::size_t>(std::erase_if(own->unreachable, gone));
    if (removed > 0) ++own->version;
    dropped += removed;
  }
  check_invariants();
  return dropped;
}

std::uint64_t ReachabilityTable::digest() const {
  std::uint64_t h = fingerprint_u64(1, rows_.size());
  for (const ReachabilityRow& r : rows_) {
    h = fingerprint_member_id(h, r.observer);
    h = fingerprint_u64(h, r.version);
    h = fingerprint_u64(h, r.unreachable.size());
    for (const MemberId& s : r.unreachable) h = fingerprint_member_id(h, s);
  }
  return h;
}

}  // namespace weft
