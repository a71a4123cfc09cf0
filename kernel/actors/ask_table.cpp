// The pending-ask table (model in ask_table.hpp): where a life's ids start,
// the two indexes kept in step, and expiry in deadline order.
#include "kernel/actors/ask_table.hpp"

#include "kernel/prng.hpp"

namespace weft {

AskId first_ask_id(Incarnation incarnation) {
  const AskId first = (mix64(incarnation.value) >> 2) | 1;
  // Below 2^62, so a life's ids never wrap to 0 (a tell's correlation id).
  WEFT_ASSERT(first < (AskId{1} << 62));
  return first;
}

AskId AskTable::add(Asker asker, NodeAddress target_node, Instant deadline) {
  WEFT_ASSERT(!full());
  // Every pending id was drawn before this one (restore() returns only
  // taken ones), so the fresh id collides with none.
  WEFT_ASSERT(by_id_.empty() || by_id_.rbegin()->first < next_id_);
  const AskId id = next_id_++;
  by_deadline_.emplace(deadline, id);
  by_id_.emplace(id, PendingAsk{id, asker, std::move(target_node), deadline});
  WEFT_ASSERT(by_deadline_.size() == by_id_.size());  // the two indexes hold the same asks
  return id;
}

std::optional<PendingAsk> AskTable::take(AskId id) {
  const auto it = by_id_.find(id);
  if (it == by_id_.end()) return std::nullopt;
  PendingAsk ask = std::move(it->second);
  WEFT_ASSERT(ask.id == id);  // filed under its own id
  by_id_.erase(it);
  const std::size_t erased = by_deadline_.erase({ask.deadline, id});
  // The two indexes hold the same asks: the deadline index had this one.
  WEFT_ASSERT(erased == 1);
  WEFT_ASSERT(by_deadline_.size() == by_id_.size());
  return ask;
}

void AskTable::restore(const PendingAsk& ask) {
  WEFT_ASSERT(ask.id < next_id_);  // an ask of this table
  const bool new_deadline = by_deadline_.emplace(ask.deadline, ask.id).second;
  const bool new_id = by_id_.emplace(ask.id, ask).second;
  // Only an ask taken out (and so not pending) goes back.
  WEFT_ASSERT(new_deadline);
  WEFT_ASSERT(new_id);
}

std::vector<PendingAsk> AskTable::take_expired(Instant now) {
  std::vector<PendingAsk> expired;
  while (!by_deadline_.empty() && by_deadline_.begin()->first <= now) {
    std::optional<PendingAsk> ask = take(by_deadline_.begin()->second);
    WEFT_ASSERT(ask.has_value());  // the indexes hold the same asks
    expired.push_back(std::move(*ask));
  }
  return expired;
}

std::vector<PendingAsk> AskTable::take_for_node(const NodeAddress& node) {
  std::vector<AskId> ids;
  for (const auto& [id, ask] : by_id_) {
    if (ask.target_node == node) ids.push_back(id);
  }
  std::vector<PendingAsk> taken;
  taken.reserve(ids.size());
  for (AskId id : ids) taken.push_back(*take(id));
  return taken;
}

Instant AskTable::next_deadline() const {
  return by_deadline_.empty() ? Instant::never() : by_deadline_.begin()->first;
}

}  // namespace weft
