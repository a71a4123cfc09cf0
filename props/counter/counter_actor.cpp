#include "props/counter/counter_actor.hpp"

namespace weft::counter {

std::size_t owner(std::uint64_t key, std::size_t nodes) {
  return static_cast<std::size_t>(key % nodes) + 1;
}

std::vector<std::uint8_t> encode_u64(std::uint64_t value) {
  std::vector<std::uint8_t> out(8);
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * i));
  return out;
}

std::optional<std::uint64_t> decode_u64(std::span<const std::uint8_t> body) {
  if (body.size() != 8) return std::nullopt;
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < 8; ++i) value |= std::uint64_t{body[i]} << (8 * i);
  return value;
}

std::uint64_t CounterShard::value(std::uint64_t key) const {
  const auto it = counts_.find(key);
  return it == counts_.end() ? 0 : it->second;
}

void CounterShard::receive(Context& context, const Delivery& message) {
  if (message.kind != DeliveryKind::ask) return;  // tells and completions: nothing to do
  const std::optional<std::uint64_t> key = decode_u64(message.body);
  if (!key || (message.type_tag != kIncrement && message.type_tag != kRead)) {
    context.reply(kBadRequest, {});
    return;
  }
  if (message.type_tag == kRead) {
    context.reply(kValue, encode_u64(value(*key)));
    return;
  }
  std::uint64_t& count = counts_[*key];
  if (flaw_ == Flaw::coalesce_same_instant) {
    const auto [last, first] = last_increment_.try_emplace(*key, context.now());
    const bool duplicate = !first && last->second == context.now();
    last->second = context.now();
    if (duplicate) {
      context.reply(kValue, encode_u64(count));  // acknowledged, not applied
      return;
    }
  }
  ++count;
  ++applied_;
  context.reply(kValue, encode_u64(count));
}

}  // namespace weft::counter
