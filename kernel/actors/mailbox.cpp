#include "kernel/actors/mailbox.hpp"

#include <algorithm>
#include <utility>

namespace weft {
namespace {

// Bodies up to this size keep their buffer across reuse; larger ones are
// released when the slot is next filled.
constexpr std::size_t kRetainedBodyBytes = 4096;

void fill(MailboxSlot& slot, const Delivery& message) {
  slot.kind = message.kind;
  slot.sender_host.assign(message.sender.host);
  slot.sender_port = message.sender.port;
  slot.sender_name.assign(message.sender.name);
  slot.correlation_id = message.correlation_id;
  slot.type_tag = message.type_tag;
  if (slot.body.capacity() > kRetainedBodyBytes && message.body.size() <= kRetainedBodyBytes) {
    std::vector<std::uint8_t>().swap(slot.body);
  }
  slot.body.assign(message.body.begin(), message.body.end());
}

}  // namespace

Mailbox::Mailbox(std::uint32_t capacity, MailboxOverflow policy) : capacity_(capacity), policy_(policy) {
  WEFT_ASSERT(capacity > 0);
}

void Mailbox::grow() {
  const auto new_size = static_cast<std::uint32_t>(
      std::min<std::size_t>(capacity_, std::max<std::size_t>(4, slots_.size() * 2)));
  std::vector<MailboxSlot> grown(new_size);
  for (std::uint32_t i = 0; i < count_; ++i) {
    grown[i] = std::move(slots_[(head_ + i) % slots_.size()]);
  }
  slots_.swap(grown);
  head_ = 0;
}

PushResult Mailbox::push(const Delivery& message, MailboxSlot* dropped) {
  PushResult result = PushResult::queued;
  if (count_ == capacity_) {
    if (policy_ == MailboxOverflow::reject_new) return PushResult::rejected;
    if (dropped != nullptr) std::swap(*dropped, slots_[head_]);
    pop();
    result = PushResult::dropped_oldest;
  }
  if (count_ == slots_.size()) grow();
  const auto size = static_cast<std::uint32_t>(slots_.size());
  fill(slots_[(head_ + count_) % size], message);
  ++count_;
  WEFT_ASSERT(count_ <= capacity_);
  return result;
}

const MailboxSlot& Mailbox::front() const {
  WEFT_ASSERT(count_ > 0);
  return slots_[head_];
}

void Mailbox::take(MailboxSlot& into) {
  WEFT_ASSERT(count_ > 0);
  std::swap(into, slots_[head_]);
  pop();
}

void Mailbox::pop() {
  WEFT_ASSERT(count_ > 0);
  head_ = (head_ + 1) % static_cast<std::uint32_t>(slots_.size());
  --count_;
}

}  // namespace weft
