#include "shard/entity_ref.hpp"

#include "shard/envelope.hpp"

namespace weft::shard {

std::vector<std::uint8_t> entity_body(const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body) {
  if (!valid_key(entity.key)) return {};
  return encode(EntityMessage{0, tag, entity.key, body});
}

SendResult tell(Context& context, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body) {
  return context.tell(region_of(context.self().node, entity.kind), kEntityTag, entity_body(entity, tag, body));
}

AskId ask(Context& context, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body,
          Duration timeout) {
  return context.ask(region_of(context.self().node, entity.kind), kEntityTag, entity_body(entity, tag, body),
                     timeout);
}

SendResult tell(Kernel& kernel, Instant now, const EntityRef& entity, std::uint32_t tag,
                std::span<const std::uint8_t> body) {
  return kernel.tell(now, region_of(kernel.self().address, entity.kind), kEntityTag, entity_body(entity, tag, body));
}

AskId ask(Kernel& kernel, Instant now, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body,
          Duration timeout) {
  return kernel.ask(now, region_of(kernel.self().address, entity.kind), kEntityTag, entity_body(entity, tag, body),
                    timeout);
}

}  // namespace weft::shard
