// Goal: a whole gossip state is answered with only what the sender lacks,
// and a larger seen set is taught without the tables. The delta carries the
// records that differ from the state received and the digest of the whole,
// and a delta the receiver cannot match to its own digest is answered with
// the whole state.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "kernel/drain.hpp"
#include "kernel/kernel.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/message.hpp"
#include "tests/test_ids.hpp"
#include "tests/wire_test_support.hpp"

namespace weft {
namespace {

using test::member_id;
using wire::testing::encode_frame;

// n2 (not the leader: n1 has the lower address) talking to n1, played by
// the test: n1 dials in and n2's frames to n1 are decoded as they leave.
class DeltaTest : public ::testing::Test {
 protected:
  DeltaTest() : DeltaTest(make_config()) {}
  explicit DeltaTest(const Config& config) : kernel_(config, 1) {
    kernel_.handle_tick(now_);
    from_n1_ = kernel_.handle_link_accepted(now_);
    kernel_.handle_bytes(now_, from_n1_, encode_frame(wire::testing::hello_from(cluster_name_, n1_)));
    pump();
  }

  static Config make_config() {
    Config c;
    c.self = member_id(2).address;
    c.seeds = {member_id(1).address};
    return c;
  }

  template <class Message>
  void from_n1(const Message& message) {
    kernel_.handle_bytes(now_, from_n1_, encode_frame(message));
    pump();
  }

  // Runs the kernel's outputs: dials succeed at once, and every control
  // frame written towards n1 is decoded into sent_.
  void pump() {
    (void)drain(
        kernel_,
        [&](LinkCommand&& command) {
          if (const auto* close = std::get_if<CloseCommand>(&command)) closed_.push_back(*close);
          if (const auto* dial = std::get_if<ConnectCommand>(&command)) {
            if (dial->address != n1_.address) {
              dialed_elsewhere_.push_back(dial->address);  // left unanswered
              return;
            }
            to_n1_ = dial->link;
            kernel_.handle_link_up(now_, dial->link);
            kernel_.handle_bytes(now_, dial->link, encode_frame(wire::testing::hello_from(cluster_name_, n1_)));
          }
        },
        [&](const Transmit& t) {
          const std::vector<std::uint8_t> bytes(t.bytes.begin(), t.bytes.end());
          if (to_n1_ && t.link == *to_n1_) {
            (void)decoder_.feed(bytes, [&](wire::Bytes payload) {
              wire::Decoded<wire::Message> decoded = wire::decode_message(payload);
              ASSERT_TRUE(decoded.ok());
              sent_.push_back(std::move(decoded.value));
            });
          }
          kernel_.handle_sent(now_, t.link);
        },
        [](Event&&) { return true; });
  }

  template <class T>
  std::vector<T> sent_of() const {
    std::vector<T> out;
    for (const wire::Message& m : sent_) {
      if (const auto* v = std::get_if<T>(&m)) out.push_back(*v);
    }
    return out;
  }

  // n1 up and n2 joining: the table n2 holds once n1 has heard of it.
  static std::vector<Member> both() {
    return {Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::joining}};
  }

