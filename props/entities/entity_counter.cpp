#include "props/entities/entity_counter.hpp"

#include <charconv>
#include <memory>

namespace weft::entities {

void CounterEntity::receive(Context& context, const Delivery& message) {
  if (message.kind != DeliveryKind::ask && message.kind != DeliveryKind::tell) return;
  if (const auto add = Protocol::decode<Add>(message.type_tag, message.body); add && add->key == key_) {
    std::uint64_t& last = state_.last_seq[add->client];
    if (add->seq <= last && state_.breaks.size() < kMaxBreaks) {
      state_.breaks.push_back(OrderBreak{add->client, add->seq, last});
    }
    last = std::max(last, add->seq);
    ++state_.count;
    if (message.kind == DeliveryKind::ask) {
      (void)context.reply(Protocol::tag<Value>, Protocol::encode(Value{key_, state_.count}));
    }
    return;
  }
  if (message.kind != DeliveryKind::ask) return;  // a told Get or a bad tell: no one to answer
  if (const auto get = Protocol::decode<Get>(message.type_tag, message.body); get && get->key == key_) {
    (void)context.reply(Protocol::tag<Value>, Protocol::encode(Value{key_, state_.count}));
    return;
  }
  (void)context.reply(Protocol::tag<BadRequest>, Protocol::encode(BadRequest{"not an Add or a Get of this key"}));
}

bool CounterEntity::hand_over(std::vector<std::uint8_t>& state) {
  msgpack::sbuffer buffer;
  msgpack::pack(buffer, state_);
  state.assign(buffer.data(), buffer.data() + buffer.size());
  return true;
}

void CounterEntity::take_over(std::span<const std::uint8_t> state) {
  try {
    const msgpack::object_handle handle =
        msgpack::unpack(reinterpret_cast<const char*>(state.data()), state.size());
    handle.get().convert(state_);
  } catch (const std::exception&) {
    state_ = CounterState{};  // a state it cannot read: start fresh, as after a crash
  }
}

shard::EntityKind counter_kind(shard::Consistency consistency) {
  shard::EntityKind kind;
  kind.name = std::string(consistency == shard::Consistency::majority ? kMajorityKind : kKind);
  kind.consistency = consistency;
  kind.passivate_after = Duration::seconds(86'400);
  kind.make = [](std::string_view key) -> std::unique_ptr<shard::Entity> {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), value);
    if (error != std::errc{} || end != key.data() + key.size()) return nullptr;  // refused: no_entity
    return std::make_unique<CounterEntity>(value);
  };
  return kind;
}

}  // namespace weft::entities
