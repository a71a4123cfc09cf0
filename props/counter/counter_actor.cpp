#include "props/counter/counter_actor.hpp"

namespace weft::counter {

std::size_t owner(std::uint64_t key, std::size_t nodes) {
  return static_cast<std::size_t>(key % nodes) + 1;
}

CounterShard::CounterShard(Flaw flaw, Metrics* metrics) : flaw_(flaw) {
  if (metrics != nullptr) {
    applied_metric_ = &metrics->counter("counter_increments_applied_total", "increments this node's shard applied");
    keys_metric_ = &metrics->gauge("counter_keys", "keys this node's shard holds a count for");
    count_metric_ = &metrics->histogram("counter_count_at_increment", "the count an increment left", {1, 10, 100, 1000});
  }
  on<Increment>([this](Ctx& context, const Increment& message) { increment(context, message); });
  on<Read>([this](Ctx& context, const Read& message) {
    if (context.is_ask()) context.reply(Value{message.key, value(message.key)});
  });
  on_dead_letter([](Ctx& context, const typed::DeadLetter& letter) {
    if (context.is_ask()) context.reply(BadRequest{std::string(typed::to_string(letter.reason))});
  });
}

std::uint64_t CounterShard::value(std::uint64_t key) const {
  const auto it = counts_.find(key);
  return it == counts_.end() ? 0 : it->second;
}

void CounterShard::increment(Ctx& context, const Increment& message) {
  if (!context.is_ask()) return;  // an increment nobody acknowledges is not part of the protocol
  std::uint64_t& count = counts_[message.key];
  if (flaw_ == Flaw::coalesce_same_instant) {
    const auto [last, first] = last_increment_.try_emplace(message.key, context.now());
    const bool duplicate = !first && last->second == context.now();
    last->second = context.now();
    if (duplicate) {
      context.reply(Value{message.key, count});  // acknowledged, not applied
      return;
    }
  }
  ++count;
  ++applied_;
  if (applied_metric_ != nullptr) {
    applied_metric_->add();
    keys_metric_->set(static_cast<double>(counts_.size()));
    count_metric_->observe(static_cast<double>(count));
  }
  context.reply(Value{message.key, count});
}

}  // namespace weft::counter
