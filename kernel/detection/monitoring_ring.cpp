// The monitoring ring's incremental rebuild and its two walks; the model is
// in monitoring_ring.hpp.
#include "kernel/detection/monitoring_ring.hpp"

#include <algorithm>
#include <iterator>

#include "kernel/assert.hpp"
#include "kernel/membership/in_step.hpp"
#include "kernel/membership/member_table.hpp"

namespace weft {

std::uint64_t MonitoringRing::key(const NodeAddress& address) {
  return fingerprint_u64(fingerprint_bytes(7, address.host.data(), address.host.size()), address.port);
}

void MonitoringRing::update(std::span<const Member> members, std::span<const MemberId> left_off) {
  // Most state changes leave the live members as they were: one walk tells.
  // Both walks go along left_off too (one walk each, both in id order).
  auto skip = left_off.begin();
  const auto on_ring = [&](const Member& m) {
    return is_live_status(m.status) && find_in_step(skip, left_off.end(), m.id) == nullptr;
  };
  std::size_t live = 0;
  auto member = members.begin();
  for (; member != members.end(); ++member) {
    if (!on_ring(*member)) continue;
    if (live >= ids_.size() || ids_[live] != member->id) break;
    ++live;
  }
  if (member == members.end() && live == ids_.size()) return;
  // The walk on from where the first one parted from ids_ (both in address
  // order; the live members before it are ids_'s first `live`) finds who
  // left and who came.
  std::vector<MemberId> gone;
  std::vector<Entry> added;
  auto old = ids_.begin() + static_cast<std::ptrdiff_t>(live);
  for (; member != members.end(); ++member) {
    const Member& m = *member;
    if (!on_ring(m)) continue;
    if (old != ids_.end() && *old == m.id) {  // the common case: still on the ring
      ++old;
      continue;
    }
    while (old != ids_.end() && *old < m.id) gone.push_back(*old++);
    if (old != ids_.end() && *old == m.id) {
      ++old;
    } else {
      added.emplace_back(key(m.address()), m.id);
    }
  }
  gone.insert(gone.end(), old, ids_.end());
  apply(std::move(gone), std::move(added));
  WEFT_ASSERT(ring_.size() == ids_.size());
}

namespace {

// Merges `added` (sorted, each projected to an element of `into`'s type,
// none equal to one in `into`) into the sorted `into` in place, from the
// back: the elements before the first insertion point never move, and no
// second vector is allocated. A join storm adds a few dozen members to a
// ring of a thousand per change.
template <class T, class Added, class Project>
void merge_from_the_back(std::vector<T>& into, const std::vector<Added>& added, Project project) {
  std::size_t old = into.size();
  std::size_t fresh = added.size();
  into.resize(old + fresh);
  for (std::size_t at = into.size(); fresh > 0;) {
    const T& next_fresh = project(added[fresh - 1]);
    if (old > 0 && next_fresh < into[old - 1]) {
      into[--at] = std::move(into[--old]);
    } else {
      into[--at] = next_fresh;
      --fresh;
    }
  }
}

}  // namespace

// Only the difference is hashed and sorted, then merged in: at a thousand
// members a full rebuild per change was a visible share of a run.
void MonitoringRing::apply(std::vector<MemberId>&& gone, std::vector<Entry>&& added) {
  const auto by_id = [](const Entry& a, const Entry& b) { return a.second < b.second; };
  WEFT_ASSERT(std::is_sorted(gone.begin(), gone.end()) && std::is_sorted(added.begin(), added.end(), by_id));
  if (!gone.empty()) {
    std::erase_if(ring_, [&](const Entry& entry) { return std::binary_search(gone.begin(), gone.end(), entry.second); });
    std::erase_if(ids_, [&](const MemberId& id) { return std::binary_search(gone.begin(), gone.end(), id); });
  }
  if (added.empty()) return;
  merge_from_the_back(ids_, added, [](const Entry& entry) -> const MemberId& { return entry.second; });  // address order
  std::sort(added.begin(), added.end());
  merge_from_the_back(ring_, added, [](const Entry& entry) -> const Entry& { return entry; });
}

std::vector<MemberId> MonitoringRing::neighbours(const MemberId& id, std::size_t k,
                                                std::span<const MemberId> unreachable, bool forward) const {
  WEFT_ASSERT(std::is_sorted(unreachable.begin(), unreachable.end()));
  std::vector<MemberId> found;
  const Entry entry{key(id.address), id};
  const auto at = std::lower_bound(ring_.begin(), ring_.end(), entry);
  if (at == ring_.end() || *at != entry) return found;  // not on the ring
  const std::size_t n = ring_.size();
  const std::size_t position = static_cast<std::size_t>(at - ring_.begin());
  std::size_t reachable = 0;
  // Never itself, never twice: at most the n - 1 others.
  for (std::size_t i = 1; i < n && reachable < k; ++i) {
    const MemberId& next = ring_[(position + (forward ? i : n - i)) % n].second;
    found.push_back(next);
    if (!std::binary_search(unreachable.begin(), unreachable.end(), next)) ++reachable;
  }
  WEFT_ASSERT(found.size() < n && reachable <= k);
  WEFT_ASSERT(found.size() >= std::min(k, n - 1));
  return found;
}

std::vector<MemberId> MonitoringRing::successors(const MemberId& id, std::size_t k,
                                                 std::span<const MemberId> unreachable) const {
  std::vector<MemberId> after = neighbours(id, k, unreachable, true);
  std::sort(after.begin(), after.end());
  WEFT_ASSERT(std::adjacent_find(after.begin(), after.end()) == after.end());
  return after;
}

std::vector<MemberId> MonitoringRing::predecessors(const MemberId& id, std::size_t k,
                                                   std::span<const MemberId> unreachable) const {
  return neighbours(id, k, unreachable, false);
}

}  // namespace weft
