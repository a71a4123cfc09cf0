// Sending to an entity by identity, from an actor or from a driver: the
// message goes to this node's region of the kind, which forwards it to the
// owner (shard/region.hpp). Senders need not know where an entity lives.
//
// A key that is empty or longer than kMaxKeyBytes is not sent on as one: the
// region refuses the message (malformed), so an ask still completes once,
// answered with kRefusedTag.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "kernel/actors/behavior.hpp"
#include "kernel/kernel.hpp"

namespace weft::shard {

struct EntityRef {
  std::string kind;
  std::string key;
};

SendResult tell(Context& context, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body);
AskId ask(Context& context, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body,
          Duration timeout);
SendResult tell(Kernel& kernel, Instant now, const EntityRef& entity, std::uint32_t tag,
                std::span<const std::uint8_t> body);
AskId ask(Kernel& kernel, Instant now, const EntityRef& entity, std::uint32_t tag, std::span<const std::uint8_t> body,
          Duration timeout);

}  // namespace weft::shard
