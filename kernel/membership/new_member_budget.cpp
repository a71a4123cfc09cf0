#include "kernel/membership/new_member_budget.hpp"

#include "kernel/assert.hpp"

namespace weft {

std::uint32_t NewMemberBudget::left(const NodeAddress& peer, Instant now) {
  const auto it = windows_.find(peer);
  if (it == windows_.end()) return per_interval_;
  if (now - it->second.opened >= interval_) {
    windows_.erase(it);
    return per_interval_;
  }
  return per_interval_ - it->second.taken;
}

void NewMemberBudget::spend(const NodeAddress& peer, Instant now, std::uint32_t taken) {
  if (taken == 0) return;
  const auto [it, opened] = windows_.try_emplace(peer, Window{now, 0});
  if (!opened && now - it->second.opened >= interval_) it->second = Window{now, 0};
  WEFT_ASSERT(taken <= per_interval_ - it->second.taken);
  it->second.taken += taken;
}

void NewMemberBudget::expire(Instant now) {
  std::erase_if(windows_, [&](const auto& entry) { return now - entry.second.opened >= interval_; });
}

}  // namespace weft
