// Goal: regions (shard/region.hpp) on real kernels do what region.hpp says:
// an entity message sent from any node reaches the one node that owns its
// shard in the (agreeing) views, which starts the entity and answers the
// asker directly; idle entities passivate; when the owner goes down its
// entities start on the new owner; bad input is refused, counted and, for
// an ask, answered, with nothing else moved.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "kernel_harness.hpp"
#include "shard/entity_ref.hpp"
#include "shard/envelope.hpp"
#include "shard/handoff_wire.hpp"
#include "shard/region.hpp"

namespace weft::testing {
namespace {

using shard::EntityKind;
using shard::EntityRef;
using shard::Region;

std::span<const std::uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}
std::string text(std::span<const std::uint8_t> body) { return {body.begin(), body.end()}; }

constexpr std::uint32_t kAdd = 1;
constexpr std::uint32_t kTotal = 2;
constexpr std::uint32_t kArm = 3;      // a tell: start timer kTick, 1 s
constexpr std::uint32_t kArmLong = 4;  // a tell: start timer kTick, 30 s
constexpr std::uint32_t kDisarm = 5;   // a tell: cancel timer kTick
constexpr std::uint32_t kTick = 9;

struct Log {
  std::vector<std::string> lines;  // "<node> start|stop:<reason>|timer:<tag> <key>"
  std::size_t count(const std::string& line) const {
    return static_cast<std::size_t>(std::count(lines.begin(), lines.end(), line));
  }
};

// Adds 1 on each ask and answers "<key>=<count>@<node>".
class Tally final : public shard::Entity {
 public:
  Tally(std::string key, std::size_t node, std::shared_ptr<Log> log)
      : key_(std::move(key)), node_(node), log_(std::move(log)) {
    log_->lines.push_back(std::to_string(node_) + " start " + key_);
  }
  void receive(Context& context, const Delivery& m) override {
    if (m.kind == DeliveryKind::timer) {
      log_->lines.push_back(std::to_string(node_) + " timer:" + std::to_string(m.type_tag) + " " + key_);
      return;
    }
    if (m.kind == DeliveryKind::tell && m.type_tag == kArm) context.start_timer(kTick, Duration::seconds(1));
    if (m.kind == DeliveryKind::tell && m.type_tag == kArmLong) context.start_timer(kTick, Duration::seconds(30));
    if (m.kind == DeliveryKind::tell && m.type_tag == kDisarm) context.cancel_timer(kTick);
    if (m.kind != DeliveryKind::ask || m.type_tag != kAdd) return;
    ++count_;
    (void)context.reply(kTotal, bytes(key_ + "=" + std::to_string(count_) + "@" + std::to_string(node_)));
  }
  void stopping(Context&, shard::StopReason reason) override {
    log_->lines.push_back(std::to_string(node_) + " stop:" + std::string(to_string(reason)) + " " + key_);
  }
  bool hand_over(std::vector<std::uint8_t>& state) override {
    for (int i = 0; i < 8; ++i) state.push_back(static_cast<std::uint8_t>(count_ >> (8 * i)));
    return true;
  }
  void take_over(std::span<const std::uint8_t> state) override {
    count_ = 0;
    for (std::size_t i = 0; i < state.size() && i < 8; ++i) count_ |= std::uint64_t{state[i]} << (8 * i);
    log_->lines.push_back(std::to_string(node_) + " took " + key_ + "=" + std::to_string(count_));
  }

 private:
  std::string key_;
  std::size_t node_;
  std::shared_ptr<Log> log_;
  std::uint64_t count_ = 0;
};

struct Cluster {
  explicit Cluster(std::size_t n) : h(n) {
    h.advance(Duration::seconds(3));
    for (std::size_t i = 1; i <= n; ++i) {
      EntityKind kind;
      kind.name = "tally";
      kind.shards = 32;
      kind.passivate_after = Duration::seconds(10);
      kind.make = [i, log = log](std::string_view key) { return std::make_unique<Tally>(std::string(key), i, log); };
      auto region = std::make_unique<Region>(std::move(kind));
      regions.push_back(region.get());
      h.node(i).spawn(h.now(), shard::region_name("tally"), std::move(region));
    }
  }
  std::vector<AskCompleted> completions(std::size_t i) {
    std::vector<AskCompleted> out;
    (void)h.count_events(i, [&](const Event& e) {
      if (const auto* c = std::get_if<AskCompleted>(&e)) out.push_back(*c);
      return false;
    });
    return out;
  }
  // Where `key` is active, as node numbers.
  std::vector<std::size_t> hosts_of(const std::string& key) const {
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < regions.size(); ++i) {
      if (regions[i]->hosts(key)) at.push_back(i + 1);
    }
    return at;
  }
  std::size_t index_of(const NodeAddress& address) const {
    for (std::size_t i = 1; i <= regions.size(); ++i) {
      if (h.address(i) == address) return i;
    }
    return 0;
  }

