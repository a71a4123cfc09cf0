// Without a key, a kernel answers a dialer whose address holds no record
// only once its own dial to that address was answered by the life the
// dialer's hello named (kernel/membership/dial_backs.hpp); until then the
// dialer's frames are dropped. Harnesses that play such a peer dialing in
// introduce it first, as a real peer would be introduced: its hello and a
// digest (dropped, starting the dial), then the dial answered with its
// hello. What the peer sends next is taken until the kernel closes that
// dial (at a gossip round, unless the peer is a member by then).
#pragma once

#include <string_view>

#include "kernel/drain.hpp"
#include "kernel/kernel.hpp"
#include "kernel/wire/control.hpp"
#include "tests/wire_test_support.hpp"

namespace weft::test {

// Returns the inbound link the peer dialed, past its hello.
inline LinkId introduce_stranger(Kernel& k, Instant now, std::string_view cluster, const MemberId& peer) {
  using wire::testing::encode_frame;
  const LinkId link = k.handle_link_accepted(now);
  k.handle_bytes(now, link, encode_frame(wire::testing::hello_from(cluster, peer)));
  k.handle_bytes(now, link, encode_frame(wire::GossipDigest{0, 0}));
  k.handle_tick(now);  // the dial falls due
  (void)drain(
      k,
      [&](LinkCommand&& command) {
        const auto* dial = std::get_if<ConnectCommand>(&command);
        if (dial == nullptr || dial->address != peer.address) return;
        k.handle_link_up(now, dial->link);
        k.handle_bytes(now, dial->link, encode_frame(wire::testing::hello_from(cluster, peer)));
      },
      [&](const Transmit& t) { k.handle_sent(now, t.link); }, [](Event&&) { return true; });
  return link;
}

}  // namespace weft::test
