#include "shard/entity_ref.hpp"

#include <array>
#include <optional>
#include <typeinfo>

#include "shard/envelope.hpp"
#include "shard/region.hpp"

namespace weft::shard {

namespace {

// Hands `send` the envelope, encoded on the stack when it is small (most
// are: weft_bench_shard's 64 B body makes 112 B stamped), so a send
// allocates nothing of its own; the kernel copies it either way.
template <class Send>
auto with_envelope(const EntityMessage& message, Send&& send) {
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

// One entity message from this node: numbered and routed by the node's
// region when the sender can reach it (Region::route_here), else sent to
// the region to number and route. A bad key sends an empty body, which the
// region refuses. `straight(region, routed)` sees a message routed straight
// to another node first: a tell may join that node's batch (its value
// then, and nothing more is sent), an ask sends the batch ahead of itself.
// `send(target, envelope, result)` sends, sets how it went and returns the
// send's value (a SendResult or an AskId).
template <class Straight, class Send>
auto send_entity(Behavior* local, const ActorRef& region_ref, std::span<const Member> members, std::string_view key,
                 std::uint32_t tag, std::span<const std::uint8_t> body, Straight&& straight, Send&& send) {
  SendResult result = SendResult::sent;
  if (!valid_key(key)) return send(region_ref, std::span<const std::uint8_t>{}, result);
  // Region is final: its type alone says the behaviour is one.
  Region* region = local != nullptr && typeid(*local) == typeid(Region) ? static_cast<Region*>(local) : nullptr;
  if (region == nullptr) {
    return with_envelope(EntityMessage{0, tag, key, body}, [&](std::span<const std::uint8_t> envelope) {
      return send(region_ref, envelope, result);
    });
  }
  const Region::LocalSend routed = region->route_here(region_ref, members, key, tag, body);
  if (routed.message.hops == 1) {
    if (const auto done = straight(*region, routed)) return *done;
  }
  const auto value = with_envelope(routed.message, [&](std::span<const std::uint8_t> envelope) {
    return send(*routed.to, envelope, result);
  });
  region->sent_here(routed, result);
  return value;
}

// What the region sends on a driver's behalf goes as the driver's own
// sends do (Region::ContextOutbox is an actor's).
class KernelOutbox final : public Region::Outbox {
 public:
  KernelOutbox(Kernel& kernel, Instant now) : kernel_(kernel), now_(now) {}
  SendResult tell(const ActorRef& to, std::uint32_t tag, std::span<const std::uint8_t> body) override {
    return kernel_.tell(now_, to, tag, body);
  }

 private:
  Kernel& kernel_;
  Instant now_;
};

// A tell routed straight joins its owner's batch.
auto batch_tell(Region::Outbox& out, const ActorRef& region_ref, std::string_view sender) {
  return [&out, &region_ref, sender](Region& region, const Region::LocalSend& routed) -> std::optional<SendResult> {
    if (region.batch(out, region_ref, routed, sender)) return SendResult::sent;
    return std::nullopt;
  };
}

// An ask routed straight sends its owner's batch ahead of itself.
auto batch_ahead(Region::Outbox& out) {
  return [&out](Region& region, const Region::LocalSend& routed) -> std::optional<AskId> {
    region.send_batch_ahead(out, *routed.to);
    return std::nullopt;
  };
}

}  // namespace

Entities::Entities(const NodeAddress& self, std::string_view kind) : region_(region_of(self, kind)) {}

SendResult Entities::tell(Context& context, std::string_view key, std::uint32_t tag,
                          std::span<const std::uint8_t> body) const {
  Region::ContextOutbox out(context);
  return send_entity(context.local_behavior(region_.name), region_, context.members(), key, tag, body,
                     batch_tell(out, region_, context.self().name),
                     [&](const ActorRef& to, std::span<const std::uint8_t> envelope, SendResult& result) {
                       return result = context.tell(to, kEntityTag, envelope);
                     });
}

AskId Entities::ask(Context& context, std::string_view key, std::uint32_t tag, std::span<const std::uint8_t> body,
                    Duration timeout) const {
  Region::ContextOutbox out(context);
  return send_entity(context.local_behavior(region_.name), region_, context.members(), key, tag, body,
                     batch_ahead(out),
                     [&](const ActorRef& to, std::span<const std::uint8_t> envelope, SendResult& result) {
                       return context.ask_reporting(to, kEntityTag, envelope, timeout, result);
                     });
}

SendResult Entities::tell(Kernel& kernel, Instant now, std::string_view key, std::uint32_t tag,
                          std::span<const std::uint8_t> body) const {
  KernelOutbox out(kernel, now);
  return send_entity(kernel.local_behavior(region_.name), region_, kernel.members().members(), key, tag, body,
                     batch_tell(out, region_, {}),
                     [&](const ActorRef& to, std::span<const std::uint8_t> envelope, SendResult& result) {
                       return result = kernel.tell(now, to, kEntityTag, envelope);
                     });
}

AskId Entities::ask(Kernel& kernel, Instant now, std::string_view key, std::uint32_t tag,
                    std::span<const std::uint8_t> body, Duration timeout) const {
  KernelOutbox out(kernel, now);
  return send_entity(kernel.local_behavior(region_.name), region_, kernel.members().members(), key, tag, body,
                     batch_ahead(out),
                     [&](const ActorRef& to, std::span<const std::uint8_t> envelope, SendResult& result) {
                       return kernel.ask(now, to, kEntityTag, envelope, timeout, &result);
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
