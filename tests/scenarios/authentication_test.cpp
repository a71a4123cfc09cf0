// Goal: with a shared secret, only nodes that hold an accepted key form a
// cluster. A node with another key, or with none, is refused on every link
// with a counted reason (bad_proof, unauthenticated) and never appears in a
// view; keys rotate without a flag day; a recorded proof replayed on a new
// link is refused; the dialer sends nothing behind its hello until the
// acceptor has proven itself. The mutation that takes any proof lets the
// wrong-key node in, which is what the first test would catch.
#include <gtest/gtest.h>

#include <memory>
#include <variant>

#include "auth/hmac_sha256.hpp"
#include "kernel/drain.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/message.hpp"
#include "kernel_harness.hpp"

namespace weft::testing {
namespace {

AuthKey key(std::uint8_t fill) {
  AuthKey k{};
  k.fill(fill);
  k[0] = 0x5a;
  return k;
}

Authentication with_keys(std::vector<AuthKey> keys) { return Authentication{std::move(keys), &auth::hmac_sha256}; }

std::uint64_t closed(const Kernel& k, CloseReason reason) {
  return k.counters().links_closed[static_cast<std::size_t>(reason)];
}

bool up_everywhere(Harness& h, const std::vector<std::size_t>& nodes) {
  for (std::size_t subject : nodes) {
    if (!h.all_see_status(nodes, subject, MemberStatus::up)) return false;
  }
  return true;
}

// n3 is the odd one out: `third` is its authentication, the others share key(1).
std::unique_ptr<Harness> three_nodes_with(const Authentication& third, const Mutations& mutations = {}) {
  return std::make_unique<Harness>(3, [&](Config& c) {
    c.auth = c.self.host == "10.0.0.3" ? third : with_keys({key(1)});
    c.mutations = mutations;
  });
}

TEST(Authentication, SharedKeyFormsTheCluster) {
  const std::unique_ptr<Harness> h = three_nodes_with(with_keys({key(1)}));
  const auto took = h->advance_until([&] { return up_everywhere(*h, {1, 2, 3}); }, Duration::seconds(10));
  h->expect(took.has_value(), "three nodes sharing one key see each other up within 10 s");
  for (std::size_t i = 1; i <= 3; ++i) {
    h->expect(closed(h->node(i), CloseReason::bad_proof) == 0, "no proof refused");
    h->expect(closed(h->node(i), CloseReason::unauthenticated) == 0, "no frame before a proof");
  }
}

TEST(Authentication, WrongKeyNodeIsRefusedAndCounted) {
  const std::unique_ptr<Harness> h = three_nodes_with(with_keys({key(2)}));
  h->advance(Duration::seconds(10));
  h->expect(up_everywhere(*h, {1, 2}), "n1 and n2 form the cluster");
  h->expect(!h->status_seen_by(1, 3).has_value() && !h->status_seen_by(2, 3).has_value(),
            "n3 never appears in n1's or n2's view");
  // n3 dials n1 (its seed) and checks n1's proof first: it refuses it, so
  // n3 never proves itself and n1 sees a handshake abandoned after its proof.
  h->expect(closed(h->node(3), CloseReason::bad_proof) > 0, "n3 refused n1's proof, counted");
  h->expect(h->node(1).counters().handshakes_abandoned > 0, "n1 counted handshakes n3 abandoned");
  h->expect(h->node(2).counters().handshakes_abandoned == 0 && closed(h->node(2), CloseReason::bad_proof) == 0,
            "n2 never dealt with n3 at all (no record of it to dial)");
}

TEST(Authentication, TheMutationThatTakesAnyProofLetsTheWrongKeyIn) {
  Mutations any_proof;
  any_proof.proof_check_off = true;
  const std::unique_ptr<Harness> h = three_nodes_with(with_keys({key(2)}), any_proof);
  const auto took = h->advance_until([&] { return up_everywhere(*h, {1, 2, 3}); }, Duration::seconds(10));
  h->expect(took.has_value(), "with proof_check_off the wrong-key node joins (what the test above refuses)");
}

TEST(Authentication, KeylessNodeIsRefused) {
  const std::unique_ptr<Harness> h = three_nodes_with(Authentication{});
  h->advance(Duration::seconds(10));
  h->expect(up_everywhere(*h, {1, 2}), "n1 and n2 form the cluster");
  h->expect(!h->status_seen_by(1, 3).has_value(), "n3 never appears in n1's view");
  // n3 pipelines its join behind its hello, as an unauthenticated dialer may.
  h->expect(closed(h->node(1), CloseReason::unauthenticated) > 0, "n1 closed n3's link: a frame before any proof");
}

TEST(Authentication, KeysRotateWithoutAFlagDay) {
  // Mid-rotation: n1 already signs with the new key, n2 and n3 still with
  // the old one; everyone accepts both.
  Harness h(3, [&](Config& c) {
    c.auth = c.self.host == "10.0.0.1" ? with_keys({key(9), key(1)}) : with_keys({key(1), key(9)});
  });
  const auto took = h.advance_until([&] { return up_everywhere(h, {1, 2, 3}); }, Duration::seconds(10));
  h.expect(took.has_value(), "nodes signing with different keys, accepting both, converge");
  for (std::size_t i = 1; i <= 3; ++i) h.expect(closed(h.node(i), CloseReason::bad_proof) == 0, "no proof refused");
}

// One kernel as acceptor, its peer played by hand.
struct Acceptor {
  Kernel kernel;
  std::vector<std::uint8_t> written;
  std::vector<CloseCommand> closes;

