// Goal: tell and ask behave as documented (docs/messaging.md) on real
// kernels: local refs short-circuit the wire, remote asks complete exactly
// once with reply, timeout or target-down, per-pair order holds, mailboxes
// stay bounded with counted overflow, and dispatch is fair.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kernel_harness.hpp"

namespace weft::testing {
namespace {

struct Received {
  DeliveryKind kind;
  std::string sender;
  std::uint64_t correlation_id;
  std::uint32_t type_tag;
  std::string body;
};

std::span<const std::uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// Records every delivery; replies to asks with "re:" + body unless mute.
class Recorder final : public Behavior {
 public:
  explicit Recorder(std::shared_ptr<std::vector<Received>> log, bool mute = false)
      : log_(std::move(log)), mute_(mute) {}
  void receive(Context& context, const Delivery& m) override {
    log_->push_back(Received{m.kind, std::string(m.sender.name), m.correlation_id, m.type_tag,
                             std::string(reinterpret_cast<const char*>(m.body.data()), m.body.size())});
    if (m.kind == DeliveryKind::ask && !mute_) {
      const std::string answer = "re:" + log_->back().body;
      context.reply(m.type_tag + 1, bytes(answer));
    }
  }

 private:
  std::shared_ptr<std::vector<Received>> log_;
  bool mute_;
};

// On any tell, asks `target` and records the completion it gets back.
class Asker final : public Behavior {
 public:
  Asker(ActorRef target, std::shared_ptr<std::vector<Received>> log) : target_(std::move(target)), log_(std::move(log)) {}
  void receive(Context& context, const Delivery& m) override {
    if (m.kind == DeliveryKind::tell) {
      context.ask(target_, 7, m.body, Duration::seconds(2));
      return;
    }
    log_->push_back(Received{m.kind, std::string(m.sender.name), m.correlation_id, m.type_tag,
                             std::string(reinterpret_cast<const char*>(m.body.data()), m.body.size())});
  }

 private:
  ActorRef target_;
  std::shared_ptr<std::vector<Received>> log_;
};

std::vector<AskCompleted> completions(Harness& h, std::size_t i) {
  std::vector<AskCompleted> out;
  (void)h.count_events(i, [&](const Event& e) {
    if (const auto* c = std::get_if<AskCompleted>(&e)) out.push_back(*c);
    return false;
  });
  return out;
}

Harness joined(std::size_t n, const std::function<void(Config&)>& tune = {}) {
  Harness h(n, tune);
  h.advance(Duration::seconds(3));
  return h;
}

TEST(Messaging, LocalTellNeverTouchesTheWire) {
  Harness h = joined(2);
  auto log = std::make_shared<std::vector<Received>>();
  const ActorRef echo = h.node(1).spawn(h.now(), "echo", std::make_unique<Recorder>(log));
  const std::uint64_t frames_before = h.node(1).counters().frames_out;
  const std::uint64_t queued_before = h.node(1).outbound_bytes_queued(h.address(2));
  EXPECT_EQ(h.node(1).tell(h.now(), echo, 1, bytes("hello")), SendResult::sent);
  EXPECT_EQ(h.node(1).counters().frames_out, frames_before);  // S5
  EXPECT_EQ(h.node(1).outbound_bytes_queued(h.address(2)), queued_before);
  h.advance(Duration::milliseconds(20));
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].body, "hello");
  EXPECT_EQ((*log)[0].sender, "");  // a tell from outside any actor
}

// Goal: the slot a ref from spawn carries is only a hint: a ref edited after
// spawn, or used on another node whose slot holds another actor, reaches the
// actor its address and name denote, or none.
TEST(Messaging, ASpawnSlotIsOnlyAHint) {
  Harness h = joined(2);
  auto log_a = std::make_shared<std::vector<Received>>();
  auto log_b = std::make_shared<std::vector<Received>>();
  auto log_c = std::make_shared<std::vector<Received>>();
  const ActorRef a = h.node(1).spawn(h.now(), "a", std::make_unique<Recorder>(log_a));
  (void)h.node(1).spawn(h.now(), "b", std::make_unique<Recorder>(log_b));
  const ActorRef c = h.node(2).spawn(h.now(), "c", std::make_unique<Recorder>(log_c));
  ASSERT_EQ(a.local_slot, c.local_slot);  // the same slot on two nodes
  EXPECT_EQ((ActorRef{a.node, a.name}), a);  // comparisons ignore the hint

  ActorRef renamed = a;
  renamed.name = "b";
  EXPECT_EQ(h.node(1).tell(h.now(), renamed, 1, bytes("to b")), SendResult::sent);
  ActorRef ghost = a;
  ghost.name = "ghost";
  EXPECT_EQ(h.node(1).tell(h.now(), ghost, 1, bytes("to nobody")), SendResult::unknown_actor);
  // Node 1's ref to "a", readdressed to node 2, where its slot holds "c".
  ActorRef readdressed = a;
  readdressed.node = h.address(2);
  EXPECT_EQ(h.node(2).tell(h.now(), readdressed, 1, bytes("to nobody")), SendResult::unknown_actor);
  // Node 1's own ref, used on node 2: remote, to node 1's "a".
  EXPECT_EQ(h.node(2).tell(h.now(), a, 1, bytes("to a")), SendResult::sent);
  h.advance(Duration::milliseconds(50));

  ASSERT_EQ(log_a->size(), 1u);
  EXPECT_EQ((*log_a)[0].body, "to a");
  ASSERT_EQ(log_b->size(), 1u);
  EXPECT_EQ((*log_b)[0].body, "to b");
  EXPECT_TRUE(log_c->empty());
}