  const std::string cluster_name_ = "weft";
  const MemberId n1_ = member_id(1);
  Instant now_ = Instant::from_ns(1'000'000'000);
  Kernel kernel_;
  LinkId from_n1_{};
  std::optional<LinkId> to_n1_;
  wire::FrameDecoder decoder_;
  std::vector<wire::Message> sent_;
  std::vector<CloseCommand> closed_;
  std::vector<NodeAddress> dialed_elsewhere_;
};

TEST_F(DeltaTest, AStateIsAnsweredWithOnlyTheRecordsItLacks) {
  // n1's state knows only n1: n2 answers with its own record alone.
  from_n1(wire::GossipState{{Member{member_id(1), MemberStatus::up}}, {}, {0x01}});
  const auto deltas = sent_of<wire::GossipDelta>();
  ASSERT_EQ(deltas.size(), 1U);
  EXPECT_EQ(deltas[0].members, (std::vector<Member>{Member{member_id(2), MemberStatus::joining}}));
  EXPECT_TRUE(deltas[0].rows.empty());
  EXPECT_EQ(deltas[0].digest, kernel_.state_digest()) << "the digest of n2's whole state";
  EXPECT_EQ(sent_of<wire::GossipState>().size(), 0U) << "no whole state went back";
}

TEST_F(DeltaTest, AnEqualStateIsAnsweredWithNothing) {
  from_n1(wire::GossipState{both(), {}, {0x01}});
  EXPECT_EQ(sent_of<wire::GossipDelta>().size(), 0U);
  EXPECT_EQ(sent_of<wire::GossipState>().size(), 0U);
}

TEST_F(DeltaTest, ALargerSeenSetIsTaughtWithoutTheTables) {
  from_n1(wire::GossipState{both(), {}, {0x01}});  // n2 now knows n1 and n2 hold it
  sent_.clear();
  from_n1(wire::GossipDigest{kernel_.state_digest(), 1});  // n1 knows of one holder
  const auto deltas = sent_of<wire::GossipDelta>();
  ASSERT_EQ(deltas.size(), 1U);
  EXPECT_TRUE(deltas[0].members.empty());
  EXPECT_TRUE(deltas[0].rows.empty());
  EXPECT_EQ(deltas[0].digest, kernel_.state_digest());
  EXPECT_EQ(deltas[0].seen, (std::vector<std::uint8_t>{0x03})) << "n1 and n2, the table's two records";
}

TEST_F(DeltaTest, ADeltaMatchingTheDigestSendsNothingBack) {
  from_n1(wire::GossipState{{Member{member_id(1), MemberStatus::up}}, {}, {0x01}});
  const std::uint64_t digest = kernel_.state_digest();
  const std::uint64_t states = kernel_.counters().gossip_states_sent;
  sent_.clear();
  // n1 answers with nothing new and n2's digest: the states are equal.
  from_n1(wire::GossipDelta{digest, {}, {}, {0x01}});
  EXPECT_EQ(kernel_.counters().gossip_states_sent, states);
  EXPECT_TRUE(sent_.empty());
}

// A delta under our digest carries the sender's seen bits over its table,
// which is then ours: n3's bit teaches that n3 holds the state. Bits of
// another length cannot be over our table and teach nothing (the sender
// itself still counts: its digest is ours).
TEST_F(DeltaTest, ADeltasSeenBitsAreReadOverOurTableOnly) {
  const std::vector<Member> n1_and_n3{Member{member_id(1), MemberStatus::up}, Member{member_id(3), MemberStatus::up}};
  from_n1(wire::GossipState{n1_and_n3, {}, {0x03}});  // n2 adds itself: {n1, n2, n3}
  ASSERT_EQ(kernel_.members().size(), 3U);
  const std::uint64_t digest = kernel_.state_digest();
  from_n1(wire::GossipDelta{digest, {}, {}, {0x04, 0x00}});
  EXPECT_EQ(kernel_.seen_by(), (std::vector<MemberId>{member_id(1), member_id(2)})) << "two bytes for three members";
  from_n1(wire::GossipDelta{digest, {}, {}, {0x0c}});
  EXPECT_EQ(kernel_.seen_by(), (std::vector<MemberId>{member_id(1), member_id(2)})) << "a fourth bit of three";
  from_n1(wire::GossipDelta{digest, {}, {}, {0x04}});
  EXPECT_EQ(kernel_.seen_by(), (std::vector<MemberId>{member_id(1), member_id(2), member_id(3)}));
  EXPECT_EQ(kernel_.state_digest(), digest) << "the state itself never moved";
}

TEST_F(DeltaTest, ADeltaNotMatchingTheDigestIsAnsweredWithTheWholeState) {
  from_n1(wire::GossipState{both(), {}, {0x01}});
  sent_.clear();
  // n1 claims a digest n2's state does not have after the merge (n1 holds
  // something it did not send): n2 sends everything it has.
  from_n1(wire::GossipDelta{kernel_.state_digest() + 1, {}, {}, {0x01}});
  const auto states = sent_of<wire::GossipState>();
  ASSERT_EQ(states.size(), 1U);
  EXPECT_EQ(states[0].members, both());
}

// A record this node refused is not sent back: the sender keeps it, and
// the two would trade it at the speed of the link (a forged claim about n2
// made n2 and its peers trade about a million a second).
TEST_F(DeltaTest, AStateThatDiffersOnlyByARefusedRecordIsNotAnswered) {
  const std::vector<Member> forged = {Member{member_id(1), MemberStatus::up},
                                      Member{member_id(2, 1ULL << 41), MemberStatus::up}};  // past the jump bound
  from_n1(wire::GossipState{forged, {}, {0x03}});
  EXPECT_EQ(sent_of<wire::GossipDelta>().size(), 0U) << "the delta would carry only n2's own record";
  EXPECT_EQ(kernel_.counters().gossip_replies_withheld, 1U);
  EXPECT_EQ(kernel_.counters().ingest_rejected, 1U);
  EXPECT_EQ(kernel_.counters().refutations, 0U) << "a claim past the jump bound spreads nowhere: nothing to refute";
  EXPECT_EQ(kernel_.self(), member_id(2));
}

TEST_F(DeltaTest, ADeltaWithARefusedRecordIsNotAnsweredWithTheWholeState) {
  const std::vector<Member> forged = {Member{member_id(2, 1ULL << 41), MemberStatus::up}};
  from_n1(wire::GossipDelta{kernel_.state_digest() + 1, forged, {}, {}});
  EXPECT_EQ(sent_of<wire::GossipState>().size(), 0U);
  EXPECT_EQ(kernel_.counters().gossip_replies_withheld, 1U);
}

// W4 (docs/properties.md): only n2 takes n2's incarnations and asks to
// leave; a peer claiming either is refuted with a life above the claim.
TEST_F(DeltaTest, ANewerLifeClaimedOfThisNodeIsRefutedWithALifeAboveIt) {
  from_n1(wire::GossipState{{Member{member_id(1), MemberStatus::up}, Member{member_id(2, 7), MemberStatus::up}},
                            {},
                            {0x03}});
  EXPECT_EQ(kernel_.self(), member_id(2, 8));
  const Member* me = kernel_.members().find(member_id(2).address);
  ASSERT_NE(me, nullptr);
  EXPECT_EQ(*me, (Member{member_id(2, 8), MemberStatus::joining})) << "a new life joins afresh";
  EXPECT_EQ(kernel_.counters().refutations, 1U);
  EXPECT_EQ(kernel_.counters().marks[static_cast<std::size_t>(Mark::refuted_claim)], 1U);
}

TEST_F(DeltaTest, ALeaveThisNodeNeverAskedForIsRefusedAndRefuted) {
  from_n1(wire::GossipState{{Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::leaving}},
                            {},
                            {0x03}});
  EXPECT_EQ(kernel_.counters().ingest_rejected, 1U);
  EXPECT_EQ(kernel_.self(), member_id(2, 2));
  EXPECT_EQ(kernel_.members().find(member_id(2).address)->status, MemberStatus::joining);
}

// A forger who keeps claiming costs at most one new life a gossip_interval.
TEST_F(DeltaTest, RefutationsComeAtMostOnceAGossipInterval) {
  // n1's own record rides along: a dialer whose address holds no record
  // here waits for a dial back once the new life closed n2's links.
  const auto claim = [&](std::uint64_t incarnation) {
    from_n1(wire::GossipDelta{
        1, {Member{member_id(1), MemberStatus::up}, Member{member_id(2, incarnation), MemberStatus::up}}, {}, {}});
  };
  claim(10);
  ASSERT_EQ(kernel_.self(), member_id(2, 11));
  // The new life closed the old one's links: n1 dials in again.
  now_ = now_ + Duration::milliseconds(50);
  from_n1_ = kernel_.handle_link_accepted(now_);
  kernel_.handle_bytes(now_, from_n1_, encode_frame(wire::testing::hello_from(cluster_name_, n1_)));
  claim(20);
  EXPECT_EQ(kernel_.self(), member_id(2, 11)) << "the second claim waits for the interval";
  now_ = now_ + kernel_.config().gossip_interval;
  kernel_.handle_tick(now_);  // the gossip round refutes what is pending
  pump();
  EXPECT_EQ(kernel_.self(), member_id(2, 21));
  EXPECT_EQ(kernel_.counters().refutations, 2U);
}

// A hello older than a life only gossip told of is taken: the gossiped life
// may be forged, and the member refused could never hear the claim it must
// refute. Older than a life a handshake here showed, it is an old process.
TEST_F(DeltaTest, AHelloOlderThanHearsayIsTakenButNotOlderThanAProvenLife) {
  from_n1(wire::GossipState{{Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::joining},
                             Member{member_id(3, 5), MemberStatus::up}},
                            {},
                            {0x03}});
  ASSERT_NE(kernel_.members().find(member_id(3).address), nullptr);
  EXPECT_FALSE(kernel_.proven(member_id(3, 5)));
  const auto hello_on_new_link = [&](const MemberId& as) {
    const LinkId link = kernel_.handle_link_accepted(now_);
    kernel_.handle_bytes(now_, link, encode_frame(wire::testing::hello_from(cluster_name_, as)));
    pump();
    for (const CloseCommand& c : closed_) {
      if (c.link == link) return std::optional<CloseReason>(c.reason);
    }
    return std::optional<CloseReason>();
  };
  EXPECT_EQ(hello_on_new_link(member_id(3, 1)), std::nullopt) << "not stale, and not implausible either";
  EXPECT_EQ(hello_on_new_link(member_id(3, 5)), std::nullopt);
  EXPECT_TRUE(kernel_.proven(member_id(3, 5)));
  EXPECT_EQ(hello_on_new_link(member_id(3, 4)), CloseReason::stale_incarnation);
}