  Harness h;
  std::shared_ptr<Log> log = std::make_shared<Log>();
  std::vector<Region*> regions;  // owned by the kernels
};

std::string key(int i) { return "k" + std::to_string(i); }

TEST(ShardRegion, AnEntityAskedFromAnyNodeIsHostedOnceByItsOwner) {
  Cluster c(3);
  std::map<AskId, std::pair<std::size_t, std::string>> asked;  // id -> (asking node, key)
  // The first round names each entity by an EntityRef, the second by key
  // through the asking node's Entities handle of the kind: the same route.
  for (int round = 0; round < 2; ++round) {
    for (int k = 0; k < 30; ++k) {
      const std::size_t from = 1 + static_cast<std::size_t>(k % 3);
      const shard::Entities tallies(c.h.address(from), "tally");
      const AskId id = round == 0
                           ? shard::ask(c.h.node(from), c.h.now(), EntityRef{"tally", key(k)}, kAdd, {},
                                        Duration::seconds(2))
                           : tallies.ask(c.h.node(from), c.h.now(), key(k), kAdd, {}, Duration::seconds(2));
      asked.emplace(id * 8 + from, std::pair{from, key(k)});
    }
    c.h.advance(Duration::milliseconds(500));
  }
  std::size_t replies = 0;
  for (std::size_t from = 1; from <= 3; ++from) {
    for (const AskCompleted& done : c.completions(from)) {
      ASSERT_EQ(done.outcome, AskOutcome::reply);
      ASSERT_EQ(done.type_tag, kTotal);
      const auto& [node, k] = asked.at(done.id * 8 + from);
      EXPECT_EQ(node, from);
      EXPECT_EQ(text(done.body).substr(0, k.size() + 1), k + "=");
      ++replies;
    }
  }
  EXPECT_EQ(replies, 60u);
  std::size_t forwarded = 0;
  std::set<std::size_t> hosting;
  for (int k = 0; k < 30; ++k) {
    const std::vector<std::size_t> hosts = c.hosts_of(key(k));
    ASSERT_EQ(hosts.size(), 1u) << key(k);
    // Every region names the same owner, and it is the host.
    for (const Region* region : c.regions) {
      ASSERT_TRUE(region->owner(key(k)).has_value());
      EXPECT_EQ(c.index_of(*region->owner(key(k))), hosts[0]);
    }
    hosting.insert(hosts[0]);
  }
  EXPECT_EQ(hosting.size(), 3u);  // 30 keys over 3 nodes: each hosts some
  for (const Region* region : c.regions) forwarded += region->counters().forwarded;
  EXPECT_GT(forwarded, 0u);
  for (const Region* region : c.regions) EXPECT_EQ(region->counters().refused_total(), 0u);
  // Second round: the count went on, on the same entity (each key asked twice).
  std::size_t starts = 0;
  for (const std::string& line : c.log->lines) starts += line.find(" start ") != std::string::npos;
  EXPECT_EQ(starts, 30u);
}

TEST(ShardRegion, IdleEntitiesPassivateAndStartAgainOnTheNextMessage) {
  Cluster c(2);
  (void)shard::ask(c.h.node(1), c.h.now(), EntityRef{"tally", "idle"}, kAdd, {}, Duration::seconds(2));
  c.h.advance(Duration::seconds(1));
  ASSERT_EQ(c.hosts_of("idle").size(), 1u);
  c.h.advance(Duration::seconds(12));  // passivate_after 10 s, at most 1.125 times it
  EXPECT_TRUE(c.hosts_of("idle").empty());
  (void)shard::ask(c.h.node(2), c.h.now(), EntityRef{"tally", "idle"}, kAdd, {}, Duration::seconds(2));
  c.h.advance(Duration::seconds(1));
  ASSERT_EQ(c.hosts_of("idle").size(), 1u);
  const auto done = c.completions(2);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(text(done[0].body).substr(0, 7), "idle=1@");  // a fresh entity: state is the user's to save
  std::uint64_t passivated = 0;
  for (const Region* region : c.regions) passivated += region->counters().passivated;
  EXPECT_EQ(passivated, 1u);
}