  Acceptor() : kernel(make_config(), 7) { kernel.handle_tick(Instant::from_ns(1'000'000'000)); drain_it(); }
  static Config make_config() {
    Config c;
    c.self = NodeAddress{"10.0.0.1", 7000};
    c.seeds = {c.self};
    c.auth = with_keys({key(1)});
    return c;
  }
  void drain_it() {
    written.clear();
    (void)drain(
        kernel,
        [&](LinkCommand&& command) {
          if (const auto* close = std::get_if<CloseCommand>(&command)) closes.push_back(*close);
        },
        [&](const Transmit& t) { written.insert(written.end(), t.bytes.begin(), t.bytes.end()); },
        [](Event&&) { return true; });
  }
};

wire::Hello decode_one_hello(const std::vector<std::uint8_t>& bytes) {
  wire::FrameDecoder decoder(wire::kDefaultMaxFrameBytes);
  wire::Hello hello;
  int frames = 0;
  EXPECT_EQ(decoder.feed(bytes,
                         [&](wire::Bytes payload) {
                           ++frames;
                           const auto decoded = wire::decode_hello(payload);
                           EXPECT_TRUE(decoded.ok());
                           hello = decoded.value;
                         }),
            wire::WireError::none);
  EXPECT_EQ(frames, 1);
  return hello;
}

// The hello of a dialer played by hand, as 10.0.0.2:7000#5.
wire::Hello hand_played_hello() {
  wire::Hello hello;
  hello.cluster_name = "weft";
  hello.address = {"10.0.0.2", 7000};
  hello.incarnation = 5;
  hello.nonce.fill(0x11);
  return hello;
}

TEST(Authentication, AReplayedProofIsRefused) {
  Acceptor a;
  const Instant now = Instant::from_ns(2'000'000'000);
  const wire::Hello mine = hand_played_hello();
  std::vector<std::uint8_t> hello_frame;
  ASSERT_EQ(wire::append_frame(hello_frame, mine), wire::WireError::none);

  // A first link, proven correctly by hand: accepted (no close).
  const LinkId first = a.kernel.handle_link_accepted(now);
  a.kernel.handle_bytes(now, first, hello_frame);
  a.drain_it();
  const std::vector<std::uint8_t> reply_bytes = a.written;
  const wire::Hello reply = decode_one_hello(reply_bytes);
  ASSERT_EQ(reply.proof.size(), wire::kProofBytes);
  EXPECT_TRUE(verify_handshake(with_keys({key(1)}), reply.proof, HandshakeRole::acceptor, "weft",
                               HelloSide::of(mine), HelloSide::of(reply)))
      << "the acceptor proves itself over both hellos";
  const Proof proof =
      sign_handshake(with_keys({key(1)}), HandshakeRole::dialer, "weft", HelloSide::of(mine), HelloSide::of(reply));
  std::vector<std::uint8_t> proof_frame;
  ASSERT_EQ(wire::append_frame(proof_frame, wire::HelloProof{proof}), wire::WireError::none);
  a.kernel.handle_bytes(now, first, proof_frame);
  a.drain_it();
  EXPECT_TRUE(a.closes.empty()) << "a correct proof is taken";
  std::vector<std::uint8_t> heartbeat;
  ASSERT_EQ(wire::append_frame(heartbeat, wire::Heartbeat{1}), wire::WireError::none);
  a.kernel.handle_bytes(now, first, heartbeat);
  a.drain_it();
  EXPECT_TRUE(a.closes.empty()) << "after the proof the link carries control traffic (no unauthenticated close)";

  // The same hello and proof, recorded and replayed on a new link: the
  // acceptor's fresh nonce makes the old proof worthless.
  const LinkId second = a.kernel.handle_link_accepted(now);
  a.kernel.handle_bytes(now, second, hello_frame);
  a.drain_it();
  EXPECT_NE(decode_one_hello(a.written).nonce, reply.nonce) << "a fresh nonce per link";
  a.kernel.handle_bytes(now, second, proof_frame);
  a.drain_it();
  ASSERT_EQ(a.closes.size(), 1U);
  EXPECT_EQ(a.closes[0].link, second);
  EXPECT_EQ(a.closes[0].reason, CloseReason::bad_proof);
  EXPECT_EQ(closed(a.kernel, CloseReason::bad_proof), 1U);
}

// weftd's SIGHUP: new handshakes sign and accept with the replaced keys,
// links already up stay; authentication cannot be switched on or off live.
TEST(Authentication, KeysReplacedLiveRuleTheNextHandshake) {
  Acceptor a;
  const Instant now = Instant::from_ns(2'000'000'000);
  const wire::Hello mine = hand_played_hello();
  std::vector<std::uint8_t> hello_frame;
  ASSERT_EQ(wire::append_frame(hello_frame, mine), wire::WireError::none);
  const auto prove = [&](LinkId link, const AuthKey& with) {
    a.kernel.handle_bytes(now, link, hello_frame);
    a.drain_it();
    const wire::Hello reply = decode_one_hello(a.written);
    const Proof proof =
        sign_handshake(with_keys({with}), HandshakeRole::dialer, "weft", HelloSide::of(mine), HelloSide::of(reply));
    std::vector<std::uint8_t> proof_frame;
    EXPECT_EQ(wire::append_frame(proof_frame, wire::HelloProof{proof}), wire::WireError::none);
    a.kernel.handle_bytes(now, link, proof_frame);
    a.drain_it();
    return reply;
  };
  const LinkId before = a.kernel.handle_link_accepted(now);
  (void)prove(before, key(1));
  ASSERT_TRUE(a.closes.empty());

  std::string error;
  EXPECT_FALSE(a.kernel.replace_auth_keys({}, error));
  EXPECT_NE(error.find("takes a restart of every node"), std::string::npos) << error;
  ASSERT_TRUE(a.kernel.replace_auth_keys({key(9)}, error)) << error;

  const LinkId old_key = a.kernel.handle_link_accepted(now);
  const wire::Hello reply = prove(old_key, key(1));
  EXPECT_TRUE(verify_handshake(with_keys({key(9)}), reply.proof, HandshakeRole::acceptor, "weft",
                               HelloSide::of(mine), HelloSide::of(reply)))
      << "the acceptor signs with the new first key";
  ASSERT_EQ(a.closes.size(), 1U);
  EXPECT_EQ(a.closes[0].link, old_key) << "a proof with the dropped key is refused; the link already up stays";
  EXPECT_EQ(a.closes[0].reason, CloseReason::bad_proof);
  const LinkId new_key = a.kernel.handle_link_accepted(now);
  (void)prove(new_key, key(9));
  EXPECT_EQ(a.closes.size(), 1U) << "a proof with the new key is taken";

  Config plain;
  plain.self = NodeAddress{"10.0.0.5", 7000};
  Kernel keyless(plain, 1);
  EXPECT_FALSE(keyless.replace_auth_keys({key(1)}, error));
  EXPECT_NE(error.find("turning authentication on"), std::string::npos) << error;
}

TEST(Authentication, TheAcceptorsProofCannotBeReflectedAsTheDialers) {
  Acceptor a;
  const Instant now = Instant::from_ns(2'000'000'000);
  const wire::Hello mine = hand_played_hello();
  std::vector<std::uint8_t> bytes;
  ASSERT_EQ(wire::append_frame(bytes, mine), wire::WireError::none);
  const LinkId link = a.kernel.handle_link_accepted(now);
  a.kernel.handle_bytes(now, link, bytes);
  a.drain_it();
  const wire::Hello reply = decode_one_hello(a.written);
  bytes.clear();
  ASSERT_EQ(wire::append_frame(bytes, wire::HelloProof{reply.proof}), wire::WireError::none);
  a.kernel.handle_bytes(now, link, bytes);
  a.drain_it();
  ASSERT_EQ(a.closes.size(), 1U);
  EXPECT_EQ(a.closes[0].reason, CloseReason::bad_proof);
}

TEST(Authentication, TheDialerSendsOnlyItsHelloUntilTheAcceptorIsProven) {
  Config c = Acceptor::make_config();
  c.seeds = {NodeAddress{"10.0.0.2", 7000}};
  Kernel k(c, 3);
  Instant now = Instant::from_ns(1'000'000'000);
  std::optional<LinkId> dialed;
  std::vector<std::uint8_t> written;
  const auto drain_k = [&] {
    (void)drain(
        k,
        [&](LinkCommand&& command) {
          if (const auto* connect = std::get_if<ConnectCommand>(&command)) dialed = connect->link;
        },
        [&](const Transmit& t) { written.insert(written.end(), t.bytes.begin(), t.bytes.end()); },
        [](Event&&) { return true; });
  };
  // Joining: a dial to the seed, a join queued behind the hello.
  for (int i = 0; i < 300 && !dialed; ++i) {
    now = now + Duration::milliseconds(10);
    k.handle_tick(now);
    drain_k();
  }
  ASSERT_TRUE(dialed.has_value());
  k.handle_link_up(now, *dialed);
  drain_k();
  const std::vector<std::uint8_t> hello_bytes = written;  // the hello's views point into these
  const wire::Hello hello = decode_one_hello(hello_bytes);  // exactly one frame: the hello
  EXPECT_TRUE(hello.proof.empty()) << "the dialer cannot prove itself before it sees the acceptor's nonce";
  written.clear();
  k.handle_sent(now, *dialed);
  now = now + Duration::milliseconds(500);
  k.handle_tick(now);
  drain_k();
  EXPECT_TRUE(written.empty()) << "nothing more until the acceptor's hello proves it";

  // The acceptor's hello, proven: the dialer's proof goes first, then what
  // waited behind the hello (its join).
  wire::Hello reply;
  reply.cluster_name = "weft";
  reply.address = {"10.0.0.2", 7000};
  reply.incarnation = 9;
  reply.nonce.fill(0x42);
  const Authentication keys = with_keys({key(1)});
  const Proof acceptor_proof =
      sign_handshake(keys, HandshakeRole::acceptor, "weft", HelloSide::of(hello), HelloSide::of(reply));
  reply.proof = acceptor_proof;
  std::vector<std::uint8_t> reply_bytes;
  ASSERT_EQ(wire::append_frame(reply_bytes, reply), wire::WireError::none);
  k.handle_bytes(now, *dialed, reply_bytes);
  drain_k();
  std::vector<wire::MessageKind> kinds;
  wire::FrameDecoder decoder(wire::kDefaultMaxFrameBytes);
  for (int round = 0; round < 4; ++round) {
    ASSERT_EQ(decoder.feed(written,
                           [&](wire::Bytes payload) {
                             const auto decoded = wire::decode_message(payload);
                             ASSERT_TRUE(decoded.ok());
                             if (const auto* p = std::get_if<wire::HelloProof>(&decoded.value)) {
                               EXPECT_TRUE(verify_handshake(keys, p->proof, HandshakeRole::dialer, "weft",
                                                            HelloSide::of(hello), HelloSide::of(reply)));
                               kinds.push_back(wire::MessageKind::hello_proof);
                             } else if (std::holds_alternative<wire::Join>(decoded.value)) {
                               kinds.push_back(wire::MessageKind::join);
                             }
                           }),
              wire::WireError::none);
    written.clear();
    k.handle_sent(now, *dialed);
    drain_k();
  }
  ASSERT_GE(kinds.size(), 2U);
  EXPECT_EQ(kinds[0], wire::MessageKind::hello_proof) << "the proof is the first frame after the hello";
  EXPECT_EQ(kinds[1], wire::MessageKind::join) << "then the join that waited behind it";
}

}  // namespace
}  // namespace weft::testing