TEST(Messaging, RemoteAskCompletesOnceWithTheReply) {
  Harness h = joined(3);
  auto log = std::make_shared<std::vector<Received>>();
  const ActorRef echo = h.node(1).spawn(h.now(), "echo", std::make_unique<Recorder>(log));
  const AskId id = h.node(3).ask(h.now(), echo, 41, bytes("ping"), Duration::seconds(1));
  h.advance(Duration::seconds(2));
  const auto done = completions(h, 3);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].id, id);
  EXPECT_EQ(done[0].outcome, AskOutcome::reply);
  EXPECT_EQ(done[0].type_tag, 42u);
  EXPECT_EQ(std::string(done[0].body.begin(), done[0].body.end()), "re:ping");
  EXPECT_EQ(h.node(3).pending_asks(), 0u);
}

TEST(Messaging, ActorToActorAskAcrossNodes) {
  Harness h = joined(2);
  auto echo_log = std::make_shared<std::vector<Received>>();
  auto asker_log = std::make_shared<std::vector<Received>>();
  const ActorRef echo = h.node(1).spawn(h.now(), "echo", std::make_unique<Recorder>(echo_log));
  const ActorRef asker = h.node(2).spawn(h.now(), "asker", std::make_unique<Asker>(echo, asker_log));
  h.node(2).tell(h.now(), asker, 0, bytes("go"));
  h.advance(Duration::seconds(1));
  ASSERT_EQ(echo_log->size(), 1u);
  EXPECT_EQ((*echo_log)[0].kind, DeliveryKind::ask);
  EXPECT_EQ((*echo_log)[0].sender, "asker");
  ASSERT_EQ(asker_log->size(), 1u);
  EXPECT_EQ((*asker_log)[0].kind, DeliveryKind::reply);
  EXPECT_EQ((*asker_log)[0].body, "re:go");
  EXPECT_EQ((*asker_log)[0].correlation_id, (*echo_log)[0].correlation_id);
}

TEST(Messaging, UnansweredAskTimesOutOnceAndALateReplyIsADeadLetter) {
  Harness h = joined(2);
  auto log = std::make_shared<std::vector<Received>>();
  const ActorRef mute = h.node(1).spawn(h.now(), "mute", std::make_unique<Recorder>(log, true));
  const AskId id = h.node(2).ask(h.now(), mute, 1, bytes("?"), Duration::milliseconds(300));
  h.advance(Duration::seconds(2));
  const auto done = completions(h, 2);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].id, id);
  EXPECT_EQ(done[0].outcome, AskOutcome::timeout);

  // A reply held up past the timeout arrives to find the ask gone.
  const ActorRef echo = h.node(1).spawn(h.now(), "echo", std::make_unique<Recorder>(log));
  h.cut(1, 2);
  h.node(2).ask(h.now(), echo, 1, bytes("slow"), Duration::milliseconds(200));
  h.advance(Duration::milliseconds(400));
  h.restore(1, 2);
  h.advance(Duration::milliseconds(100));
  const auto all = completions(h, 2);
  ASSERT_EQ(all.size(), 2u) << "still exactly one completion per ask";
  EXPECT_EQ(all[1].outcome, AskOutcome::timeout);
  EXPECT_EQ(h.node(2).counters().dead_letters[static_cast<std::size_t>(DeadLetterReason::late_reply)], 1u);
}

TEST(Messaging, AskToACrashedMemberCompletesTargetDown) {
  Harness h = joined(3);
  auto log = std::make_shared<std::vector<Received>>();
  const ActorRef mute = h.node(3).spawn(h.now(), "mute", std::make_unique<Recorder>(log, true));
  h.crash(3);
  const AskId id = h.node(1).ask(h.now(), mute, 1, bytes("?"), Duration::seconds(60));
  h.advance(Duration::seconds(15));
  const auto done = completions(h, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].id, id);
  EXPECT_EQ(done[0].outcome, AskOutcome::target_down);  // S3: long before its 60 s timeout
  // Once down, a send fails fast.
  EXPECT_EQ(h.node(1).tell(h.now(), mute, 1, bytes("x")), SendResult::member_down);
  const AskId late = h.node(1).ask(h.now(), mute, 1, bytes("?"), Duration::seconds(60));
  h.advance(Duration::milliseconds(10));
  const auto after = completions(h, 1);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[1].id, late);
  EXPECT_EQ(after[1].outcome, AskOutcome::target_down);
}