TEST(ShardRegion, AnOwnersEntitiesMoveWhenItGoesDown) {
  Cluster c(3);
  for (int k = 0; k < 30; ++k) (void)shard::tell(c.h.node(1), c.h.now(), EntityRef{"tally", key(k)}, kAdd, {});
  for (int k = 0; k < 30; ++k) {
    (void)shard::ask(c.h.node(1), c.h.now(), EntityRef{"tally", key(k)}, kAdd, {}, Duration::seconds(2));
  }
  c.h.advance(Duration::seconds(1));
  std::vector<std::string> on_three;
  for (int k = 0; k < 30; ++k) {
    if (c.hosts_of(key(k)) == std::vector<std::size_t>{3}) on_three.push_back(key(k));
  }
  ASSERT_FALSE(on_three.empty());
  c.h.crash(3);
  ASSERT_TRUE(c.h.advance_until([&] { return c.h.all_see_status({1, 2}, 3, MemberStatus::down); },
                                Duration::seconds(30)));
  for (const std::string& k : on_three) {
    (void)shard::ask(c.h.node(1), c.h.now(), EntityRef{"tally", k}, kAdd, {}, Duration::seconds(2));
  }
  c.h.advance(Duration::seconds(1));
  for (const std::string& k : on_three) {
    const std::vector<std::size_t> hosts = c.hosts_of(k);
    ASSERT_EQ(hosts.size(), 2u) << k;  // node 3's crashed region still holds it, as a crash leaves it
    EXPECT_EQ(hosts[1], 3u);
    EXPECT_NE(hosts[0], 3u);
  }
  // Every key still asked for was answered by a live node.
  std::size_t answered_after = 0;
  for (const AskCompleted& done : c.completions(1)) {
    if (done.outcome == AskOutcome::reply && text(done.body).find("@3") == std::string::npos) ++answered_after;
  }
  EXPECT_GE(answered_after, on_three.size());
}

// An entity's own timers: one fires once, at its time, on the entity that
// started it (started again, it is replaced); a cancelled one never fires;
// one that outlives its entity (passivated idle) ends with it and wakes
// nothing.
TEST(ShardRegion, AnEntitysTimerFiresOnceAndEndsWithItsEntity) {
  Cluster c(3);
  const auto tell = [&](const char* key, std::uint32_t tag) {
    (void)shard::tell(c.h.node(1), c.h.now(), EntityRef{"tally", key}, tag, {});
  };
  tell("a", kArm);
  tell("b", kArm);
  c.h.advance(Duration::milliseconds(300));
  tell("a", kArm);  // replaces a's timer: due 1 s from now
  tell("b", kDisarm);
  tell("c", kArmLong);
  c.h.advance(Duration::milliseconds(900));
  const auto fired = [&](const char* key) {
    std::size_t n = 0;
    for (std::size_t node = 1; node <= 3; ++node) n += c.log->count(std::to_string(node) + " timer:9 " + key);
    return n;
  };
  EXPECT_EQ(fired("a"), 0u);  // the first, replaced, would have fired at 1 s
  c.h.advance(Duration::milliseconds(300));
  EXPECT_EQ(fired("a"), 1u);
  EXPECT_EQ(c.hosts_of("a").size(), 1u);
  c.h.advance(Duration::seconds(5));
  EXPECT_EQ(fired("a"), 1u);
  EXPECT_EQ(fired("b"), 0u);
  // c idles past passivate_after (10 s) long before its 30 s timer, and a
  // message then starts it again: the first life's timer is not the
  // second's.
  c.h.advance(Duration::seconds(15));
  EXPECT_TRUE(c.hosts_of("c").empty());
  for (int i = 0; i < 4; ++i) {  // busy past the first life's 30 s: no passivation
    tell("c", kAdd);
    c.h.advance(Duration::seconds(4));
  }
  EXPECT_EQ(c.hosts_of("c").size(), 1u);
  EXPECT_EQ(fired("c"), 0u);
  std::size_t started = 0, idled = 0, counted = 0;
  for (std::size_t node = 1; node <= 3; ++node) {
    started += c.log->count(std::to_string(node) + " start c");
    idled += c.log->count(std::to_string(node) + " stop:idle c");
    counted += c.regions[node - 1]->counters().entity_timers_fired;
  }
  EXPECT_EQ(started, 2u);
  EXPECT_EQ(idled, 1u);
  EXPECT_EQ(counted, 1u);
}