// Issue 43, case 3: a record of an address this node holds nothing of is
// judged against the newest life it knows, as a known address's is against
// its life: a squat far above every life (2^62) is refused, so the real
// node started there later is not kept out; within the bound it is taken,
// and the real node can refute it.
TEST_F(DeltaTest, AnUnknownAddressFarAboveEveryKnownLifeIsRefused) {
  const std::uint64_t jump = kernel_.config().max_incarnation_jump;
  from_n1(wire::GossipState{{Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::joining},
                             Member{member_id(3, 1ULL << 62), MemberStatus::up}},
                            {},
                            {0x01}});
  EXPECT_EQ(kernel_.members().find(member_id(3).address), nullptr);
  EXPECT_EQ(kernel_.counters().ingest_rejected, 1U);
  from_n1(wire::GossipState{{Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::joining},
                             Member{member_id(3, 1 + jump), MemberStatus::up}},
                            {},
                            {0x01}});
  ASSERT_NE(kernel_.members().find(member_id(3).address), nullptr) << "the newest life known is 1: 1 + jump is plausible";
  EXPECT_EQ(kernel_.counters().ingest_rejected, 1U);
}

TEST_F(DeltaTest, AHelloFromAnUnknownAddressFarAboveEveryKnownLifeIsRefused) {
  const LinkId link = kernel_.handle_link_accepted(now_);
  kernel_.handle_bytes(now_, link, encode_frame(wire::testing::hello_from(cluster_name_, member_id(4, 1ULL << 62))));
  pump();
  ASSERT_FALSE(closed_.empty());
  EXPECT_EQ(closed_.back().link, link);
  EXPECT_EQ(closed_.back().reason, CloseReason::implausible_incarnation);
}

