// Goal: what the context offers layers built on actors (shard/'s regions)
// behaves as kernel/actors/behavior.hpp says on real kernels: forward keeps
// a message's kind, sender and correlation id, so the final target answers
// the asker directly, and an ask kept is answered later with reply_to;
// watchers hear of membership changes from their spawn, coalesced; timers
// fire once, in order, and re-arming or cancelling a tag replaces it; an
// urgent tell goes ahead of the user messages queued for its link, within
// its own bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernel_harness.hpp"

namespace weft::testing {
namespace {

std::span<const std::uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}
std::string text(std::span<const std::uint8_t> body) { return {body.begin(), body.end()}; }

// Answers an ask with "re:" + body, and records who asked.
class Echo final : public Behavior {
 public:
  explicit Echo(std::shared_ptr<std::vector<std::string>> senders) : senders_(std::move(senders)) {}
  void receive(Context& context, const Delivery& m) override {
    senders_->push_back(std::string(m.sender.host) + ":" + std::to_string(m.sender.port) + "/" +
                        std::string(m.sender.name) + " " + std::string(to_string(m.kind)));
    if (m.kind == DeliveryKind::ask) (void)context.reply(m.type_tag + 1, bytes("re:" + text(m.body)));
  }

 private:
  std::shared_ptr<std::vector<std::string>> senders_;
};

// Hands every tell and ask on to `target`, prefixing the body with "via ".
class Relay final : public Behavior {
 public:
  explicit Relay(ActorRef target, std::shared_ptr<std::vector<SendResult>> results)
      : target_(std::move(target)), results_(std::move(results)) {}
  void receive(Context& context, const Delivery& m) override {
    results_->push_back(context.forward(target_, m, m.type_tag, bytes("via " + text(m.body))));
  }

 private:
  ActorRef target_;
  std::shared_ptr<std::vector<SendResult>> results_;
};

TEST(ActorServices, AForwardedAskIsAnsweredStraightToTheAsker) {
  Harness h(3);
  h.advance(Duration::seconds(3));
  auto senders = std::make_shared<std::vector<std::string>>();
  auto results = std::make_shared<std::vector<SendResult>>();
  const ActorRef echo = h.node(1).spawn(h.now(), "echo", std::make_unique<Echo>(senders));
  const ActorRef relay = h.node(2).spawn(h.now(), "relay", std::make_unique<Relay>(echo, results));
  const AskId id = h.node(3).ask(h.now(), relay, 40, bytes("ping"), Duration::seconds(1));
  h.node(3).tell(h.now(), relay, 50, bytes("note"));
  h.advance(Duration::milliseconds(500));

  ASSERT_EQ(*results, (std::vector<SendResult>{SendResult::sent, SendResult::sent}));
  // The echo saw node 3's asker, not the relay, and the kinds were kept.
  const std::string node3 = h.address(3).host + ":" + std::to_string(h.address(3).port);
  ASSERT_EQ(senders->size(), 2u);
  EXPECT_EQ((*senders)[0], node3 + "/$ask ask");
  EXPECT_EQ((*senders)[1], ":0/ tell");  // a tell from outside any actor has no sender
  std::vector<AskCompleted> done;
  (void)h.count_events(3, [&](const Event& e) {
    if (const auto* c = std::get_if<AskCompleted>(&e)) done.push_back(*c);
    return false;
  });
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].id, id);
  EXPECT_EQ(done[0].outcome, AskOutcome::reply);
  EXPECT_EQ(done[0].type_tag, 41u);
  EXPECT_EQ(text(done[0].body), "re:via ping");
  EXPECT_EQ(h.node(2).pending_asks(), 0u);  // the relay tracks nothing
}

