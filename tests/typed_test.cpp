// Goal: typed messages (typed/typed.hpp) round-trip through real kernels
// (tell, ask with a typed reply, actor-to-actor asks), and every body that
// does not make it into its type (unknown tag, a tag with no handler, bytes
// that are not one MessagePack value, a value of the wrong shape, a handler
// that throws) is a counted dead letter with its reason, with no exception
// reaching the kernel: the kernels keep delivering afterwards.
#include "kernel/actors/detached_context.hpp"
#include "typed/typed.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernel_harness.hpp"

namespace weft::typed {
namespace {

struct Increment {
  std::string key;
  std::int64_t by = 0;
  MSGPACK_DEFINE(key, by)
};
struct Read {
  std::string key;
  MSGPACK_DEFINE(key)
};
struct Value {
  std::string key;
  std::int64_t count = 0;
  MSGPACK_DEFINE(key, count)
};
struct BadRequest {
  std::string reason;
  MSGPACK_DEFINE(reason)
};

using Proto = Protocol<Message<Increment, 10>, Message<Read, 11>, Message<Value, 12>, Message<BadRequest, 13>>;

// The registration is compile-time: tags and membership are constants, and
// a clash is a static_assert (the compile-fail tests in tests/CMakeLists.txt
// check its message).
static_assert(Proto::tag<Increment> == 10 && Proto::tag<BadRequest> == 13);
static_assert(Proto::has<Read> && !Proto::has<int>);
static_assert(Proto::index_of_tag(12) == std::size_t{2} && !Proto::index_of_tag(14));
static_assert(!detail::distinct_tags<Message<Increment, 1>, Message<Read, 1>>());
static_assert(detail::distinct_tags<Message<Increment, 1>, Message<Read, 2>>());

std::vector<std::uint8_t> bytes(std::initializer_list<std::uint8_t> list) { return list; }

template <class... Fields>
std::vector<std::uint8_t> pack_tuple(const Fields&... fields) {
  msgpack::sbuffer buffer;
  msgpack::pack(buffer, std::make_tuple(fields...));
  return {reinterpret_cast<const std::uint8_t*>(buffer.data()),
          reinterpret_cast<const std::uint8_t*>(buffer.data()) + buffer.size()};
}

// A key-value counter; asks get the new value, the key "boom" throws, and
// every dead letter is recorded (asks among them answered BadRequest).
class Store final : public TypedBehavior<Proto> {
 public:
  Store() {
    on<Increment>([this](Ctx& ctx, const Increment& m) {
      if (m.key == "boom") throw std::runtime_error("boom is not a key");
      counts[m.key] += m.by;
      ++handled;
      if (ctx.is_ask()) ctx.reply(Value{m.key, counts[m.key]});
    });
    on<Read>([this](Ctx& ctx, Read&& m) {
      ++handled;
      ctx.reply(Value{m.key, counts[m.key]});
    });
    on_dead_letter([this](Ctx& ctx, const DeadLetter& letter) {
      letters.push_back(letter);
      if (ctx.is_ask()) ctx.reply(BadRequest{std::string(to_string(letter.reason))});
    });
  }
  std::map<std::string, std::int64_t> counts;
  std::uint64_t handled = 0;
  std::vector<DeadLetter> letters;
};

// Asks `target` whatever Read it is told to, and records the typed outcome.
class Client final : public TypedBehavior<Proto> {
 public:
  explicit Client(ActorRef target) : target_(std::move(target)) {
    on<Read>([this](Ctx& ctx, const Read& m) { asked.push_back(ctx.ask(target_, m, Duration::milliseconds(500))); });
    on_reply<Value>([this](Ctx&, AskId id, Value v) { replies.emplace_back(id, std::move(v)); });
    on_ask_failed([this](Ctx&, AskId id, DeliveryKind kind) { failures.emplace_back(id, kind); });
  }
  std::vector<AskId> asked;
  std::vector<std::pair<AskId, Value>> replies;
  std::vector<std::pair<AskId, DeliveryKind>> failures;

