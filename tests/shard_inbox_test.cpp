// Goal: a shard's inbox (shard/shard_inbox.hpp) hands messages on in each
// source's order across a move: in-order messages at once, a gap held until
// it fills or has waited long enough, late ones named, a wait for a handoff
// keeping everything in arrival order, and a handover giving all it kept.
#include "shard/shard_inbox.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace weft::shard {
namespace {

const Source kA{"10.0.0.1", 7000, 1};
const Source kB{"10.0.0.2", 7000, 1};

Instant at_ms(std::int64_t ms) { return Instant::from_ns(ms * 1'000'000); }

MailboxSlot slot(std::uint32_t tag) {
  MailboxSlot s;
  s.fill(Delivery{DeliveryKind::tell, {}, 0, tag, {}});
  return s;
}

std::vector<std::uint32_t> tags(const std::vector<MailboxSlot>& slots) {
  std::vector<std::uint32_t> out;
  for (const MailboxSlot& s : slots) out.push_back(s.type_tag());
  return out;
}

TEST(ShardInbox, InOrderAtOnceAGapHeldUntilItFills) {
  ShardInbox inbox;
  EXPECT_EQ(inbox.admit(kA, 5), ShardInbox::Admit::now);  // first contact: starts at 5
  EXPECT_EQ(inbox.admit(kA, 6), ShardInbox::Admit::now);
  EXPECT_EQ(inbox.admit(kA, 8), ShardInbox::Admit::hold);
  MailboxSlot eight = slot(8);
  ASSERT_TRUE(inbox.hold(kA, 8, eight, at_ms(0)));
  MailboxSlot again = slot(8);
  EXPECT_FALSE(inbox.hold(kA, 8, again, at_ms(0)));  // a duplicate number
  EXPECT_EQ(inbox.admit(kB, 1), ShardInbox::Admit::now);  // sources are independent
  std::vector<MailboxSlot> ready, late;
  inbox.take_ready(ready, late);
  EXPECT_TRUE(ready.empty());  // 7 is missing
  EXPECT_EQ(inbox.admit(kA, 7), ShardInbox::Admit::now);
  inbox.take_ready(ready, late);
  EXPECT_EQ(tags(ready), (std::vector<std::uint32_t>{8}));
  EXPECT_TRUE(late.empty());
  EXPECT_EQ(inbox.admit(kA, 6), ShardInbox::Admit::late);
  EXPECT_EQ(inbox.numbering().at(kA), 9u);
}

TEST(ShardInbox, AGapOpenForTheWaitIsSkipped) {
  ShardInbox inbox;
  ASSERT_EQ(inbox.admit(kA, 1), ShardInbox::Admit::now);
  for (std::uint32_t n : {3u, 4u, 6u}) {
    MailboxSlot s = slot(n);
    ASSERT_TRUE(inbox.hold(kA, n, s, at_ms(100)));
  }
  const Duration wait = Duration::milliseconds(500);
  EXPECT_EQ(inbox.next_gap_deadline(wait), at_ms(600));
  std::vector<MailboxSlot> ready, late;
  inbox.skip_gaps(at_ms(599), wait);
  inbox.take_ready(ready, late);
  EXPECT_TRUE(ready.empty());
  inbox.skip_gaps(at_ms(600), wait);  // 2 is given up on; 5 then is a gap of its own
  inbox.take_ready(ready, late);
  EXPECT_EQ(tags(ready), (std::vector<std::uint32_t>{3, 4}));
  EXPECT_EQ(inbox.kept(), 1u);
  EXPECT_EQ(inbox.admit(kA, 2), ShardInbox::Admit::late);
}

TEST(ShardInbox, AWaitKeepsArrivalOrderAndTakesTheHandedNumbering) {
  ShardInbox inbox;
  inbox.await_handoff(NodeAddress{"10.0.0.9", 7000}, at_ms(1000));
  ASSERT_TRUE(inbox.awaiting());
  for (std::uint32_t n : {12u, 11u, 30u}) {
    MailboxSlot s = slot(n);
    inbox.keep_waiting(s);
  }
  EXPECT_EQ(inbox.kept(), 3u);
  // The old owner had handed on A's messages up to 10; B is new here.
  std::deque<MailboxSlot> kept = inbox.end_wait({{kA, 11}});
  EXPECT_FALSE(inbox.awaiting());
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0].type_tag(), 12u);  // arrival order: the region offers them again
  EXPECT_EQ(inbox.admit(kA, 12), ShardInbox::Admit::hold);  // 11 must come first
  EXPECT_EQ(inbox.admit(kA, 11), ShardInbox::Admit::now);
  EXPECT_EQ(inbox.admit(kA, 10), ShardInbox::Admit::late);  // the old owner handed it on
}

TEST(ShardInbox, AHandoverGivesEverythingKeptAndAMergeTakesTheLater) {
  ShardInbox inbox;
  ASSERT_EQ(inbox.admit(kA, 1), ShardInbox::Admit::now);
  MailboxSlot three = slot(3);
  ASSERT_TRUE(inbox.hold(kA, 3, three, at_ms(0)));
  std::vector<MailboxSlot> messages;
  const ShardInbox::Numbering numbering = inbox.hand_over(messages);
  EXPECT_EQ(numbering.at(kA), 2u);
  EXPECT_EQ(tags(messages), (std::vector<std::uint32_t>{3}));
  EXPECT_TRUE(inbox.empty());

  ShardInbox other;
  ASSERT_EQ(other.admit(kA, 7), ShardInbox::Admit::now);  // next 8
  MailboxSlot five = slot(5);
  ASSERT_EQ(other.admit(kB, 1), ShardInbox::Admit::now);
  ASSERT_TRUE(other.hold(kB, 5, five, at_ms(0)));
  other.merge({{kA, 2}, {kB, 6}});  // A stays at 8; B moves past its held 5
  EXPECT_EQ(other.numbering().at(kA), 8u);
  std::vector<MailboxSlot> ready, late;
  other.take_ready(ready, late);
  EXPECT_TRUE(ready.empty());
  EXPECT_EQ(tags(late), (std::vector<std::uint32_t>{5}));
  other.forget_sources([](const Source& s) { return s == kA; });
  EXPECT_EQ(other.numbering().count(kA), 0u);
}

}  // namespace
}  // namespace weft::shard