TEST(Messaging, PerPairOrderHoldsAcrossTheWire) {
  Harness h = joined(2);
  auto log = std::make_shared<std::vector<Received>>();
  const ActorRef sink = h.node(1).spawn(h.now(), "sink", std::make_unique<Recorder>(log));
  for (int i = 0; i < 500; ++i) {
    ASSERT_EQ(h.node(2).tell(h.now(), sink, static_cast<std::uint32_t>(i), bytes(std::to_string(i))),
              SendResult::sent);
    if (i % 50 == 0) h.advance(Duration::milliseconds(1), Duration::milliseconds(1));
  }
  h.advance(Duration::seconds(1));
  ASSERT_EQ(log->size(), 500u);
  for (std::size_t i = 0; i < log->size(); ++i) EXPECT_EQ((*log)[i].type_tag, i);  // S1: FIFO, no duplicates
}

TEST(Messaging, FullMailboxRejectsAndCounts) {
  Harness h = joined(1, [](Config& c) { c.mailbox_capacity = 4; });
  auto log = std::make_shared<std::vector<Received>>();
  const ActorRef small = h.node(1).spawn(h.now(), "small", std::make_unique<Recorder>(log));
  int rejected = 0;
  for (int i = 0; i < 10; ++i) {
    if (h.node(1).tell(h.now(), small, static_cast<std::uint32_t>(i), bytes("x")) == SendResult::mailbox_full) {
      ++rejected;
    }
    EXPECT_LE(h.node(1).mailbox_size("small"), 4u);  // S4
  }
  EXPECT_EQ(rejected, 6);
  EXPECT_EQ(h.node(1).counters().dead_letters[static_cast<std::size_t>(DeadLetterReason::mailbox_full)], 6u);
  h.advance(Duration::milliseconds(20));
  ASSERT_EQ(log->size(), 4u);
  EXPECT_EQ((*log)[3].type_tag, 3u);  // reject_new keeps the oldest
}

TEST(Messaging, DropOldestKeepsTheNewest) {
  Harness h = joined(1, [](Config& c) {
    c.mailbox_capacity = 4;
    c.mailbox_overflow = MailboxOverflow::drop_oldest;
  });
  auto log = std::make_shared<std::vector<Received>>();
  const ActorRef small = h.node(1).spawn(h.now(), "small", std::make_unique<Recorder>(log));
  for (int i = 0; i < 10; ++i) h.node(1).tell(h.now(), small, static_cast<std::uint32_t>(i), bytes("x"));
  h.advance(Duration::milliseconds(20));
  ASSERT_EQ(log->size(), 4u);
  EXPECT_EQ((*log)[0].type_tag, 6u);
  EXPECT_EQ(h.node(1).counters().dead_letters[static_cast<std::size_t>(DeadLetterReason::mailbox_full)], 6u);
}

TEST(Messaging, OneBusyActorDoesNotStarveAnother) {
  Harness h = joined(1, [](Config& c) {
    c.mailbox_capacity = 100'000;
    c.dispatch_batch = 16;
    c.dispatch_budget = 64;
  });
  auto busy_log = std::make_shared<std::vector<Received>>();
  auto quiet_log = std::make_shared<std::vector<Received>>();
  const ActorRef busy = h.node(1).spawn(h.now(), "busy", std::make_unique<Recorder>(busy_log));
  const ActorRef quiet = h.node(1).spawn(h.now(), "quiet", std::make_unique<Recorder>(quiet_log));
  for (int i = 0; i < 10'000; ++i) h.node(1).tell(h.now(), busy, 0, bytes("x"));
  h.node(1).tell(h.now(), quiet, 0, bytes("y"));
  h.node(1).handle_tick(h.now());  // one dispatch step: at most one batch per actor per turn
  EXPECT_EQ(quiet_log->size(), 1u);
  EXPECT_LE(busy_log->size(), 64u);
  EXPECT_EQ(h.node(1).next_deadline(), h.now()) << "work left: the driver is asked to call again now";
}

TEST(Messaging, UnknownTargetsAreDeadLetters) {
  Harness h = joined(2);
  EXPECT_EQ(h.node(1).tell(h.now(), ActorRef{h.address(1), "nobody"}, 0, bytes("x")),
            SendResult::unknown_actor);
  EXPECT_EQ(h.node(1).tell(h.now(), ActorRef{NodeAddress{"10.9.9.9", 1}, "x"}, 0, bytes("x")),
            SendResult::unknown_member);
  h.node(2).tell(h.now(), ActorRef{h.address(1), "nobody"}, 0, bytes("x"));
  h.advance(Duration::milliseconds(50));
  EXPECT_EQ(h.node(1).counters().dead_letters[static_cast<std::size_t>(DeadLetterReason::unknown_actor)], 2u);
}

}  // namespace
}  // namespace weft::testing
