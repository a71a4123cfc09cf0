#include "kernel/membership/tombstones.hpp"

#include <algorithm>

namespace weft {

std::vector<NodeAddress> Tombstones::due(Instant now, bool leads) const {
  const Duration keep = leads ? ttl_ : ttl_ + ttl_;
  std::vector<NodeAddress> out;
  for (const auto& [address, since] : since_) {
    if (now - since >= keep) out.push_back(address);
  }
  return out;
}

std::vector<NodeAddress> Tombstones::unheld_by_leader(Instant now, std::span<const NodeAddress> leaders,
                                                      const MemberTable& table) const {
  std::vector<NodeAddress> out;
  for (const auto& [address, since] : since_) {
    if (now - since < ttl_ / 2) continue;
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
