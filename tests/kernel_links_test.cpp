// Goal: an accepted link that never says hello is closed after
// handshake_timeout with its own counted reason, and a link that says hello
// in time is not.
#include <gtest/gtest.h>

#include "kernel/drain.hpp"
#include "kernel/kernel.hpp"
#include "kernel/wire/frame.hpp"
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

TEST(KernelLinks, SilentAcceptedLinkClosedAfterHandshakeTimeout) {
  Kernel k(config(), 1);
  const Instant start = Instant::from_ns(1'000'000'000);
  k.handle_tick(start);
  (void)closes(k);
  const LinkId idle = k.handle_link_accepted(start);
  const LinkId greeted = k.handle_link_accepted(start);
  wire::Hello hello;
  hello.cluster_name = "weft";
  hello.address = {"10.0.0.2", 7000};
  hello.incarnation = 1;
  std::vector<std::uint8_t> bytes;
  ASSERT_EQ(wire::append_frame(bytes, hello), wire::WireError::none);
  k.handle_bytes(start, greeted, bytes);
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
  k.handle_tick(start + Duration::seconds(60));
  for (const CloseCommand& c : closes(k)) EXPECT_NE(c.link, greeted);
}

}  // namespace
}  // namespace weft
