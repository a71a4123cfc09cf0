// Goal: an accepted link that never says hello is closed after
// handshake_timeout with its own counted reason, and a link that says hello
// in time is not; before its hello a link reads only handshake-sized frames;
// a stranger's link that falls silent is closed.
#include <gtest/gtest.h>

#include <optional>

#include "kernel/drain.hpp"
#include "kernel/kernel.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/control.hpp"
#include "kernel/wire/handshake.hpp"

namespace weft {
namespace {

Config config() {
  Config c;
  c.self = NodeAddress{"10.0.0.1", 7000};
  c.seeds = {c.self};
  return c;
}

std::vector<CloseCommand> closes(Kernel& k) {
  std::vector<CloseCommand> found;
  (void)drain(
      k,
      [&](LinkCommand&& command) {
        if (const auto* close = std::get_if<CloseCommand>(&command)) found.push_back(*close);
      },
      [&](const Transmit&) {}, [](Event&&) { return true; });
  return found;
}

// A kernel past its first tick, with the closes that tick made drained.
Instant started(Kernel& k) {
  const Instant start = Instant::from_ns(1'000'000'000);
  k.handle_tick(start);
  (void)closes(k);
  return start;
}

// The frame of a valid hello from a node at 10.0.0.2 (no secret is set).
std::vector<std::uint8_t> hello_frame() {
  wire::Hello hello;
  hello.cluster_name = "weft";
  hello.address = {"10.0.0.2", 7000};
  hello.incarnation = 1;
  std::vector<std::uint8_t> bytes;
  const wire::WireError error = wire::append_frame(bytes, hello);
  EXPECT_EQ(error, wire::WireError::none);
  return bytes;
}

TEST(KernelLinks, SilentAcceptedLinkClosedAfterHandshakeTimeout) {
  Kernel k(config(), 1);
  const Instant start = started(k);
  const LinkId idle = k.handle_link_accepted(start);
  const LinkId greeted = k.handle_link_accepted(start);
  k.handle_bytes(start, greeted, hello_frame());
  EXPECT_TRUE(closes(k).empty());
  EXPECT_LE(k.next_deadline(), start + Duration::seconds(5));

  k.handle_tick(start + Duration::seconds(5) - Duration::nanoseconds(1));
  EXPECT_TRUE(closes(k).empty());
  k.handle_tick(start + Duration::seconds(5));
  const std::vector<CloseCommand> closed = closes(k);
  ASSERT_EQ(closed.size(), 1U);
  EXPECT_EQ(closed[0].link, idle);
  EXPECT_EQ(closed[0].reason, CloseReason::handshake_timeout);
  EXPECT_EQ(k.counters().links_closed[static_cast<std::size_t>(CloseReason::handshake_timeout)], 1U);
  k.handle_tick(start + Duration::seconds(10));  // short of a stranger's idle limit (the next test)
  for (const CloseCommand& c : closes(k)) EXPECT_NE(c.link, greeted);
}

TEST(KernelLinks, PastMaxPendingHandshakesTheOldestWaitingIsClosed) {
  Config c = config();
  c.max_pending_handshakes = 2;
  Kernel k(c, 1);
  const Instant start = started(k);
  const LinkId first = k.handle_link_accepted(start);
  const LinkId greeted = k.handle_link_accepted(start + Duration::milliseconds(1));
  k.handle_bytes(start + Duration::milliseconds(1), greeted, hello_frame());  // established: no longer waiting
  const LinkId second = k.handle_link_accepted(start + Duration::milliseconds(2));
  EXPECT_TRUE(closes(k).empty()) << "two waiting, the cap";
  const LinkId third = k.handle_link_accepted(start + Duration::milliseconds(3));
  std::vector<CloseCommand> closed = closes(k);
  ASSERT_EQ(closed.size(), 1U);
  EXPECT_EQ(closed[0].link, first) << "the oldest waiting goes, not the newest nor the established";
  EXPECT_EQ(closed[0].reason, CloseReason::handshake_capacity);
  (void)k.handle_link_accepted(start + Duration::milliseconds(4));
  closed = closes(k);
  ASSERT_EQ(closed.size(), 1U);
  EXPECT_EQ(closed[0].link, second);
  EXPECT_EQ(k.counters().links_closed[static_cast<std::size_t>(CloseReason::handshake_capacity)], 2U);
  EXPECT_NE(closed[0].link, third);
}

TEST(KernelLinks, AHelloMustNameAHostItsCertificateGives) {
  Kernel k(config(), 1);
  const Instant start = started(k);
  using Names = std::optional<std::vector<std::string>>;
  struct Case {
    Names names;
    bool kept;
    const char* why;
  };
  const Case cases[] = {
      {std::nullopt, true, "unchecked: no TLS, or tls_check_names = false"},
      {std::vector<std::string>{"10.0.0.9", "10.0.0.2"}, true, "one of the names is the hello's host"},
      {std::vector<std::string>{"10.0.0.9", "node2.example"}, false, "a valid certificate for another host"},
      {std::vector<std::string>{}, false, "a certificate without names allows no host"},
  };
  std::uint64_t refused = 0;
  for (const Case& c : cases) {
    const LinkId link = k.handle_link_accepted(start, c.names);
    k.handle_bytes(start, link, hello_frame());
    const std::vector<CloseCommand> closed = closes(k);
    EXPECT_EQ(closed.empty(), c.kept) << c.why;
    if (!c.kept) {
      ++refused;
      ASSERT_EQ(closed.size(), 1U) << c.why;
      EXPECT_EQ(closed[0].reason, CloseReason::wrong_name) << c.why;
    }
  }
  EXPECT_EQ(k.counters().links_closed[static_cast<std::size_t>(CloseReason::wrong_name)], refused);
}

// Without a key anyone who reaches the port can say hello; a dialer that is
// no member here needs no link once its frames are read, so one silent for
// link_idle_timeout / 4 is closed (checked every quarter timeout), while one
// that keeps talking is kept. (The talker's frames are not answered: its
// address never answers the node's dial back, which ends every
// handshake_timeout, membership/dial_backs.hpp; those are outbound links.)
TEST(KernelLinks, AStrangersSilentLinkIsClosedAfterAQuarterIdleTimeout) {
  const Config c = config();
  Kernel k(c, 1);
  const Instant start = started(k);
  const LinkId silent = k.handle_link_accepted(start);
  const LinkId talking = k.handle_link_accepted(start);
  k.handle_bytes(start, silent, hello_frame());
  k.handle_bytes(start, talking, hello_frame());
  std::vector<std::uint8_t> digest;
  ASSERT_EQ(wire::append_frame(digest, wire::GossipDigest{1, 0}), wire::WireError::none);
  std::optional<Instant> closed_at;
  for (Instant t = start; t <= start + c.link_idle_timeout; t = t + c.gossip_interval) {
    k.handle_tick(t);
    k.handle_bytes(t, talking, digest);
    for (const CloseCommand& close : closes(k)) {
      if (close.link != silent && close.link != talking) {
        EXPECT_EQ(close.reason, CloseReason::peer_gone) << "a dial back whose wait ended";
        continue;
      }
      EXPECT_EQ(close.link, silent);
      EXPECT_EQ(close.reason, CloseReason::idle);
      closed_at = t;
    }
  }
  ASSERT_TRUE(closed_at.has_value());
  EXPECT_GE(*closed_at - start, c.link_idle_timeout / 4);
  EXPECT_LE(*closed_at - start, c.link_idle_timeout / 2 + c.gossip_interval);
}

std::vector<std::uint8_t> frame_header(std::uint32_t payload_bytes) {
  std::vector<std::uint8_t> header(wire::kFrameHeaderBytes);
  wire::store_be32(header.data(), payload_bytes);
  return header;
}

TEST(KernelLinks, BeforeItsHandshakeALinkReadsOnlyHandshakeSizedFrames) {
  Kernel k(config(), 1);
  const Instant start = started(k);
  // A stranger declares a 1 MiB first frame (max_frame_bytes) and sends
  // half of it: refused on the header, before any buffer is sized for it.
  const LinkId stranger = k.handle_link_accepted(start);
  std::vector<std::uint8_t> bytes = frame_header(1U << 20);
  bytes.resize(bytes.size() + (1U << 19), 0x90);
  k.handle_bytes(start, stranger, bytes);
  std::vector<CloseCommand> closed = closes(k);
  ASSERT_EQ(closed.size(), 1U);
  EXPECT_EQ(closed[0].link, stranger);
  EXPECT_EQ(closed[0].reason, CloseReason::wire_error);
  EXPECT_EQ(k.counters().wire_errors[static_cast<std::size_t>(wire::WireError::frame_too_large)], 1U);
  // One byte over the limit is refused as well; the limit itself is not.
  const LinkId over = k.handle_link_accepted(start);
  k.handle_bytes(start, over, frame_header(wire::kMaxHandshakeFrameBytes + 1));
  closed = closes(k);
  ASSERT_EQ(closed.size(), 1U);
  EXPECT_EQ(closed[0].link, over);
  const LinkId at_limit = k.handle_link_accepted(start);
  k.handle_bytes(start, at_limit, frame_header(wire::kMaxHandshakeFrameBytes));
  EXPECT_TRUE(closes(k).empty());

  // Past its hello, the same link reads frames up to max_frame_bytes.
  const LinkId greeted = k.handle_link_accepted(start);
  bytes = hello_frame();
  const std::vector<std::uint8_t> large = frame_header(1U << 20);
  bytes.insert(bytes.end(), large.begin(), large.end());
  k.handle_bytes(start, greeted, bytes);
  EXPECT_TRUE(closes(k).empty());
  EXPECT_EQ(k.counters().wire_errors[static_cast<std::size_t>(wire::WireError::frame_too_large)], 2U);
}

}  // namespace
}  // namespace weft