TEST(ShardRegion, BadInputIsRefusedCountedAndAnswered) {
  Cluster c(2);
  Kernel& node = c.h.node(1);
  const ActorRef region = shard::region_of(c.h.address(1), "tally");
  std::vector<AskId> refused;
  // An oversize key, an empty key, a body that is not an envelope, a wrong tag.
  refused.push_back(shard::ask(node, c.h.now(), EntityRef{"tally", std::string(300, 'x')}, kAdd, {}, Duration::seconds(2)));
  refused.push_back(shard::ask(node, c.h.now(), EntityRef{"tally", ""}, kAdd, {}, Duration::seconds(2)));
  refused.push_back(node.ask(c.h.now(), region, shard::kEntityTag, bytes("garbage!"), Duration::seconds(2)));
  refused.push_back(node.ask(c.h.now(), region, 7, {}, Duration::seconds(2)));
  // A message already handed on twice, to a region that does not own it.
  // (The region reads its view on its first message, the garbage above.)
  c.h.advance(Duration::milliseconds(10));
  std::string stray;
  for (int k = 0; k < 100; ++k) {
    if (c.regions[0]->owner(key(k)) && *c.regions[0]->owner(key(k)) == c.h.address(2)) {
      stray = key(k);
      break;
    }
  }
  ASSERT_FALSE(stray.empty());
  refused.push_back(node.ask(c.h.now(), region, shard::kEntityTag, shard::encode({shard::kMaxHops, kAdd, stray, {}}),
                             Duration::seconds(2)));
  // An entity message for a kind no node hosts: the kernel's dead letter.
  EXPECT_EQ(shard::tell(node, c.h.now(), EntityRef{"nosuchkind", "k"}, kAdd, {}), SendResult::unknown_actor);
  c.h.advance(Duration::milliseconds(200));

  const auto done = c.completions(1);
  ASSERT_EQ(done.size(), refused.size());
  std::vector<std::string> reasons;
  for (const AskCompleted& d : done) {
    EXPECT_EQ(d.outcome, AskOutcome::reply);
    EXPECT_EQ(d.type_tag, shard::kRefusedTag);
    reasons.push_back(text(d.body));
  }
  EXPECT_EQ(reasons, (std::vector<std::string>{"malformed", "malformed", "malformed", "malformed", "hop_limit"}));
  const shard::RegionCounters& counters = c.regions[0]->counters();
  EXPECT_EQ(counters.refused[static_cast<std::size_t>(shard::Refusal::malformed)], 4u);
  EXPECT_EQ(counters.refused[static_cast<std::size_t>(shard::Refusal::hop_limit)], 1u);
  // Nothing else moved: no entity started, nothing forwarded or delivered.
  for (const Region* r : c.regions) {
    EXPECT_EQ(r->active(), 0u);
    EXPECT_EQ(r->counters().delivered + r->counters().forwarded + r->counters().activated, 0u);
  }
  EXPECT_TRUE(c.log->lines.empty());
}

// The count an answer reports ("<key>=<count>@<node>").
std::uint64_t count_in(const AskCompleted& done) {
  const std::string body = text(done.body);
  return std::stoull(body.substr(body.find('=') + 1, body.find('@') - body.find('=') - 1));
}

