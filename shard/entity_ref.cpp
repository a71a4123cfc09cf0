#include "shard/entity_ref.hpp"

#include <array>

#include "shard/envelope.hpp"

namespace weft::shard {

namespace {

// Hands `send` the envelope, encoded on the stack when it is small (most
// are: weft_bench_shard's 64 B body makes 85 B), so a send allocates
// nothing of its own; the kernel copies it either way. A bad key sends an
// empty body, which the region refuses.
template <class Send>
auto with_envelope(const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body, Send&& send) {
  if (!valid_key(entity.key)) return send(std::span<const std::uint8_t>{});
  const EntityMessage message{0, tag, entity.key, body};
  const std::size_t size = encoded_size(message);
  constexpr std::size_t kStackBytes = 512;
  if (size <= kStackBytes) {
    std::array<std::uint8_t, kStackBytes> stack;
    encode_to(message, std::span<std::uint8_t>(stack.data(), size));
    return send(std::span<const std::uint8_t>(stack.data(), size));
  }
  const std::vector<std::uint8_t> heap = encode(message);
  return send(std::span<const std::uint8_t>(heap));
}

}  // namespace

SendResult tell(Context& context, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body) {
  return with_envelope(entity, tag, body, [&](std::span<const std::uint8_t> envelope) {
    return context.tell(region_of(context.self().node, entity.kind), kEntityTag, envelope);
  });
}

AskId ask(Context& context, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body,
          Duration timeout) {
  return with_envelope(entity, tag, body, [&](std::span<const std::uint8_t> envelope) {
    return context.ask(region_of(context.self().node, entity.kind), kEntityTag, envelope, timeout);
  });
}

SendResult tell(Kernel& kernel, Instant now, const EntityRef& entity, std::uint32_t tag,
                std::span<const std::uint8_t> body) {
  return with_envelope(entity, tag, body, [&](std::span<const std::uint8_t> envelope) {
    return kernel.tell(now, region_of(kernel.self().address, entity.kind), kEntityTag, envelope);
  });
}

AskId ask(Kernel& kernel, Instant now, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body,
          Duration timeout) {
  return with_envelope(entity, tag, body, [&](std::span<const std::uint8_t> envelope) {
    return kernel.ask(now, region_of(kernel.self().address, entity.kind), kEntityTag, envelope, timeout);
  });
}

}  // namespace weft::shard