 private:
  ActorRef target_;
};

using testing::Harness;

Harness joined() {
  Harness h(2);
  h.advance(Duration::seconds(3));
  return h;
}

std::vector<AskCompleted> completions(Harness& h, std::size_t i) {
  std::vector<AskCompleted> out;
  (void)h.count_events(i, [&](const Event& e) {
    if (const auto* c = std::get_if<AskCompleted>(&e)) out.push_back(*c);
    return false;
  });
  return out;
}

std::uint64_t kernel_dead_letters(Kernel& k) {
  std::uint64_t total = 0;
  for (const std::uint64_t n : k.counters().dead_letters) total += n;
  return total;
}

TEST(Typed, TellAndAskRoundTripBetweenTwoKernels) {
  Harness h = joined();
  auto owned = std::make_unique<Store>();
  Store& store = *owned;
  const ActorRef ref = h.node(1).spawn(h.now(), "store", std::move(owned));
  EXPECT_EQ(Proto::tell(h.node(2), h.now(), ref, Increment{"apples", 5}), SendResult::sent);
  EXPECT_EQ(Proto::tell(h.node(2), h.now(), ref, Increment{"apples", -2}), SendResult::sent);
  const AskId inc = Proto::ask(h.node(2), h.now(), ref, Increment{"pears", 7}, Duration::seconds(1));
  const AskId read = Proto::ask(h.node(2), h.now(), ref, Read{"apples"}, Duration::seconds(1));
  h.advance(Duration::milliseconds(200));
  EXPECT_EQ(store.counts["apples"], 3);
  EXPECT_EQ(store.handled, 4u);
  const auto done = completions(h, 2);
  ASSERT_EQ(done.size(), 2u);
  std::map<AskId, Value> answers;
  for (const AskCompleted& c : done) {
    ASSERT_EQ(c.outcome, AskOutcome::reply);
    EXPECT_EQ(c.type_tag, Proto::tag<Value>);
    const Decoded<Value> v = Proto::decode<Value>(c.type_tag, c.body);
    ASSERT_TRUE(v) << to_string(v.reason) << ": " << v.detail;
    answers[c.id] = *v;
  }
  EXPECT_EQ(answers[inc].key, "pears");
  EXPECT_EQ(answers[inc].count, 7);
  EXPECT_EQ(answers[read].key, "apples");
  EXPECT_EQ(answers[read].count, 3);
  EXPECT_EQ(store.dead_letters(), 0u);
}

TEST(Typed, ActorToActorAskGetsATypedReplyOrATypedFailure) {
  Harness h = joined();
  auto owned_store = std::make_unique<Store>();
  Store& store = *owned_store;
  const ActorRef store_ref = h.node(1).spawn(h.now(), "store", std::move(owned_store));
  store.counts["plums"] = 11;
  auto owned_client = std::make_unique<Client>(store_ref);
  Client& client = *owned_client;
  const ActorRef client_ref = h.node(2).spawn(h.now(), "client", std::move(owned_client));
  // A second client asks an actor that does not exist: its ask times out.
  auto owned_lost = std::make_unique<Client>(ActorRef{h.address(1), "nobody"});
  Client& lost = *owned_lost;
  const ActorRef lost_ref = h.node(2).spawn(h.now(), "lost", std::move(owned_lost));

  Proto::tell(h.node(2), h.now(), client_ref, Read{"plums"});
  Proto::tell(h.node(2), h.now(), lost_ref, Read{"plums"});
  h.advance(Duration::seconds(1));
  ASSERT_EQ(client.asked.size(), 1u);
  ASSERT_EQ(client.replies.size(), 1u);
  EXPECT_EQ(client.replies[0].first, client.asked[0]);
  EXPECT_EQ(client.replies[0].second.key, "plums");
  EXPECT_EQ(client.replies[0].second.count, 11);
  EXPECT_TRUE(client.failures.empty());
  ASSERT_EQ(lost.asked.size(), 1u);
  ASSERT_EQ(lost.failures.size(), 1u);
  EXPECT_EQ(lost.failures[0].first, lost.asked[0]);
  EXPECT_EQ(lost.failures[0].second, DeliveryKind::ask_timeout);
  EXPECT_EQ(client.dead_letters() + lost.dead_letters(), 0u);
}

// Sends raw bodies under chosen tags from node 2 to a Store on node 1 and
// checks each became exactly one dead letter of the given reason, the
// handlers untouched, and that the store still works afterwards.
struct BadBody {
  std::uint32_t tag;
  std::vector<std::uint8_t> body;
  DeadLetterReason reason;
  std::string detail_has;
};

void expect_dead_letters(const std::vector<BadBody>& cases) {
  Harness h = joined();
  auto owned = std::make_unique<Store>();
  Store& store = *owned;
  const ActorRef ref = h.node(1).spawn(h.now(), "store", std::move(owned));
  // As a host exports it (app/application.hpp: make_actor): the daemon's
  // /metrics shows these series.
  Metrics metrics;
  store.export_metrics(metrics, "store");
  const std::uint64_t kernel_before = kernel_dead_letters(h.node(1));
  for (const BadBody& c : cases) ASSERT_EQ(h.node(2).tell(h.now(), ref, c.tag, c.body), SendResult::sent);
  h.advance(Duration::milliseconds(200));
  EXPECT_EQ(store.handled, 0u);
  EXPECT_TRUE(store.counts.empty());
  ASSERT_EQ(store.letters.size(), cases.size());
  std::array<std::uint64_t, kDeadLetterReasonCount> expected{};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const DeadLetter& got = store.letters[i];
    SCOPED_TRACE("case " + std::to_string(i) + ": " + got.detail);
    EXPECT_EQ(got.reason, cases[i].reason);
    EXPECT_EQ(got.kind, DeliveryKind::tell);
    EXPECT_EQ(got.type_tag, cases[i].tag);
    EXPECT_NE(got.detail.find(cases[i].detail_has), std::string::npos);
    ++expected[static_cast<std::size_t>(cases[i].reason)];
  }
  const auto& exported = metrics.families().at("weft_typed_dead_letters_total").counters;
  ASSERT_EQ(exported.size(), kDeadLetterReasonCount);  // every reason, zeros too
  for (std::size_t r = 0; r < kDeadLetterReasonCount; ++r) {
    const auto reason = static_cast<DeadLetterReason>(r);
    EXPECT_EQ(store.dead_letters(reason), expected[r]) << r;
    const MetricLabels labels{{"actor", "store"}, {"reason", std::string(to_string(reason))}};
    EXPECT_EQ(exported.at(labels).value(), expected[r]) << to_string(reason);
  }
  // The kernel delivered every one of them: its dead letters are its own.
  EXPECT_EQ(kernel_dead_letters(h.node(1)), kernel_before);

