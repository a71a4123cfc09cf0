// A context for calling Behavior::receive() without a kernel: a behaviour's
// unit test or a benchmark derives from it and says what self, now, tell,
// ask and reply do. What needs a kernel is absent: no members, nothing to
// forward to (invalid_target), timers that never fire; reply_to answers
// through reply(), as for the ask being handled.
#pragma once

#include "kernel/actors/behavior.hpp"

namespace weft {

class DetachedContext : public Context {
 public:
  std::span<const Member> members() const override { return {}; }
  SendResult forward(const ActorRef&, const Delivery&, std::uint32_t, std::span<const std::uint8_t>) override {
    return SendResult::invalid_target;
  }
  SendResult reply_to(const Delivery&, std::uint32_t type_tag, std::span<const std::uint8_t> body) override {
    return reply(type_tag, body);
  }
  void start_timer(std::uint32_t, Duration) override {}
  void cancel_timer(std::uint32_t) override {}
};

}  // namespace weft
