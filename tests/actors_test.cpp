// Goal: the mailbox is a bounded FIFO with named overflow policies that reuse
// their buffers, and the ask table completes each ask once, by reply, expiry
// or node failure, in a deterministic order.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernel/actors/ask_table.hpp"
#include "kernel/actors/mailbox.hpp"

namespace weft {
namespace {

Delivery message(std::uint32_t tag, const std::string& body, std::string_view sender = "s") {
  return Delivery{DeliveryKind::tell, ActorRefView{"10.0.0.2", 7000, sender}, 0, tag,
                  std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(body.data()), body.size())};
}

std::string body_of(const MailboxSlot& slot) {
  const Delivery d = slot.view();
  return std::string(reinterpret_cast<const char*>(d.body.data()), d.body.size());
}

TEST(Mailbox, FifoWithinCapacity) {
  Mailbox box(3, MailboxOverflow::reject_new);
  EXPECT_EQ(box.push(message(1, "a")), PushResult::queued);
  EXPECT_EQ(box.push(message(2, "bb")), PushResult::queued);
  EXPECT_EQ(box.push(message(3, "ccc")), PushResult::queued);
  EXPECT_EQ(box.push(message(4, "d")), PushResult::rejected);
  EXPECT_EQ(box.size(), 3u);
  MailboxSlot out;
  for (std::uint32_t tag = 1; tag <= 3; ++tag) {
    box.take(out);
    EXPECT_EQ(out.type_tag(), tag);
  }
  EXPECT_TRUE(box.empty());
}

TEST(Mailbox, DropOldestHandsBackTheDroppedMessage) {
  Mailbox box(2, MailboxOverflow::drop_oldest);
  box.push(message(1, "one"));
  box.push(message(2, "two"));
  MailboxSlot dropped;
  EXPECT_EQ(box.push(message(3, "three"), &dropped), PushResult::dropped_oldest);
  EXPECT_EQ(dropped.type_tag(), 1u);
  EXPECT_EQ(body_of(dropped), "one");
  ASSERT_EQ(box.size(), 2u);
  EXPECT_EQ(box.front().type_tag(), 2u);
}

TEST(Mailbox, SlotViewsCarryTheSenderAndBody) {
  Mailbox box(4, MailboxOverflow::reject_new);
  ASSERT_EQ(box.push(message(9, "payload", "producer-7")), PushResult::queued);
  const Delivery d = box.front().view();
  EXPECT_EQ(d.sender.host, "10.0.0.2");
  EXPECT_EQ(d.sender.port, 7000);
  EXPECT_EQ(d.sender.name, "producer-7");
  EXPECT_EQ(d.type_tag, 9u);
  EXPECT_EQ(body_of(box.front()), "payload");
}

TEST(Mailbox, WrapsAroundAndGrowsInOrder) {
  Mailbox box(200, MailboxOverflow::reject_new);
  MailboxSlot out;
  std::uint32_t next_in = 0;
  std::uint32_t next_out = 0;
  // Interleave pushes and takes so the ring wraps while it grows.
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 3; ++i) ASSERT_EQ(box.push(message(next_in++, "x")), PushResult::queued);
    box.take(out);
    EXPECT_EQ(out.type_tag(), next_out++);
  }
  while (!box.empty()) {
    box.take(out);
    EXPECT_EQ(out.type_tag(), next_out++);
  }
  EXPECT_EQ(next_out, next_in);
}

TEST(Mailbox, EmptySenderAndBody) {
  Mailbox box(1, MailboxOverflow::reject_new);
  ASSERT_EQ(box.push(Delivery{DeliveryKind::tell, {}, 0, 0, {}}), PushResult::queued);
  const Delivery d = box.front().view();
  EXPECT_TRUE(d.sender.empty());
  EXPECT_TRUE(d.body.empty());
}

TEST(AskTable, EachAskCompletesOnce) {
  AskTable table(8);
  const NodeAddress node{"10.0.0.3", 7000};
  const AskId a = table.add(Asker{}, node, Instant::from_ns(100));
  const AskId b = table.add(Asker{4}, node, Instant::from_ns(50));
  EXPECT_NE(a, b);
  ASSERT_TRUE(table.take(a).has_value());
  EXPECT_FALSE(table.take(a).has_value()) << "a second completion finds nothing";
  const auto expired = table.take_expired(Instant::from_ns(60));
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].id, b);
  EXPECT_EQ(expired[0].asker.actor, 4u);
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.next_deadline(), Instant::never());
}

TEST(AskTable, ExpiresInDeadlineOrderAndFailsByNode) {
  AskTable table(8);
  const NodeAddress x{"x", 1};
  const NodeAddress y{"y", 1};
  const AskId late = table.add(Asker{}, x, Instant::from_ns(300));
  const AskId early = table.add(Asker{}, y, Instant::from_ns(100));
  const AskId middle = table.add(Asker{}, x, Instant::from_ns(200));
  EXPECT_EQ(table.next_deadline(), Instant::from_ns(100));
  const auto on_x = table.take_for_node(x);
  ASSERT_EQ(on_x.size(), 2u);
  EXPECT_EQ(on_x[0].id, late);
  EXPECT_EQ(on_x[1].id, middle);
  const auto expired = table.take_expired(Instant::from_ns(1000));
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].id, early);
}

TEST(AskTable, IsBoundedAndRefusalsGetFreshIds) {
  AskTable table(2);
  const AskId a = table.add(Asker{}, NodeAddress{"x", 1}, Instant::from_ns(1));
  const AskId b = table.add(Asker{}, NodeAddress{"x", 1}, Instant::from_ns(1));
  EXPECT_TRUE(table.full());
  const AskId refused = table.refuse();
  EXPECT_NE(refused, a);
  EXPECT_NE(refused, b);
  EXPECT_FALSE(table.take(refused).has_value());
}

// A restarted node must not reuse its previous life's ask ids: a reply still
// queued for the old life would complete the new ask with the wrong answer
// (the sharded-counter example found this in simulation).
TEST(AskTableTest, LivesNumberTheirAsksFarApart) {
  std::vector<AskId> starts;
  for (std::uint64_t incarnation = 1; incarnation <= 2000; ++incarnation) {
    starts.push_back(first_ask_id(Incarnation{incarnation}));
    EXPECT_NE(starts.back(), 0u);
    EXPECT_LT(starts.back(), AskId{1} << 62);  // a life's ids never wrap
  }
  std::sort(starts.begin(), starts.end());
  for (std::size_t i = 1; i < starts.size(); ++i) {
    EXPECT_GT(starts[i] - starts[i - 1], AskId{1} << 32) << "two lives' first 2^32 asks would share ids";
  }
  AskTable table(4, first_ask_id(Incarnation{7}));
  EXPECT_EQ(table.add(Asker{}, NodeAddress{"x", 1}, Instant::from_ns(1)), first_ask_id(Incarnation{7}));
}

}  // namespace
}  // namespace weft
