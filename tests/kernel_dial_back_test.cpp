// Goal: without a key, a stranger's hello cannot make a node an amplifier
// (issue 43, case 6). A frame from a dialer whose address holds no record
// is answered only once the node's own dial to that address was answered by
// the life the hello named; the dial carries the node's hello and nothing
// else, a Join is taken only then, and the dials in flight are bounded.
// kernel/membership/dial_backs.hpp has the model.
#include <gtest/gtest.h>

#include <map>
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

// n2 alone (its own seed), keyless. Strangers dial in as the test plays
// them; n2's dials are recorded and their bytes decoded, and a dial is
// answered only when the test says so.
class DialBackTest : public ::testing::Test {
 protected:
  explicit DialBackTest(std::uint32_t pending = 1024) : kernel_(make_config(pending), 1) {
    kernel_.handle_tick(now_);
    pump();
  }

  static Config make_config(std::uint32_t pending) {
    Config c;
    c.self = member_id(2).address;
    c.seeds = {member_id(2).address};
    c.max_pending_handshakes = pending;
    return c;
  }

  // `stranger` dials n2, says hello and sends `message`.
  template <class Message>
  void stranger_sends(const MemberId& stranger, const Message& message) {
    const LinkId link = kernel_.handle_link_accepted(now_);
    std::vector<std::uint8_t> bytes = encode_frame(wire::testing::hello_from(cluster_name_, stranger));
    const std::vector<std::uint8_t> frame = encode_frame(message);
    bytes.insert(bytes.end(), frame.begin(), frame.end());
    kernel_.handle_bytes(now_, link, bytes);
    kernel_.handle_tick(now_);  // dials fall due on a tick
    pump();
  }

  // The process at `life.address` answers n2's dial there with its hello.
  void answer_dial(const MemberId& life) {
    const auto it = dials_.find(life.address);
    ASSERT_NE(it, dials_.end()) << "n2 never dialed " << life.address.to_string();
    kernel_.handle_bytes(now_, it->second.link, encode_frame(wire::testing::hello_from(cluster_name_, life)));
    pump();
  }

  void advance(Duration d) {
    now_ = now_ + d;
    kernel_.handle_tick(now_);
    pump();
  }

  // Dials connect at once (the TCP side; no hello comes back by itself).
  void pump() {
    (void)drain(
        kernel_,
        [&](LinkCommand&& command) {
          if (const auto* dial = std::get_if<ConnectCommand>(&command)) {
            Dial& d = dials_[dial->address];
            d.link = dial->link;
            ++d.connects;
            kernel_.handle_link_up(now_, dial->link);
          }
          if (const auto* close = std::get_if<CloseCommand>(&command)) closed_.push_back(*close);
        },
        [&](const Transmit& t) {
          for (auto& entry : dials_) {
            Dial& d = entry.second;
            if (d.link != t.link) continue;
            (void)d.decoder.feed(t.bytes, [&](wire::Bytes payload) {
              wire::Decoded<wire::Message> decoded = wire::decode_message(payload);
              ASSERT_TRUE(decoded.ok());
              d.frames.push_back(std::move(decoded.value));
            });
          }
          kernel_.handle_sent(now_, t.link);
        },
        [](Event&&) { return true; });
  }

  struct Dial {
    LinkId link{};
    int connects = 0;
    wire::FrameDecoder decoder;
    std::vector<wire::Message> frames;  // written on the link, decoded
  };

  const Dial* dial_to(const NodeAddress& address) const {
    const auto it = dials_.find(address);
    return it == dials_.end() ? nullptr : &it->second;
  }

  static bool is_hello(const wire::Message& m) { return std::holds_alternative<wire::Hello>(m); }
  static bool is_state(const wire::Message& m) { return std::holds_alternative<wire::GossipState>(m); }