TEST_F(DeltaTest, WithRefutationPlantedOffAClaimIsOnlyRefused) {
  Config c = make_config();
  c.mutations.claim_refutation_off = true;
  Kernel k(c, 1);
  k.handle_tick(now_);
  // k's dial to its seed n1 is answered, so n1 is no stranger to wait for.
  (void)drain(
      k,
      [&](LinkCommand&& command) {
        if (const auto* dial = std::get_if<ConnectCommand>(&command)) {
          k.handle_link_up(now_, dial->link);
          k.handle_bytes(now_, dial->link, encode_frame(wire::testing::hello_from(cluster_name_, n1_)));
        }
      },
      [&](const Transmit& t) { k.handle_sent(now_, t.link); }, [](Event&&) { return true; });
  const LinkId link = k.handle_link_accepted(now_);
  k.handle_bytes(now_, link, encode_frame(wire::testing::hello_from(cluster_name_, n1_)));
  k.handle_bytes(now_, link,
                 encode_frame(wire::GossipState{{Member{member_id(1), MemberStatus::up},
                                                 Member{member_id(2, 7), MemberStatus::up}},
                                                {},
                                                {0x03}}));
  EXPECT_EQ(k.self(), member_id(2));
  EXPECT_EQ(k.counters().ingest_rejected, 1U);
  EXPECT_EQ(k.counters().refutations, 0U);
}