// Records what it is woken for; on a tell it starts the timers the body
// names ("<tag>@<ms>", or "-<tag>" to cancel).
class Waker final : public Behavior {
 public:
  explicit Waker(std::shared_ptr<std::vector<std::string>> log, bool watch = false)
      : log_(std::move(log)), watch_(watch) {}
  bool watches_members() const override { return watch_; }
  void receive(Context& context, const Delivery& m) override {
    if (m.kind == DeliveryKind::tell) {
      const std::string command = text(m.body);
      if (command.empty()) return;  // its own forward, below
      if (command[0] == '-') {
        context.cancel_timer(static_cast<std::uint32_t>(std::stoul(command.substr(1))));
      } else {
        const auto at = command.find('@');
        context.start_timer(static_cast<std::uint32_t>(std::stoul(command.substr(0, at))),
                            Duration::milliseconds(std::stoll(command.substr(at + 1))));
      }
      results_forward_ = context.forward(context.self(), m, 0, {});
      return;
    }
    if (m.kind == DeliveryKind::ask) {  // answered when timer 9 fires, from a kept copy
      kept_.fill(m);
      context.start_timer(9, Duration::milliseconds(100));
      return;
    }
    if (m.kind == DeliveryKind::timer && m.type_tag == 9) {
      (void)context.reply_to(kept_.view(), 77, bytes("later:" + text(kept_.view().body)));
      return;
    }
    std::string line = std::string(to_string(m.kind)) + " " + std::to_string(m.type_tag);
    if (m.kind == DeliveryKind::members_changed) line += " " + std::to_string(context.members().size());
    if (m.kind == DeliveryKind::timer) {
      // Outside a tell or an ask there is nothing to forward.
      line += context.forward(context.self(), m, 0, {}) == SendResult::invalid_target ? " no-forward" : " forwarded";
    }
    log_->push_back(line);
  }
  SendResult results_forward_ = SendResult::invalid_target;

 private:
  std::shared_ptr<std::vector<std::string>> log_;
  bool watch_;
  MailboxSlot kept_;
};

TEST(ActorServices, TimersFireOnceInOrderAndATagRearmedOrCancelledIsReplaced) {
  Harness h(1);
  h.advance(Duration::seconds(1));
  auto log = std::make_shared<std::vector<std::string>>();
  auto waker = std::make_unique<Waker>(log);
  Waker* raw = waker.get();
  const ActorRef ref = h.node(1).spawn(h.now(), "waker", std::move(waker));
  for (const char* command : {"1@300", "2@100", "3@200", "1@50", "-3"}) {
    ASSERT_EQ(h.node(1).tell(h.now(), ref, 0, bytes(command)), SendResult::sent);
    h.advance(Duration::milliseconds(1), Duration::milliseconds(1));
  }
  h.advance(Duration::seconds(1), Duration::milliseconds(5));
  // Tag 1 was re-armed for 50 ms (its 300 ms timer is gone), 3 cancelled.
  EXPECT_EQ(*log, (std::vector<std::string>{"timer 1 no-forward", "timer 2 no-forward"}));
  // A tell's forward to itself goes through (the relay's own tells).
  EXPECT_EQ(raw->results_forward_, SendResult::sent);
}

TEST(ActorServices, AnAskKeptIsAnsweredLaterWithReplyTo) {
  Harness h(2);
  h.advance(Duration::seconds(3));
  auto log = std::make_shared<std::vector<std::string>>();
  const ActorRef ref = h.node(1).spawn(h.now(), "waker", std::make_unique<Waker>(log));
  const AskId id = h.node(2).ask(h.now(), ref, 5, bytes("q"), Duration::seconds(1));
  h.advance(Duration::milliseconds(50));
  std::vector<AskCompleted> done;
  const auto collect = [&] {
    done.clear();
    (void)h.count_events(2, [&](const Event& e) {
      if (const auto* c = std::get_if<AskCompleted>(&e)) done.push_back(*c);
      return false;
    });
  };
  collect();
  EXPECT_TRUE(done.empty());  // not yet: the answer waits on the timer
  h.advance(Duration::milliseconds(200));
  collect();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].id, id);
  EXPECT_EQ(done[0].outcome, AskOutcome::reply);
  EXPECT_EQ(done[0].type_tag, 77u);
  EXPECT_EQ(text(done[0].body), "later:q");
}

TEST(ActorServices, WatchersHearMembershipChangesCoalesced) {
  Harness h(3);
  auto log = std::make_shared<std::vector<std::string>>();
  (void)h.node(1).spawn(h.now(), "waker", std::make_unique<Waker>(log, true));
  auto quiet = std::make_shared<std::vector<std::string>>();
  (void)h.node(1).spawn(h.now(), "deaf", std::make_unique<Waker>(quiet, false));
  h.advance(Duration::seconds(3));
  EXPECT_TRUE(quiet->empty());  // only those that watch are woken
  // Node 1 saw itself and two others join and go up: several table changes,
  // each heard, none twice in a row without a change between.
  ASSERT_FALSE(log->empty());
  EXPECT_EQ(log->back(), "members_changed 0 3");
  const std::size_t heard = log->size();
  h.advance(Duration::seconds(2));
  EXPECT_EQ(log->size(), heard);  // a quiet table wakes no one
  h.crash(3);
  h.advance(Duration::seconds(20));
  EXPECT_GT(log->size(), heard);  // node 3 went down
  const auto status = h.status_seen_by(1, 3);
  ASSERT_TRUE(status.has_value());
  EXPECT_GE(*status, MemberStatus::down);
}

