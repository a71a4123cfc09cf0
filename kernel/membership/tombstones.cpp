#include "kernel/membership/tombstones.hpp"

#include <algorithm>

namespace weft {

std::vector<NodeAddress> Tombstones::due(Instant now, bool leads, Duration settle) const {
  const Duration keep = leads ? ttl_ : ttl_ + ttl_;
  std::vector<NodeAddress> out;
  for (const auto& [address, since] : since_) {
    if (now - since >= keep) out.push_back(address);
  }
  const std::size_t cap = leads ? cap_ : cap_ * 2;
  const std::size_t kept = since_.size() - out.size();
  if (kept > cap) {
    // The oldest of those kept, removal time then address: every node that
    // saw the removals in the same order drops the same ones.
    std::vector<std::pair<Instant, NodeAddress>> by_age;
    by_age.reserve(kept);
    for (const auto& [address, since] : since_) {
      if (now - since < keep && now - since >= settle) by_age.emplace_back(since, address);
    }
    const std::size_t drop = std::min(kept - cap, by_age.size());
    const auto cut = by_age.begin() + static_cast<std::ptrdiff_t>(drop);
    std::nth_element(by_age.begin(), cut, by_age.end());
    for (auto it = by_age.begin(); it != cut; ++it) out.push_back(it->second);
    std::sort(out.begin(), out.end());
  }
  return out;
}

std::vector<NodeAddress> Tombstones::unheld_by_leader(Instant now, std::span<const NodeAddress> leaders,
                                                      const MemberTable& table) const {
  std::vector<NodeAddress> out;
  const bool crowded = since_.size() > cap_;
  for (const auto& [address, since] : since_) {
    if (now - since < ttl_ / 2 && !crowded) continue;
    if (std::binary_search(leaders.begin(), leaders.end(), address)) continue;
    const Member* m = table.find(address);
    if (m == nullptr || m->status != MemberStatus::removed) continue;
    out.push_back(address);
  }
  return out;
}

void Tombstones::dropped(const NodeAddress& address, const Member* record, bool remember) {
  since_.erase(address);
  if (record != nullptr && record->status == MemberStatus::removed && remember) forgotten_.remember(record->id);
}

}  // namespace weft