// Down is the leader's decision on rows (kernel/membership/down_claims.hpp):
// a down of a life n2 holds live, with no row behind it, is held and sent
// to its subject, and taken only once the subject had the time to refute.
class DownClaimTest : public DeltaTest {
 protected:
  // n1, n2 and n3, every bit set: n2 vouches for n3.
  void three_up() {
    from_n1(wire::GossipState{
        {Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::up},
         Member{member_id(3), MemberStatus::up}},
        {},
        {0x07}});
    ASSERT_EQ(kernel_.members().find(member_id(3).address)->status, MemberStatus::up);
  }
  void n3_down(std::vector<ReachabilityRow> rows = {}) {
    from_n1(wire::GossipState{
        {Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::up},
         Member{member_id(3), MemberStatus::down}},
        std::move(rows),
        {0x07}});
  }
  MemberStatus n3_status() const { return kernel_.members().find(member_id(3).address)->status; }
};

TEST_F(DownClaimTest, ADownWithNoRowIsHeldAndSentToItsSubject) {
  three_up();
  n3_down();
  EXPECT_EQ(n3_status(), MemberStatus::up) << "held, not merged";
  EXPECT_EQ(kernel_.counters().downs_held, 1U);
  kernel_.handle_tick(now_);  // the dial to n3 falls due
  pump();
  EXPECT_EQ(dialed_elsewhere_, std::vector<NodeAddress>{member_id(3).address}) << "sent to n3, to refute";
  n3_down();
  EXPECT_EQ(n3_status(), MemberStatus::up) << "heard again within the wait: still held";
  EXPECT_EQ(kernel_.counters().downs_held, 1U) << "one claim, counted once";
  now_ = now_ + compute_bounds(kernel_.config(), 3).refute;
  kernel_.handle_tick(now_);
  n3_down();
  EXPECT_EQ(n3_status(), MemberStatus::down) << "n3 had the time to refute and did not: taken";
}

TEST_F(DownClaimTest, ADownWithARowBehindItIsTakenAtOnce) {
  three_up();
  n3_down({ReachabilityRow{member_id(1), 1, {member_id(3)}}});
  EXPECT_EQ(n3_status(), MemberStatus::down);
  EXPECT_EQ(kernel_.counters().downs_held, 0U);
}

TEST_F(DownClaimTest, ANewerLifeOfTheSubjectEndsTheClaim) {
  three_up();
  n3_down();
  from_n1(wire::GossipState{
      {Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::up},
       Member{member_id(3, 2), MemberStatus::joining}},
      {},
      {0x07}});
  EXPECT_EQ(kernel_.members().find(member_id(3).address)->id, member_id(3, 2)) << "n3 refuted: its next life";
  now_ = now_ + compute_bounds(kernel_.config(), 3).refute;
  kernel_.handle_tick(now_);
  n3_down();
  EXPECT_EQ(kernel_.members().find(member_id(3).address)->id, member_id(3, 2))
      << "the old life's down is moot";
  EXPECT_EQ(n3_status(), MemberStatus::joining);
}

// The subject: a down of its own life, with no row marking it and nothing
// that cut it off, is refuted with a new life even under on_downed =
// shut_down; with a row marking it, the down may be real, and it stops.
class ShutDownOnDownTest : public DeltaTest {
 protected:
  ShutDownOnDownTest() : DeltaTest(shut_down_config()) {}
  static Config shut_down_config() {
    Config c = make_config();
    c.on_downed = OnDowned::shut_down;
    return c;
  }
  void n2_down(std::vector<ReachabilityRow> rows) {
    from_n1(wire::GossipState{{Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::down}},
                              std::move(rows),
                              {0x03}});
  }
};

TEST_F(ShutDownOnDownTest, AForgedDownOfThisNodeIsRefutedNotObeyed) {
  n2_down({});
  EXPECT_FALSE(kernel_.is_shut_down());
  EXPECT_EQ(kernel_.self(), member_id(2, 2)) << "a new life above the down";
  EXPECT_EQ(kernel_.counters().downs_refuted, 1U);
}

TEST_F(ShutDownOnDownTest, ADownWithARowMarkingThisNodeStopsIt) {
  n2_down({ReachabilityRow{member_id(1), 1, {member_id(2)}}});
  EXPECT_TRUE(kernel_.is_shut_down());
  EXPECT_EQ(kernel_.counters().downs_refuted, 0U);
}

}  // namespace
}  // namespace weft