TEST(ShardRegion, ALeaversEntitiesMoveWithTheirStateAndNoIncrementIsLost) {
  Cluster c(3);
  const auto ask_all = [&] {
    for (int k = 0; k < 30; ++k) {
      (void)shard::ask(c.h.node(1), c.h.now(), EntityRef{"tally", key(k)}, kAdd, {}, Duration::seconds(5));
    }
  };
  ask_all();
  ask_all();
  c.h.advance(Duration::seconds(1));
  std::size_t on_three = 0;
  for (int k = 0; k < 30; ++k) on_three += c.hosts_of(key(k)) == std::vector<std::size_t>{3};
  ASSERT_GT(on_three, 0u);
  // Node 3 leaves; asks go on at once, while its shards move.
  c.h.node(3).leave(c.h.now());
  ask_all();
  c.h.advance(Duration::seconds(5));
  ask_all();
  c.h.advance(Duration::seconds(2));
  // Every key was asked 4 times and every ask answered: the last answers
  // say 4, each from node 1 or 2.
  std::map<std::string, std::uint64_t> last;
  std::size_t answers = 0;
  for (const AskCompleted& done : c.completions(1)) {
    ASSERT_EQ(done.outcome, AskOutcome::reply);
    ASSERT_EQ(done.type_tag, kTotal) << text(done.body);
    const std::string body = text(done.body);
    const std::string k = body.substr(0, body.find('='));
    last[k] = std::max(last[k], count_in(done));
    ++answers;
  }
  EXPECT_EQ(answers, 120u);
  for (int k = 0; k < 30; ++k) EXPECT_EQ(last[key(k)], 4u) << key(k);
  for (int k = 0; k < 30; ++k) {
    const std::vector<std::size_t> hosts = c.hosts_of(key(k));
    ASSERT_EQ(hosts.size(), 1u) << key(k);
    EXPECT_NE(hosts[0], 3u);
  }
  const shard::RegionCounters& leaver = c.regions[2]->counters();
  EXPECT_EQ(leaver.handed_out, on_three);
  EXPECT_EQ(c.regions[0]->counters().handed_in + c.regions[1]->counters().handed_in, on_three);
  for (const Region* r : c.regions) {
    EXPECT_EQ(r->counters().handoff_timeouts, 0u);
    EXPECT_EQ(r->counters().handoff_refused, 0u);
    EXPECT_EQ(r->counters().refused_total(), 0u);
    EXPECT_EQ(r->kept(), 0u);
  }
}

// Sends one prepared message to a target on any tell: a region's handoff
// forged by an actor of a live member that may not hand the shard.
class Forger final : public Behavior {
 public:
  Forger(ActorRef target, std::uint32_t tag, std::vector<std::uint8_t> body)
      : target_(std::move(target)), tag_(tag), body_(std::move(body)) {}
  void receive(Context& context, const Delivery& m) override {
    if (m.kind == DeliveryKind::tell) (void)context.tell(target_, tag_, body_);
  }

 private:
  ActorRef target_;
  std::uint32_t tag_;
  std::vector<std::uint8_t> body_;
};

TEST(ShardRegion, AHandoffFromANodeThatMayNotHandTheShardIsRefused) {
  Cluster c(3);
  c.h.advance(Duration::milliseconds(100));
  // A key node 1 owns whose shard, without node 1, would go to node 3: node 2
  // never held it and may not hand it over.
  std::string victim;
  for (int k = 0; k < 200 && victim.empty(); ++k) {
    const shard::ShardId s = shard::shard_of("tally", key(k), 32);
    if (c.regions[0]->owner(key(k)) != c.h.address(1)) continue;
    if (shard::score("tally", s, c.h.address(3)) > shard::score("tally", s, c.h.address(2))) victim = key(k);
  }
  ASSERT_FALSE(victim.empty());
  const shard::ShardId s = shard::shard_of("tally", victim, 32);
  const std::vector<std::uint8_t> state(8, 0x7f);
  const ActorRef region1 = shard::region_of(c.h.address(1), "tally");
  const ActorRef entity_forger = c.h.node(2).spawn(
      c.h.now(), "forger1",
      std::make_unique<Forger>(region1, shard::kHandoffEntityTag, shard::encode_entity({s, victim, state})));
  shard::HandoffDone done;
  done.shards[s] = {{shard::Source{c.h.address(2).host, c.h.address(2).port, 1}, 1000}};
  const ActorRef done_forger = c.h.node(2).spawn(
      c.h.now(), "forger2", std::make_unique<Forger>(region1, shard::kHandoffDoneTag, shard::encode_done(done)));
  c.h.node(2).tell(c.h.now(), entity_forger, 0, {});
  c.h.node(2).tell(c.h.now(), done_forger, 0, {});
  c.h.advance(Duration::milliseconds(200));
  EXPECT_EQ(c.regions[0]->counters().handoff_refused, 2u);
  EXPECT_EQ(c.regions[0]->counters().handed_in, 0u);
  EXPECT_FALSE(c.regions[0]->hosts(victim));
  // The forged numbering moved nothing: the next ask is answered as usual.
  (void)shard::ask(c.h.node(1), c.h.now(), EntityRef{"tally", victim}, kAdd, {}, Duration::seconds(2));
  c.h.advance(Duration::milliseconds(200));
  const auto answers = c.completions(1);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(text(answers[0].body), victim + "=1@1");
}

}  // namespace
}  // namespace weft::testing