  const std::string cluster_name_ = "weft";
  Instant now_ = Instant::from_ns(1'000'000'000);
  Kernel kernel_;
  std::map<NodeAddress, Dial> dials_;
  std::vector<CloseCommand> closed_;
};

TEST_F(DialBackTest, AStrangersJoinIsAnsweredByAHelloAloneUntilItsAddressAnswers) {
  const MemberId stranger = member_id(9);
  stranger_sends(stranger, wire::Join{});
  const Dial* dial = dial_to(stranger.address);
  ASSERT_NE(dial, nullptr) << "n2 dials the named address back";
  ASSERT_EQ(dial->frames.size(), 1U);
  EXPECT_TRUE(is_hello(dial->frames[0])) << "the dial carries n2's hello and nothing else";
  EXPECT_EQ(kernel_.members().find(stranger.address), nullptr) << "not a member on its own word";
  EXPECT_EQ(kernel_.counters().stranger_frames_unanswered, 1U);
  EXPECT_EQ(kernel_.counters().marks[static_cast<std::size_t>(Mark::dialed_back)], 1U);

  // The joiner's next attempt, before its address answers: still one dial.
  stranger_sends(stranger, wire::Join{});
  EXPECT_EQ(dial_to(stranger.address)->connects, 1);
  EXPECT_EQ(dial_to(stranger.address)->frames.size(), 1U);

  answer_dial(stranger);
  const Member* taken = kernel_.members().find(stranger.address);
  ASSERT_NE(taken, nullptr) << "the Join kept meanwhile is taken once the address answered";
  EXPECT_EQ(taken->id, stranger);
  EXPECT_EQ(taken->status, MemberStatus::joining);
  const std::vector<wire::Message>& frames = dial_to(stranger.address)->frames;
  ASSERT_EQ(frames.size(), 2U);
  EXPECT_TRUE(is_state(frames[1])) << "and only then is it sent the member list";
}

TEST_F(DialBackTest, AnUnansweredDialNeverAdmitsTheAddressAndEnds) {
  const MemberId victim = member_id(9);
  stranger_sends(victim, wire::Join{});
  ASSERT_NE(dial_to(victim.address), nullptr);
  for (int i = 0; i < 12; ++i) advance(Duration::seconds(1));  // past handshake_timeout (5 s)
  EXPECT_EQ(kernel_.members().find(victim.address), nullptr);
  EXPECT_EQ(dial_to(victim.address)->frames.size(), 1U) << "the hello, once";
  EXPECT_EQ(dial_to(victim.address)->connects, 1);
  bool closed = false;
  for (const CloseCommand& c : closed_) closed = closed || c.link == dial_to(victim.address)->link;
  EXPECT_TRUE(closed) << "the dial is closed once its wait ended";
}

TEST_F(DialBackTest, AStrangersOtherFramesAreDroppedNotAnswered) {
  const MemberId stranger = member_id(9);
  stranger_sends(stranger, wire::GossipDigest{12345, 1});
  ASSERT_NE(dial_to(stranger.address), nullptr);
  answer_dial(stranger);
  // The digest was dropped, not kept: nothing but the hello went there, and
  // the stranger is no member (only a Join makes one).
  ASSERT_EQ(dial_to(stranger.address)->frames.size(), 1U);
  EXPECT_EQ(kernel_.members().find(stranger.address), nullptr);
  // Now that its address answered, its frames are answered.
  stranger_sends(stranger, wire::GossipDigest{12345, 1});
  const std::vector<wire::Message>& frames = dial_to(stranger.address)->frames;
  ASSERT_EQ(frames.size(), 2U);
  EXPECT_TRUE(is_state(frames[1]));
}

TEST_F(DialBackTest, AnAnswerFromAnotherLifeTakesNoJoin) {
  const MemberId claimed = member_id(9, 5);
  stranger_sends(claimed, wire::Join{});
  answer_dial(member_id(9, 6));  // someone else lives there now
  EXPECT_EQ(kernel_.members().find(claimed.address), nullptr);
}

class FewDialBacksTest : public DialBackTest {
 protected:
  FewDialBacksTest() : DialBackTest(2) {}
};

TEST_F(FewDialBacksTest, DialsInFlightAreBounded) {
  stranger_sends(member_id(7), wire::Join{});
  stranger_sends(member_id(8), wire::Join{});
  stranger_sends(member_id(9), wire::Join{});
  EXPECT_NE(dial_to(member_id(7).address), nullptr);
  EXPECT_NE(dial_to(member_id(8).address), nullptr);
  EXPECT_EQ(dial_to(member_id(9).address), nullptr) << "a third address waits for no dial";
  EXPECT_EQ(kernel_.counters().dial_backs_full, 1U);
  EXPECT_EQ(kernel_.counters().stranger_frames_unanswered, 3U);
}

}  // namespace
}  // namespace weft
