#include "kernel/membership/dial_backs.hpp"

#include <iterator>

#include "kernel/assert.hpp"

namespace weft {

DialBacks::Wait DialBacks::wait(const MemberId& stranger, bool join, Instant deadline) {
  if (const auto it = waiting_.find(stranger); it != waiting_.end()) {
    it->second.join = it->second.join || join;
    return Wait::waiting;
  }
  if (waiting_.size() >= capacity_) return Wait::full;
  waiting_.emplace(stranger, Entry{deadline, join});
  WEFT_ASSERT(waiting_.size() <= capacity_);
  return Wait::started;
}

bool DialBacks::answered(const MemberId& life) {
  bool join = false;
  auto it = waiting_.lower_bound(MemberId{life.address, Incarnation{0}});
  while (it != waiting_.end() && it->first.address == life.address) {
    if (it->first == life) join = it->second.join;
    it = waiting_.erase(it);
  }
  WEFT_ASSERT(!awaits(life.address));
  return join;
}

void DialBacks::expire(Instant now) {
  std::erase_if(waiting_, [&](const auto& entry) { return entry.second.deadline <= now; });
}

bool DialBacks::awaits(const NodeAddress& address) const {
  const auto it = waiting_.lower_bound(MemberId{address, Incarnation{0}});
  return it != waiting_.end() && it->first.address == address;
}

}  // namespace weft
