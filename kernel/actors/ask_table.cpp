// The pending-ask table (model in ask_table.hpp): where a life's ids start,
// the two indexes kept in step, and expiry in deadline order.
#include "kernel/actors/ask_table.hpp"

#include "kernel/prng.hpp"

namespace weft {

AskId first_ask_id(Incarnation incarnation) { return (mix64(incarnation.value) >> 2) | 1; }

AskId AskTable::add(Asker asker, NodeAddress target_node, Instant deadline) {
  WEFT_ASSERT(!full());
  const AskId id = next_id_++;
  by_deadline_.emplace(deadline, id);
  by_id_.emplace(id, PendingAsk{id, asker, std::move(target_node), deadline});
  return id;
}

std::optional<PendingAsk> AskTable::take(AskId id) {
  const auto it = by_id_.find(id);
  if (it == by_id_.end()) return std::nullopt;
  PendingAsk ask = std::move(it->second);
  by_id_.erase(it);
  by_deadline_.erase({ask.deadline, id});
  return ask;
}

void AskTable::restore(const PendingAsk& ask) {
  by_deadline_.emplace(ask.deadline, ask.id);
  by_id_.emplace(ask.id, ask);
}

std::vector<PendingAsk> AskTable::take_expired(Instant now) {
  std::vector<PendingAsk> expired;
  while (!by_deadline_.empty() && by_deadline_.begin()->first <= now) {
    const AskId id = by_deadline_.begin()->second;
    expired.push_back(*take(id));
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
