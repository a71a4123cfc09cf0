// A bounded FIFO of messages for one actor (property S4).
//
// Capacity is fixed at construction; push() on a full mailbox follows the
// overflow policy and reports what it dropped, so the caller can turn it into
// a counted dead letter: nothing is ever dropped silently and memory never
// grows past `capacity` slots.
//
// Slots are reused in a ring and keep the capacity of their strings and body
// buffers, so a warm mailbox enqueues without allocating. A slot that held an
// unusually large body gives the memory back when it is reused, so the ring
// does not pin the largest body it ever saw in every slot.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kernel/actors/behavior.hpp"
#include "kernel/assert.hpp"
#include "kernel/config.hpp"

namespace weft {

// One queued message, owning copies of everything the delivery views. The
// sender's host and name and the body share one buffer, so a slot moves as
// three pointers and refills without allocating once warm; the rest is one
// small header, copied whole.
class MailboxSlot {
 public:
  // Copies `message` in, reusing this slot's buffer.
  void fill(const Delivery& message);
  // A completion of an ask: no sender, just the outcome and the reply.
  void fill_completion(DeliveryKind kind, std::uint64_t correlation_id, std::uint32_t type_tag,
                       std::span<const std::uint8_t> body);
  Delivery view() const;
  DeliveryKind kind() const { return header_.kind; }
  std::uint32_t type_tag() const { return header_.type_tag; }

  friend void swap(MailboxSlot& a, MailboxSlot& b) noexcept {
    std::swap(a.header_, b.header_);
    a.data_.swap(b.data_);
  }
  // Takes `from`'s message and leaves it this slot's buffer to reuse (a
  // swap that does not bother to hand the old header back).
  void take_from(MailboxSlot& from) noexcept {
    header_ = from.header_;
    data_.swap(from.data_);
  }

 private:
  struct Header {
    std::uint64_t correlation_id = 0;
    std::uint32_t type_tag = 0;
    std::uint16_t sender_port = 0;
    std::uint16_t host_bytes = 0;
    std::uint16_t name_bytes = 0;
    DeliveryKind kind = DeliveryKind::tell;
  };
  Header header_;
  std::vector<std::uint8_t> data_;  // sender host, sender name, body
};

enum class PushResult : std::uint8_t {
  queued,
  rejected,        // full, reject_new: the new message was not queued
  dropped_oldest,  // full, drop_oldest: queued, and the oldest was dropped
};

class Mailbox {
 public:
  Mailbox(std::uint32_t capacity, MailboxOverflow policy);

  std::uint32_t size() const { return count_; }
  std::uint32_t capacity() const { return capacity_; }
  bool empty() const { return count_ == 0; }

  // Copies `message` in. On dropped_oldest, `dropped` receives the evicted
  // message's kind and correlation id (an ask must still complete).
  PushResult push(const Delivery& message, MailboxSlot* dropped = nullptr);
  // The oldest message; the mailbox must not be empty. Valid until pop().
  const MailboxSlot& front() const;
  void pop();
  // Moves the oldest message into `into` (whose buffers the ring keeps, so
  // their capacity is reused) and pops it.
  void take(MailboxSlot& into);
  // Moves the newest message out instead (mutations.mailbox_lifo only).
  void take_newest(MailboxSlot& into);

 private:
  void grow();
  // The ring position `offset` places after the head (no division: this is
  // on every message's path).
  std::uint32_t index(std::uint32_t offset) const {
    const std::uint32_t at = head_ + offset;
    const auto size = static_cast<std::uint32_t>(slots_.size());
    return at >= size ? at - size : at;
  }

  std::uint32_t capacity_;
  MailboxOverflow policy_;
  std::vector<MailboxSlot> slots_;  // ring; grows by doubling up to capacity_
  std::uint32_t head_ = 0;
  std::uint32_t count_ = 0;
};

}  // namespace weft
