// Goal: a control frame that cannot fit max_frame_bytes (a gossip state
// that outgrew it as the cluster grew) is counted, never dropped silently,
// and nothing smaller is.
#include <gtest/gtest.h>

#include <string>

#include "kernel/drain.hpp"
#include "kernel/kernel.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/handshake.hpp"
#include "tests/wire_test_support.hpp"

namespace weft {
namespace {

using wire::testing::encode_frame;

void join_from(Kernel& k, Instant now, int n) {
  const LinkId link = k.handle_link_accepted(now);
  wire::Hello hello;
  hello.cluster_name = "weft";
  const std::string host = "10.1." + std::to_string(n / 200) + "." + std::to_string(n % 200 + 1);
  hello.address = wire::AddressView{host, 7000};
  hello.incarnation = 1;
  k.handle_bytes(now, link, encode_frame(hello));
  k.handle_bytes(now, link, encode_frame(wire::Join{}));
  // Without a key the join is taken once the node's dial back to the
  // joiner is answered (kernel/membership/dial_backs.hpp): answer it.
  k.handle_tick(now);
  (void)drain(
      k,
      [&](LinkCommand&& command) {
        const auto* dial = std::get_if<ConnectCommand>(&command);
        if (dial == nullptr || dial->address.host != host) return;
        k.handle_link_up(now, dial->link);
        k.handle_bytes(now, dial->link, encode_frame(hello));
      },
      [](const Transmit&) {}, [](Event&&) { return true; });
}

// A driver may read a kernel's view before its first input (an admin
// endpoint, a simulator's description of a node not yet booted): the seen
// set is over the empty table, so nothing asserts and nothing is seen.
TEST(KernelControl, TheViewBeforeTheFirstInputIsEmpty) {
  Config c;
  c.self = NodeAddress{"10.0.0.1", 7000};
  c.seeds = {c.self};
  const Kernel k(c, 1);
  EXPECT_TRUE(k.seen_by().empty());
  EXPECT_TRUE(k.converged()) << "no member waits for anything, as before the seen set was bits";
  EXPECT_EQ(k.members().size(), 0U);
}

TEST(KernelControl, GossipStateOutgrowingTheFrameIsCounted) {
  Config c;
  c.self = NodeAddress{"10.0.0.1", 7000};
  c.seeds = {c.self};
  c.max_frame_bytes = 4096;  // the smallest validate() allows: about a hundred members
  ASSERT_TRUE(c.validate().empty());
  Kernel k(c, 1);
  const Instant now = Instant::from_ns(1'000'000'000);
  k.handle_tick(now);

  // Each join is answered with this node's whole state.
  for (int n = 0; n < 20; ++n) join_from(k, now, n);
  EXPECT_EQ(k.counters().control_too_large, 0U) << "21 members fit a 4 KiB frame";
  const std::uint64_t states_sent = k.counters().gossip_states_sent;
  for (int n = 20; n < 300; ++n) join_from(k, now, n);
  EXPECT_GT(k.counters().control_too_large, 0U) << "301 members do not";
  EXPECT_LT(k.counters().control_too_large, k.counters().gossip_states_sent - states_sent)
      << "only the states past the frame are refused";
}

}  // namespace
}  // namespace weft
