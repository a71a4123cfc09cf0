// A region driven by hand, for unit tests of its rules (handoffs, sends
// from its node, batches): a context that records every send (no driver, no simulator), an entity whose state
// is a count, and a fixture that feeds views, tells and handoffs to the
// region and reads the counts back.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shard/envelope.hpp"
#include "shard/handoff_wire.hpp"
#include "shard/placement.hpp"
#include "shard/region.hpp"
#include "test_ids.hpp"

namespace weft::shard::test_region {

// One send a Recorder saw: the tells, asks and forwards a region (or a
// sender through it) made, in order, with how the Recorder answered.
struct Sent {
  ActorRef to;
  std::uint32_t tag = 0;
  std::vector<std::uint8_t> body;
  DeliveryKind kind = DeliveryKind::tell;
  SendResult result = SendResult::sent;
};

// A region's context that records every send and answers each with
// `result`; local_behavior finds `region` by its name (the sharding layer's
// senders reach their node's region through it), nothing else.
class Recorder final : public Context {
 public:
  explicit Recorder(const NodeAddress& self) : self_{self, region_name("tally")} {}

  const ActorRef& self() const override { return self_; }
  Instant now() const override { return Instant::from_ns(1'000'000'000); }
  SendResult tell(const ActorRef& to, std::uint32_t tag, std::span<const std::uint8_t> body) override {
    if (tag == kHandoffDoneTag) dones.push_back({to, decode_done(body)});
    return record(to, tag, body, DeliveryKind::tell);
  }
  AskId ask(const ActorRef& to, std::uint32_t tag, std::span<const std::uint8_t> body, Duration) override {
    (void)record(to, tag, body, DeliveryKind::ask);
    return ++asks_;
  }
  SendResult reply(std::uint32_t, std::span<const std::uint8_t>) override { return SendResult::sent; }
  std::span<const Member> members() const override { return members_; }
  SendResult forward(const ActorRef& to, const Delivery& message, std::uint32_t tag,
                     std::span<const std::uint8_t> body) override {
    return record(to, tag, body, message.kind);
  }
  SendResult reply_to(const Delivery&, std::uint32_t, std::span<const std::uint8_t>) override {
    return SendResult::sent;
  }
  void start_timer(std::uint32_t, Duration) override {}
  void cancel_timer(std::uint32_t) override {}
  Behavior* local_behavior(std::string_view name) const override { return name == self_.name ? region : nullptr; }

  // How many sends to `to` carried `tag`.
  std::size_t count(const ActorRef& to, std::uint32_t tag) const {
    std::size_t n = 0;
    for (const Sent& s : sent) n += s.to == to && s.tag == tag;
    return n;
  }
  // The sends that carried `tag`, in order.
  std::vector<Sent> with_tag(std::uint32_t tag) const {
    std::vector<Sent> out;
    for (const Sent& s : sent) {
      if (s.tag == tag) out.push_back(s);
    }
    return out;
  }
  // The last HandoffDone told to `to`, decoded (nothing if none, or if it
  // did not decode).
  std::optional<HandoffDone> last_done(const ActorRef& to) const {
    for (auto it = dones.rbegin(); it != dones.rend(); ++it) {
      if (it->first == to) return it->second;
    }
    return std::nullopt;
  }

  std::vector<Member> members_;
  std::vector<Sent> sent;
  std::vector<std::pair<ActorRef, std::optional<HandoffDone>>> dones;
  SendResult result = SendResult::sent;  // what the next sends report
  Region* region = nullptr;              // what local_behavior finds, if set

 private:
  SendResult record(const ActorRef& to, std::uint32_t tag, std::span<const std::uint8_t> body, DeliveryKind kind) {
    sent.push_back({to, tag, {body.begin(), body.end()}, kind, result});
    return result;
  }
  ActorRef self_;
  AskId asks_ = 0;
};

// Counts the messages it is handed; its state is the count.
class Counter final : public Entity {
 public:
  void receive(Context&, const Delivery&) override { ++count; }
  bool hand_over(std::vector<std::uint8_t>& state) override {
    state.push_back(static_cast<std::uint8_t>(count));
    return true;
  }
  void take_over(std::span<const std::uint8_t> state) override { count = state.empty() ? 0 : state[0]; }
  int count = 0;
};

const Delivery members_changed{DeliveryKind::members_changed, {}, 0, 0, {}};

struct Fixture {
  explicit Fixture(const RegionMutations& mutations = {}) : context(weft::test::member_id(1).address) {
    EntityKind kind;
    kind.name = "tally";
    kind.shards = 8;
    kind.mutations = mutations;
    kind.make = [](std::string_view) { return std::make_unique<Counter>(); };
    region = std::make_unique<Region>(std::move(kind));
  }
  static Member at(int n, MemberStatus status, std::uint64_t life = 1) {
    return Member{weft::test::member_id(n, life), status};
  }
  void view(std::vector<Member> members) {
    context.members_ = std::move(members);
    region->receive(context, members_changed);
  }
  // An entity message as one arrives from a node without a region: the
  // region numbers it and, owning its shard, hands it to the entity.
  void tell(const std::string& key) {
    const std::vector<std::uint8_t> envelope = encode(EntityMessage{0, 7, key, {}});
    region->receive(context, Delivery{DeliveryKind::tell, ActorRefView{client_.node.host, client_.node.port, client_.name}, 0,
                                      kEntityTag, envelope});
  }
  // What member n's region sends this one's: `key`'s state when `count` is
  // set, then a HandoffDone sent to life `to_life` (0: none in particular)
  // that names `key`'s shard when `names_shard`.
  void handoff_from(int n, const std::string& key, std::optional<int> count, bool names_shard,
                    std::uint64_t to_life = 0) {
    const NodeAddress from_node = weft::test::member_id(n).address;
    const ActorRefView from{from_node.host, from_node.port, "shard.tally"};
    const ShardId shard = region->shard_of_key(key);
    if (count) {
      const std::vector<std::uint8_t> state{static_cast<std::uint8_t>(*count)};
      const std::vector<std::uint8_t> part = encode_entity({shard, key, state});
      region->receive(context, Delivery{DeliveryKind::tell, from, 0, kHandoffEntityTag, part});
    }
    HandoffDone done;
    done.to_life = to_life;
    if (names_shard) done.shards[shard];
    const std::vector<std::uint8_t> body = encode_done(done);
    region->receive(context, Delivery{DeliveryKind::tell, from, 0, kHandoffDoneTag, body});
  }
  int count(const std::string& key) const {
    const auto* counter = dynamic_cast<const Counter*>(region->entity(key));
    return counter == nullptr ? -1 : counter->count;
  }
  // A key whose shard each view in `owners` gives the member named beside it.
  std::string key_owned_as(const std::vector<std::pair<std::vector<Member>, int>>& owners) const {
    for (int i = 0; i < 1000; ++i) {
      const std::string k = "k" + std::to_string(i);
      bool all = true;
      for (const auto& [members, owner] : owners) {
        all = all && Placement::of_node(members, context.self().node).owner("tally", region->shard_of_key(k)) ==
                         weft::test::member_id(owner).address;
      }
      if (all) return k;
    }
    return {};
  }

  Recorder context;
  std::unique_ptr<Region> region;
  ActorRef client_{weft::test::member_id(3).address, "client"};
};

}  // namespace weft::shard::test_region