// On any tell: `plain` tells of 1 KiB tagged 1 to `target`, then `urgent`
// urgent ones tagged 2, recording what each send returned.
class Burst final : public Behavior {
 public:
  Burst(ActorRef target, int plain, int urgent, std::shared_ptr<std::vector<SendResult>> results)
      : target_(std::move(target)), plain_(plain), urgent_(urgent), results_(std::move(results)) {}
  void receive(Context& context, const Delivery& m) override {
    if (m.kind != DeliveryKind::tell) return;
    const std::vector<std::uint8_t> body(1024, 0x5a);
    for (int i = 0; i < plain_; ++i) results_->push_back(context.tell(target_, 1, body));
    for (int i = 0; i < urgent_; ++i) results_->push_back(context.tell_urgent(target_, 2, body));
  }

 private:
  ActorRef target_;
  int plain_;
  int urgent_;
  std::shared_ptr<std::vector<SendResult>> results_;
};

// Records the tags it is told, in order.
class Tags final : public Behavior {
 public:
  explicit Tags(std::shared_ptr<std::vector<std::uint32_t>> tags) : tags_(std::move(tags)) {}
  void receive(Context&, const Delivery& m) override { tags_->push_back(m.type_tag); }

 private:
  std::shared_ptr<std::vector<std::uint32_t>> tags_;
};

// Two nodes; a Burst on node 1 told once sends `plain` then `urgent`
// tells to a Tags on node 2; a second later, what each send returned and
// the tags node 2 got, in order.
struct BurstSeen {
  std::vector<SendResult> results;
  std::vector<std::uint32_t> tags;
};
BurstSeen burst_once(int plain, int urgent) {
  Harness h(2);
  h.advance(Duration::seconds(3));
  auto tags = std::make_shared<std::vector<std::uint32_t>>();
  auto results = std::make_shared<std::vector<SendResult>>();
  const ActorRef sink = h.node(2).spawn(h.now(), "sink", std::make_unique<Tags>(tags));
  const ActorRef burst = h.node(1).spawn(h.now(), "burst", std::make_unique<Burst>(sink, plain, urgent, results));
  h.node(1).tell(h.now(), burst, 0, {});
  h.advance(Duration::seconds(1));
  return {*results, *tags};
}

TEST(ActorServices, AnUrgentTellGoesAheadOfTheUserMessagesQueuedForItsLink) {
  const BurstSeen seen = burst_once(100, 1);
  ASSERT_EQ(seen.results.size(), 101u);
  for (const SendResult r : seen.results) ASSERT_EQ(r, SendResult::sent);
  ASSERT_EQ(seen.tags.size(), 101u);
  EXPECT_EQ(seen.tags.front(), 2u) << "queued behind 100 KiB of user messages, it went first";
  EXPECT_EQ(std::count(seen.tags.begin(), seen.tags.end(), 1u), 100);
}

TEST(ActorServices, UrgentTellsPastTheirBoundAreRefusedOutboundFull) {
  // 80 KiB asked of a 64 KiB bound, in one turn (nothing is written meanwhile).
  const BurstSeen seen = burst_once(0, 80);
  ASSERT_EQ(seen.results.size(), 80u);
  const auto sent = static_cast<std::size_t>(std::count(seen.results.begin(), seen.results.end(), SendResult::sent));
  EXPECT_GT(sent, 50u);
  EXPECT_LT(sent, 64u);  // each frame is 1 KiB of body and its header
  for (std::size_t i = sent; i < seen.results.size(); ++i) {
    EXPECT_EQ(seen.results[i], SendResult::outbound_full) << i;
  }
  EXPECT_EQ(seen.tags.size(), sent) << "what was refused was not sent";
}

}  // namespace
}  // namespace weft::testing