  // Nothing unwound the kernel: it still delivers, and the store answers.
  const AskId id = Proto::ask(h.node(2), h.now(), ref, Increment{"after", 1}, Duration::seconds(1));
  h.advance(Duration::milliseconds(200));
  EXPECT_EQ(store.counts["after"], 1);
  const auto done = completions(h, 2);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].id, id);
  EXPECT_TRUE(Proto::decode<Value>(done[0].type_tag, done[0].body));
}

TEST(Typed, AWrongTypeBodyIsACountedDeadLetter) {
  expect_dead_letters({
      // [7, "x"]: the key is an integer where Increment has a string.
      {Proto::tag<Increment>, pack_tuple(std::int64_t{7}, std::string("x")), DeadLetterReason::wrong_type, "[7,\"x\"]"},
      // Not an array at all.
      {Proto::tag<Read>, bytes({0x2a}), DeadLetterReason::wrong_type, "does not convert: 42"},
      // A map where a MSGPACK_DEFINE type is an array.
      {Proto::tag<Increment>, bytes({0x81, 0xa1, 'k', 0x01}), DeadLetterReason::wrong_type, "does not convert"},
  });
}

TEST(Typed, UnknownAndUnhandledTagsAreCountedDeadLetters) {
  const std::vector<std::uint8_t> valid = Proto::encode(Increment{"k", 1});
  expect_dead_letters({
      {999, valid, DeadLetterReason::unknown_tag, "999"},
      {0, valid, DeadLetterReason::unknown_tag, "tag 0"},
      // Value is in the protocol, but the store takes no Value messages.
      {Proto::tag<Value>, Proto::encode(Value{"k", 1}), DeadLetterReason::unexpected_tag, "tag 12"},
  });
}

