// The reachability table (merge laws in reachability.hpp): an observer's own
// marks, merging rows, queries, pruning and the digest.
#include "kernel/membership/reachability.hpp"

#include <algorithm>

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

}  // namespace

const ReachabilityRow* ReachabilityTable::row(const MemberId& observer) const {
  const auto it = std::lower_bound(rows_.begin(), rows_.end(), observer, observer_less);
  return it != rows_.end() && it->observer == observer ? &*it : nullptr;
}

ReachabilityRow& ReachabilityTable::row_for(const MemberId& observer) {
  auto it = std::lower_bound(rows_.begin(), rows_.end(), observer, observer_less);
  if (it == rows_.end() || it->observer != observer) {
    it = rows_.insert(it, ReachabilityRow{observer, 0, {}});
  }
  return *it;
}

bool ReachabilityTable::mark_unreachable(const MemberId& observer, const MemberId& subject) {
  ReachabilityRow& r = row_for(observer);
  const auto it = std::lower_bound(r.unreachable.begin(), r.unreachable.end(), subject);
  if (it != r.unreachable.end() && *it == subject) return false;
  r.unreachable.insert(it, subject);
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
  ++r.version;
  return true;
}

bool ReachabilityTable::merge(const ReachabilityRow& incoming) {
  auto it = std::lower_bound(rows_.begin(), rows_.end(), incoming.observer, observer_less);
  if (it == rows_.end() || it->observer != incoming.observer) {
    rows_.insert(it, incoming);
    return true;
  }
  if (*it == incoming || wins(*it, incoming)) return false;
  *it = incoming;
  return true;
}

bool ReachabilityTable::merge(const ReachabilityTable& other) {
  bool changed = false;
  for (const ReachabilityRow& r : other.rows_) changed = merge(r) || changed;
  return changed;
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
