// The monitoring ring's incremental rebuild and its two walks; the model is
// in monitoring_ring.hpp.
#include "kernel/detection/monitoring_ring.hpp"

#include <algorithm>
#include <iterator>

#include "kernel/assert.hpp"
#include "kernel/membership/member_table.hpp"

namespace weft {

std::uint64_t MonitoringRing::key(const NodeAddress& address) {
  return fingerprint_u64(fingerprint_bytes(7, address.host.data(), address.host.size()), address.port);
}

void MonitoringRing::update(std::span<const Member> members) {
  // Most state changes leave the live members as they were: one walk tells.
  std::size_t live = 0;
  bool same = true;
  for (const Member& m : members) {
    if (!is_live_status(m.status)) continue;
    if (live >= ids_.size() || ids_[live] != m.id) {
      same = false;
      break;
    }
    ++live;
  }
  if (same && live == ids_.size()) return;
  // One walk of the live members against ids_ (both in address order)
  // finds who left and who came.
  std::vector<MemberId> gone;
  std::vector<Entry> added;
  auto old = ids_.begin();
  for (const Member& m : members) {
    if (!is_live_status(m.status)) continue;
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
  std::vector<MemberId> fresh;
  fresh.reserve(added.size());
  for (const Entry& entry : added) fresh.push_back(entry.second);  // address order
  std::vector<MemberId> ids;
  ids.reserve(ids_.size() + fresh.size());
  std::merge(std::make_move_iterator(ids_.begin()), std::make_move_iterator(ids_.end()),
             std::make_move_iterator(fresh.begin()), std::make_move_iterator(fresh.end()), std::back_inserter(ids));
  ids_.swap(ids);
  std::sort(added.begin(), added.end());
  std::vector<Entry> merged;
  merged.reserve(ring_.size() + added.size());
  std::merge(std::make_move_iterator(ring_.begin()), std::make_move_iterator(ring_.end()),
             std::make_move_iterator(added.begin()), std::make_move_iterator(added.end()), std::back_inserter(merged));
  ring_.swap(merged);
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
