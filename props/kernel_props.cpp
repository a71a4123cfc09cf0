// Properties of whole clusters of real kernels, wired by the scripted
// harness, over rapidcheck-generated schedules of asks, tells and faults:
//   S2  every ask completes exactly once (reply, timeout or target-down),
//       under random interleavings of replies, timeouts, cut links and a crash;
//   S4  no mailbox ever holds more than its capacity, and every overflow is
//       counted;
//   F4  one broken link between two healthy nodes downs neither and marks
//       neither unreachable.
// Each is also run on a kernel with the matching Config::mutations defect and
// must fail there, as that property (props/catches.hpp): an exception or
// another assertion giving way is not a catch.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "catches.hpp"
#include "kernel_harness.hpp"

namespace weft::props {
namespace {

using testing::Harness;

std::span<const std::uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// Answers every ask unless mute.
class Responder final : public Behavior {
 public:
  explicit Responder(bool mute) : mute_(mute) {}
  void receive(Context& context, const Delivery& m) override {
    if (m.kind == DeliveryKind::ask && !mute_) context.reply(m.type_tag, m.body);
  }

 private:
  bool mute_;
};

// Counts what it gets; never replies.
class Sink final : public Behavior {
 public:
  explicit Sink(std::uint64_t* received) : received_(received) {}
  void receive(Context&, const Delivery&) override { ++*received_; }

 private:
  std::uint64_t* received_;
};

// --- S2

enum class AskStep : int { ask_echo, ask_mute, ask_remote_far, advance, cut, restore, crash_far };

void asks_complete_exactly_once(const Mutations& mutations) {
  Harness h(3, [&](Config& c) { c.mutations = mutations; });
  h.advance(Duration::seconds(3));
  const ActorRef echo = h.node(1).spawn(h.now(), "echo", std::make_unique<Responder>(false));
  const ActorRef mute = h.node(1).spawn(h.now(), "mute", std::make_unique<Responder>(true));
  const ActorRef far_echo = h.node(3).spawn(h.now(), "echo", std::make_unique<Responder>(false));

  std::map<AskId, int> issued;  // id -> completions seen
  std::map<AskOutcome, int> outcomes;
  bool crashed = false;
  const auto steps = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 7));
  for (const int raw : steps) {
    const Duration timeout = Duration::milliseconds(*rc::gen::inRange(20, 12000));
    switch (static_cast<AskStep>(raw)) {
      case AskStep::ask_echo: issued[h.node(2).ask(h.now(), echo, 1, bytes("e"), timeout)] = 0; break;
      case AskStep::ask_mute: issued[h.node(2).ask(h.now(), mute, 1, bytes("m"), timeout)] = 0; break;
      case AskStep::ask_remote_far: issued[h.node(2).ask(h.now(), far_echo, 1, bytes("f"), timeout)] = 0; break;
      case AskStep::advance: h.advance(Duration::milliseconds(*rc::gen::inRange(1, 3000))); break;
      case AskStep::cut: h.cut(*rc::gen::element<std::size_t>(1, 3), 2); break;
      case AskStep::restore: h.restore(1, 2); h.restore(2, 3); break;
      case AskStep::crash_far:
        if (!crashed) h.crash(3);
        crashed = true;
        break;
    }
  }
  h.restore(1, 2);
  h.restore(2, 3);
  // Long enough for every timeout (12 s) and for a crashed member to be downed.
  h.advance(Duration::seconds(20), Duration::milliseconds(20));
  h.count_events(2, [&](const Event& e) {
    if (const auto* done = std::get_if<AskCompleted>(&e)) {
      const auto it = issued.find(done->id);
      PROP_ASSERT("S2", it != issued.end());  // never a completion for an ask not made
      ++it->second;
      ++outcomes[done->outcome];
    }
    return false;
  });
  for (const auto& [id, completions] : issued) {
    PROP_ASSERT("S2", completions == 1);
  }
  PROP_ASSERT("S2", h.node(2).pending_asks() == 0u);
  for (const auto& [outcome, count] : outcomes) RC_TAG(std::string(to_string(outcome)));
}

