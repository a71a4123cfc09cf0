// The entities' own timers (entity.hpp): each entity's by (key, tag), as an
// actor's are by (actor, tag) in kernel/actors/actor_timers.hpp, all on one
// region timer armed at the earliest. Starting a tag that is armed replaces
// it; a timer ends with its entity (stop() drops them), so none wakes an
// entity that stopped, and none moves with a handoff.
#include "shard/region.hpp"

namespace weft::shard {

void Region::start_entity_timer(Context& context, std::string_view key, std::uint32_t tag, Duration after) {
  const Instant at = context.now() + std::max(after, Duration::zero());
  auto [it, fresh] = entity_timers_.try_emplace({std::string(key), tag}, at);
  if (!fresh) {
    entity_timer_order_.erase({it->second, it->first.first, tag});
    it->second = at;
  }
  entity_timer_order_.insert({at, it->first.first, tag});
  arm_entity_timer(context);
}

void Region::cancel_entity_timer(Context& context, std::string_view key, std::uint32_t tag) {
  const auto it = entity_timers_.find({std::string(key), tag});
  if (it == entity_timers_.end()) return;
  entity_timer_order_.erase({it->second, it->first.first, tag});
  entity_timers_.erase(it);
  arm_entity_timer(context);
}

// The region timer may stay armed for a timer dropped here: it then fires,
// finds nothing due and arms for what is left.
void Region::drop_entity_timers(std::string_view key) {
  if (entity_timers_.empty()) return;  // every stop comes here: most regions start no timer
  auto it = entity_timers_.lower_bound({std::string(key), 0});
  while (it != entity_timers_.end() && it->first.first == key) {
    entity_timer_order_.erase({it->second, it->first.first, it->first.second});
    it = entity_timers_.erase(it);
  }
}

// Everything due fires, in (instant, key, tag) order; what the entities
// start meanwhile waits for the next round, even if due at once.
void Region::on_entity_timer(Context& context) {
  std::vector<std::pair<std::string, std::uint32_t>> due;
  while (!entity_timer_order_.empty() && std::get<0>(*entity_timer_order_.begin()) <= context.now()) {
    const auto& [at, key, tag] = *entity_timer_order_.begin();
    due.emplace_back(key, tag);
    entity_timers_.erase({key, tag});
    entity_timer_order_.erase(entity_timer_order_.begin());
  }
  for (const auto& [key, tag] : due) {
    const auto it = entities_.find(key);
    if (it != entities_.end()) deliver_timer(context, it, tag);
  }
  arm_entity_timer(context);
}

void Region::arm_entity_timer(Context& context) {
  if (entity_timer_order_.empty()) {
    context.cancel_timer(kEntityTimer);
    return;
  }
  const Instant earliest = std::get<0>(*entity_timer_order_.begin());
  context.start_timer(kEntityTimer, std::max(earliest - context.now(), Duration::zero()));
}

}  // namespace weft::shard
