// Sending to an entity by identity, from an actor or from a driver: the
// message goes to this node's region of the kind, which forwards it to the
// owner (shard/region.hpp). Senders need not know where an entity lives.
//
// Two ways in: an EntityRef names kind and key per message; an Entities
// handle names the kind once (Akka's shardRegion ref) and sends by key, so
// a sender of many messages builds the region's ref once, not per message
// (weft_bench_shard's entity tells go through one).
//
// A tell to an entity on another node joins that node's batch
// (shard/entity_batch.hpp) and returns `sent` at once: a batch the kernel
// then refuses (the owner down, its link's queue full) is counted by the
// region, one forward_failed per tell, and not reported to the sender, as a
// tell lost on its way would not be.
//
// A key that is empty or longer than kMaxKeyBytes is not sent on as one: the
// region refuses the message (malformed), so an ask still completes once,
// answered with kRefusedTag.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "kernel/actors/behavior.hpp"
#include "kernel/kernel.hpp"

namespace weft::shard {

struct EntityRef {
  std::string kind;
  std::string key;
};

// The entities of one kind, reached through this node's region of it.
class Entities {
 public:
  Entities(const NodeAddress& self, std::string_view kind);

  SendResult tell(Context& context, std::string_view key, std::uint32_t tag,
                  std::span<const std::uint8_t> body) const;
  AskId ask(Context& context, std::string_view key, std::uint32_t tag, std::span<const std::uint8_t> body,
            Duration timeout) const;
  SendResult tell(Kernel& kernel, Instant now, std::string_view key, std::uint32_t tag,
                  std::span<const std::uint8_t> body) const;
  AskId ask(Kernel& kernel, Instant now, std::string_view key, std::uint32_t tag, std::span<const std::uint8_t> body,
            Duration timeout) const;

  const ActorRef& region() const { return region_; }

 private:
  ActorRef region_;
};

SendResult tell(Context& context, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body);
AskId ask(Context& context, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body,
          Duration timeout);
SendResult tell(Kernel& kernel, Instant now, const EntityRef& entity, std::uint32_t tag,
                std::span<const std::uint8_t> body);
AskId ask(Kernel& kernel, Instant now, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body,
          Duration timeout);

}  // namespace weft::shard