TEST(Typed, MalformedMsgpackBytesAreCountedDeadLetters) {
  std::vector<std::uint8_t> trailing = Proto::encode(Increment{"k", 1});
  trailing.push_back(0x00);
  const std::vector<std::uint8_t> whole = Proto::encode(Increment{"a longer key", 1});
  const std::vector<std::uint8_t> truncated(whole.begin(), whole.begin() + 10);  // of 15 bytes
  expect_dead_letters({
      {Proto::tag<Increment>, bytes({0xc1}), DeadLetterReason::malformed_body, "parse error"},  // never-used byte
      {Proto::tag<Increment>, truncated, DeadLetterReason::malformed_body, "insufficient"},
      {Proto::tag<Increment>, bytes({}), DeadLetterReason::malformed_body, ""},
      {Proto::tag<Increment>, trailing, DeadLetterReason::malformed_body, "1 bytes after the value"},
      // Claims 2^32-1 elements in five bytes: refused by size, not by
      // trying to allocate for them.
      {Proto::tag<Increment>, bytes({0xdd, 0xff, 0xff, 0xff, 0xff}), DeadLetterReason::malformed_body,
       "array size overflow"},
      {Proto::tag<Increment>, bytes({0xdf, 0xff, 0xff, 0xff, 0xff}), DeadLetterReason::malformed_body,
       "map size overflow"},
  });
}

TEST(Typed, AHandlerThatThrowsIsACountedDeadLetter) {
  expect_dead_letters({
      {Proto::tag<Increment>, Proto::encode(Increment{"boom", 1}), DeadLetterReason::handler_threw,
       "boom is not a key"},
  });
}

TEST(Typed, AnAskWithABadBodyCanBeAnsweredByTheHookAndTheCallerSeesTheTag) {
  Harness h = joined();
  auto owned = std::make_unique<Store>();
  Store& store = *owned;
  const ActorRef ref = h.node(1).spawn(h.now(), "store", std::move(owned));
  const AskId id = h.node(2).ask(h.now(), ref, Proto::tag<Read>, bytes({0xc1}), Duration::seconds(1));
  h.advance(Duration::milliseconds(200));
  EXPECT_EQ(store.dead_letters(DeadLetterReason::malformed_body), 1u);
  ASSERT_EQ(store.letters.size(), 1u);
  EXPECT_EQ(store.letters[0].kind, DeliveryKind::ask);
  const auto done = completions(h, 2);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].id, id);
  ASSERT_EQ(done[0].outcome, AskOutcome::reply);
  // The caller expected a Value: a BadRequest is another registered tag.
  const Decoded<Value> as_value = Proto::decode<Value>(done[0].type_tag, done[0].body);
  EXPECT_FALSE(as_value);
  EXPECT_EQ(as_value.reason, DeadLetterReason::unexpected_tag);
  const Decoded<BadRequest> as_bad = Proto::decode<BadRequest>(done[0].type_tag, done[0].body);
  ASSERT_TRUE(as_bad);
  EXPECT_EQ(as_bad->reason, "malformed_body");
}

