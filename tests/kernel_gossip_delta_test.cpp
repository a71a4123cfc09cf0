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
  DeltaTest() : kernel_(make_config(), 1) {
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
          if (const auto* dial = std::get_if<ConnectCommand>(&command)) {
            ASSERT_EQ(dial->address, n1_.address);
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

}  // namespace
}  // namespace weft
