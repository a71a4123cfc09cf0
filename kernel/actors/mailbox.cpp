// The bounded mailbox (model in mailbox.hpp): slots that copy a delivery into
// one reused buffer, and the ring that grows up to its capacity and no further.
#include "kernel/actors/mailbox.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace weft {
namespace {

// Bodies up to this size keep their buffer across reuse; larger ones are
// released when the slot is next filled.
constexpr std::size_t kRetainedBodyBytes = 4096;

void reserve_for(std::vector<std::uint8_t>& data, std::size_t bytes) {
  if (data.capacity() > kRetainedBodyBytes && bytes <= kRetainedBodyBytes) {
    std::vector<std::uint8_t>().swap(data);
  }
  data.resize(bytes);
}

void copy_into(std::uint8_t* at, const void* from, std::size_t bytes) {
  if (bytes != 0) std::memcpy(at, from, bytes);
}

}  // namespace

void MailboxSlot::fill(const Delivery& message) {
  // The header keeps these lengths in 16 bits (refs bound them far lower).
  WEFT_ASSERT(message.sender.host.size() <= UINT16_MAX);
  WEFT_ASSERT(message.sender.name.size() <= UINT16_MAX);
  const auto host_bytes = static_cast<std::uint16_t>(message.sender.host.size());
  const auto name_bytes = static_cast<std::uint16_t>(message.sender.name.size());
  header_ = Header{message.correlation_id, message.type_tag, message.sender.port, host_bytes, name_bytes,
                   message.kind};
  reserve_for(data_, std::size_t{host_bytes} + name_bytes + message.body.size());
  std::uint8_t* at = data_.data();
  copy_into(at, message.sender.host.data(), host_bytes);
  copy_into(at + host_bytes, message.sender.name.data(), name_bytes);
  copy_into(at + host_bytes + name_bytes, message.body.data(), message.body.size());
}

void MailboxSlot::fill_completion(DeliveryKind kind, std::uint64_t correlation_id,
                                  std::uint32_t type_tag, std::span<const std::uint8_t> body) {
  WEFT_ASSERT(kind != DeliveryKind::tell && kind != DeliveryKind::ask);  // an outcome of an ask
  WEFT_ASSERT(correlation_id != 0);  // the ask's id, never 0, so the behaviour can match it
  fill(Delivery{kind, {}, correlation_id, type_tag, body});
}

Delivery MailboxSlot::view() const {
  const auto* chars = reinterpret_cast<const char*>(data_.data());
  const std::size_t sender_bytes = std::size_t{header_.host_bytes} + header_.name_bytes;
  WEFT_ASSERT(data_.size() >= sender_bytes);  // the header describes this slot's buffer
  return Delivery{header_.kind,
                  ActorRefView{std::string_view(chars, header_.host_bytes), header_.sender_port,
                               std::string_view(chars + header_.host_bytes, header_.name_bytes)},
                  header_.correlation_id, header_.type_tag,
                  std::span<const std::uint8_t>(data_.data() + sender_bytes, data_.size() - sender_bytes)};
}

Mailbox::Mailbox(std::uint32_t capacity, MailboxOverflow policy) : capacity_(capacity), policy_(policy) {
  WEFT_ASSERT(capacity > 0);
}

void Mailbox::grow() {
  WEFT_ASSERT(count_ == slots_.size());  // only a full ring grows
  WEFT_ASSERT(slots_.size() < capacity_);
  const auto new_size = static_cast<std::uint32_t>(
      std::min<std::size_t>(capacity_, std::max<std::size_t>(4, slots_.size() * 2)));
  std::vector<MailboxSlot> grown(new_size);
  for (std::uint32_t i = 0; i < count_; ++i) grown[i] = std::move(slots_[index(i)]);
  slots_.swap(grown);
  head_ = 0;
  WEFT_ASSERT(slots_.size() <= capacity_);  // memory never grows past `capacity` slots
  WEFT_ASSERT(slots_.size() > count_);      // room for the message that made it grow
}

PushResult Mailbox::push(const Delivery& message, MailboxSlot* dropped) {
  PushResult result = PushResult::queued;
  if (count_ == capacity_) {
    if (policy_ == MailboxOverflow::reject_new) return PushResult::rejected;
    if (dropped != nullptr) swap(*dropped, slots_[head_]);
    pop();
    result = PushResult::dropped_oldest;
  }
  if (count_ == slots_.size()) grow();
  WEFT_ASSERT(count_ < slots_.size());  // a free slot after the newest, not the head again
  slots_[index(count_)].fill(message);
  ++count_;
  WEFT_ASSERT(count_ <= capacity_);
  // Nothing is dropped but from a full mailbox, which is full again after.
  WEFT_ASSERT(result != PushResult::dropped_oldest || count_ == capacity_);
  return result;
}

const MailboxSlot& Mailbox::front() const {
  WEFT_ASSERT(count_ > 0);
  return slots_[head_];
}

void Mailbox::take(MailboxSlot& into) {
  WEFT_ASSERT(count_ > 0);
  into.take_from(slots_[head_]);
  pop();
}

void Mailbox::take_newest(MailboxSlot& into) {
  WEFT_ASSERT(count_ > 0);
  swap(into, slots_[index(count_ - 1)]);
  --count_;
}

void Mailbox::pop() {
  WEFT_ASSERT(count_ > 0);
  head_ = index(1);
  --count_;
}

}  // namespace weft
