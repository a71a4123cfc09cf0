#include "kernel/membership/forgotten_lives.hpp"

#include <algorithm>

#include "kernel/assert.hpp"

namespace weft {

void ForgottenLives::remember(const MemberId& life) {
  if (capacity_ == 0) return;
  const auto [it, fresh] = pruned_.try_emplace(life.address, life.incarnation);
  if (!fresh) {
    it->second = std::max(it->second, life.incarnation);
  } else {
    order_.push_back(life.address);
    if (order_.size() > capacity_) {
      pruned_.erase(order_.front());
      order_.pop_front();
    }
  }
  check_invariants();
}

bool ForgottenLives::covers(const Member& record) const {
  const auto it = pruned_.find(record.address());
  return it != pruned_.end() && record.incarnation() <= it->second;
}

void ForgottenLives::forget(const NodeAddress& address) {
  if (pruned_.erase(address) == 0) return;
  order_.erase(std::find(order_.begin(), order_.end(), address));
  check_invariants();
}

void ForgottenLives::check_invariants() const {
  WEFT_ASSERT(pruned_.size() == order_.size());
  WEFT_ASSERT(pruned_.size() <= capacity_);
}

}  // namespace weft