RC_GTEST_PROP(S2AskExactlyOnce, UnderRepliesTimeoutsCutsAndACrash, ()) { asks_complete_exactly_once({}); }

TEST(S2AskExactlyOnceCatches, RepliesThatLeaveTheAskPending) {
  Mutations broken;
  broken.replies_complete_twice = true;
  EXPECT_TRUE(fails_as("S2", "asks on a kernel whose replies leave the ask pending",
                       [&] { asks_complete_exactly_once(broken); }));
}

// --- S4

void mailboxes_stay_bounded(const Mutations& mutations) {
  const auto capacity = *rc::gen::inRange<std::uint32_t>(1, 64);
  Harness h(2, [&](Config& c) {
    c.mailbox_capacity = capacity;
    c.dispatch_budget = *rc::gen::inRange<std::uint32_t>(64, 256);
    c.dispatch_batch = *rc::gen::inRange<std::uint32_t>(1, 64);
    c.mutations = mutations;
  });
  h.advance(Duration::seconds(3));
  std::uint64_t received = 0;
  const ActorRef sink = h.node(1).spawn(h.now(), "sink", std::make_unique<Sink>(&received));
  std::uint64_t sent = 0;
  const auto bursts = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 300));
  for (const int burst : bursts) {
    for (int i = 0; i < burst; ++i) {
      const std::size_t from = *rc::gen::element<std::size_t>(1, 2);
      if (h.node(from).tell(h.now(), sink, 0, bytes("x")) == SendResult::sent) ++sent;
      PROP_ASSERT("S4", h.node(1).mailbox_size("sink") <= capacity);
    }
    h.advance(Duration::milliseconds(*rc::gen::inRange(0, 30)), Duration::milliseconds(1));
    PROP_ASSERT("S4", h.node(1).mailbox_size("sink") <= capacity);
  }
  h.advance(Duration::seconds(1));
  // Nothing silent: every tell either arrived or was counted as a dead letter.
  const auto& c1 = h.node(1).counters();
  const std::uint64_t dropped = c1.dead_letters[static_cast<std::size_t>(DeadLetterReason::mailbox_full)];
  PROP_ASSERT("S4", received + dropped >= sent);
}

RC_GTEST_PROP(S4BoundedMailboxes, UnderRandomBursts, ()) { mailboxes_stay_bounded({}); }

TEST(S4BoundedMailboxesCatches, MailboxesThatIgnoreTheirCapacity) {
  Mutations broken;
  broken.mailbox_unbounded = true;
  EXPECT_TRUE(fails_as("S4", "mailboxes on a kernel that ignores their capacity",
                       [&] { mailboxes_stay_bounded(broken); }));
}

// --- F4

void one_broken_link_downs_nobody(const Mutations& mutations) {
  const std::size_t n = *rc::gen::inRange<std::size_t>(3, 6);
  Harness h(n, [&](Config& c) { c.mutations = mutations; });
  h.advance(Duration::seconds(3));
  const std::size_t a = *rc::gen::inRange<std::size_t>(1, n + 1);
  const std::size_t b = *rc::gen::suchThat(rc::gen::inRange<std::size_t>(1, n + 1),
                                           [&](std::size_t x) { return x != a; });
  h.cut(a, b);
  h.advance(Duration::seconds(*rc::gen::inRange(10, 25)), Duration::milliseconds(20));
  for (std::size_t observer = 1; observer <= n; ++observer) {
    for (std::size_t subject = 1; subject <= n; ++subject) {
      PROP_ASSERT("F4", h.status_seen_by(observer, subject) == MemberStatus::up);
      PROP_ASSERT("F4", !h.unreachable_seen_by(observer, subject));
    }
  }
}

RC_GTEST_PROP(F4OneBrokenLink, DownsNobody, ()) { one_broken_link_downs_nobody({}); }

TEST(F4OneBrokenLinkCatches, SuspicionWithoutIndirectProbes) {
  Mutations broken;
  broken.indirect_probes_off = true;
  EXPECT_TRUE(fails_as("F4", "a broken link on kernels that never ask others",
                       [&] { one_broken_link_downs_nobody(broken); }));
}

}  // namespace
}  // namespace weft::props
