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
auto with_envelope(std::string_view key, std::uint32_t tag, std::span<const std::uint8_t> body, Send&& send) {
  if (!valid_key(key)) return send(std::span<const std::uint8_t>{});
  const EntityMessage message{0, tag, key, body};
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

Entities::Entities(const NodeAddress& self, std::string_view kind) : region_(region_of(self, kind)) {}

SendResult Entities::tell(Context& context, std::string_view key, std::uint32_t tag,
                          std::span<const std::uint8_t> body) const {
  return with_envelope(key, tag, body, [&](std::span<const std::uint8_t> envelope) {
    return context.tell(region_, kEntityTag, envelope);
  });
}

AskId Entities::ask(Context& context, std::string_view key, std::uint32_t tag, std::span<const std::uint8_t> body,
                    Duration timeout) const {
  return with_envelope(key, tag, body, [&](std::span<const std::uint8_t> envelope) {
    return context.ask(region_, kEntityTag, envelope, timeout);
  });
}

SendResult Entities::tell(Kernel& kernel, Instant now, std::string_view key, std::uint32_t tag,
                          std::span<const std::uint8_t> body) const {
  return with_envelope(key, tag, body, [&](std::span<const std::uint8_t> envelope) {
    return kernel.tell(now, region_, kEntityTag, envelope);
  });
}

AskId Entities::ask(Kernel& kernel, Instant now, std::string_view key, std::uint32_t tag,
                    std::span<const std::uint8_t> body, Duration timeout) const {
  return with_envelope(key, tag, body, [&](std::span<const std::uint8_t> envelope) {
    return kernel.ask(now, region_, kEntityTag, envelope, timeout);
  });
}

SendResult tell(Context& context, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body) {
  return Entities(context.self().node, entity.kind).tell(context, entity.key, tag, body);
}

AskId ask(Context& context, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body,
          Duration timeout) {
  return Entities(context.self().node, entity.kind).ask(context, entity.key, tag, body, timeout);
}

SendResult tell(Kernel& kernel, Instant now, const EntityRef& entity, std::uint32_t tag,
                std::span<const std::uint8_t> body) {
  return Entities(kernel.self().address, entity.kind).tell(kernel, now, entity.key, tag, body);
}

AskId ask(Kernel& kernel, Instant now, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body,
          Duration timeout) {
  return Entities(kernel.self().address, entity.kind).ask(kernel, now, entity.key, tag, body, timeout);
}

}  // namespace weft::shard