// A Context that records replies, to call receive() directly.
class RecordingContext final : public DetachedContext {
 public:
  const ActorRef& self() const override { return self_; }
  Instant now() const override { return Instant::from_ns(1); }
  SendResult tell(const ActorRef&, std::uint32_t, std::span<const std::uint8_t>) override { return SendResult::sent; }
  AskId ask(const ActorRef&, std::uint32_t, std::span<const std::uint8_t>, Duration) override { return 0; }
  SendResult reply(std::uint32_t tag, std::span<const std::uint8_t>) override {
    replies.push_back(tag);
    return SendResult::sent;
  }
  std::vector<std::uint32_t> replies;

 private:
  ActorRef self_{NodeAddress{"10.0.0.1", 7000}, "store"};
};

TEST(Typed, NothingThrowsOutOfReceiveEvenWhenTheHookThrows) {
  TypedBehavior<Proto> behavior;
  behavior.on<Increment>([](TypedBehavior<Proto>::Ctx&, const Increment&) { throw 17; });  // not a std::exception
  behavior.on_dead_letter([](TypedBehavior<Proto>::Ctx&, const DeadLetter& letter) {
    if (letter.reason == DeadLetterReason::malformed_body) throw std::logic_error("hook failed");
  });
  RecordingContext context;
  const std::vector<std::uint8_t> good = Proto::encode(Increment{"k", 1});
  const std::vector<std::uint8_t> bad = bytes({0xc1});
  Delivery d;
  d.kind = DeliveryKind::ask;
  d.type_tag = Proto::tag<Increment>;
  d.body = good;
  EXPECT_NO_THROW(behavior.receive(context, d));
  d.body = bad;
  EXPECT_NO_THROW(behavior.receive(context, d));
  // One throwing handler, and one malformed body whose hook threw as well.
  EXPECT_EQ(behavior.dead_letters(DeadLetterReason::handler_threw), 2u);
  EXPECT_EQ(behavior.dead_letters(DeadLetterReason::malformed_body), 1u);
  EXPECT_EQ(behavior.dead_letters(), 3u);
  EXPECT_TRUE(context.replies.empty());  // without a hook's reply, an asker times out
}

TEST(Typed, CallerSideDecodeNeverThrows) {
  const std::vector<std::uint8_t> value = Proto::encode(Value{"k", 9});
  EXPECT_EQ(Proto::decode<Value>(Proto::tag<Value>, value)->count, 9);
  EXPECT_EQ(Proto::decode<Value>(77, value).reason, DeadLetterReason::unknown_tag);
  EXPECT_EQ(Proto::decode<Value>(Proto::tag<Read>, value).reason, DeadLetterReason::unexpected_tag);
  EXPECT_EQ(Proto::decode<Value>(Proto::tag<Value>, bytes({0x92, 0x01})).reason, DeadLetterReason::malformed_body);
  EXPECT_EQ(Proto::decode<Value>(Proto::tag<Value>, bytes({0x92, 0x01, 0x02})).reason, DeadLetterReason::wrong_type);
}

// msgpack-c's rule for MSGPACK_DEFINE, kept on purpose so a message can gain
// fields across a rolling upgrade: a shorter array leaves the missing fields
// at their defaults, a longer one has its extra elements ignored.
TEST(Typed, ArrayLengthFollowsMsgpackCsVersioningRule) {
  const Decoded<Increment> shorter = Proto::decode<Increment>(Proto::tag<Increment>, pack_tuple(std::string("k")));
  ASSERT_TRUE(shorter);
  EXPECT_EQ(shorter->key, "k");
  EXPECT_EQ(shorter->by, 0);
  const Decoded<Read> longer =
      Proto::decode<Read>(Proto::tag<Read>, pack_tuple(std::string("k"), std::int64_t{5}, true));
  ASSERT_TRUE(longer);
  EXPECT_EQ(longer->key, "k");
}

}  // namespace
}  // namespace weft::typed
