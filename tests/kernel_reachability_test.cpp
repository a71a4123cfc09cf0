// Goal: the leader's downing clock follows the address, whatever life it is
// on. A member whose new incarnation is unreachable (as its old one was, in
// the same merge) must still be downed once its wait ends: the wait starts
// when the new life became unreachable and nothing in between may forget it.
#include <gtest/gtest.h>

#include <optional>

#include "kernel/drain.hpp"
#include "kernel/kernel.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/handshake.hpp"
#include "tests/wire_test_support.hpp"
#include "tests/dial_back_support.hpp"
#include "tests/test_ids.hpp"

namespace weft {
namespace {

using test::member_id;

struct Seen {
  std::optional<Instant> n2_life2_unreachable;
  std::optional<Instant> n2_life2_down;
};

void drain_into(Kernel& k, Instant now, Seen& seen) {
  (void)drain(
      k, [](LinkCommand&&) {}, [](const Transmit&) {},
      [&](Event&& event) {
        if (const auto* r = std::get_if<ReachabilityEvent>(&event)) {
          if (r->subject == member_id(2, 2) && r->unreachable && !seen.n2_life2_unreachable) {
            seen.n2_life2_unreachable = now;
          }
        } else if (const auto* m = std::get_if<MemberEvent>(&event)) {
          if (m->member.id == member_id(2, 2) && m->member.status == MemberStatus::down && !seen.n2_life2_down) {
            seen.n2_life2_down = now;
          }
        }
        return true;
      });
}

using wire::testing::encode_frame;

wire::GossipState state_with_n2(std::uint64_t n2_incarnation, std::uint64_t row_version) {
  wire::GossipState state;
  state.members = {Member{member_id(1), MemberStatus::up}, Member{member_id(2, n2_incarnation), MemberStatus::up},
                   Member{member_id(3), MemberStatus::up}};
  // n3 finds n2's life unreachable.
  state.rows = {ReachabilityRow{member_id(3), row_version, {member_id(2, n2_incarnation)}}};
  state.seen.assign(seen_bytes_for(state.members.size()), 0);
  return state;
}

TEST(KernelReachability, NewLifeUnreachableLikeTheOldIsStillDowned) {
  Config c;
  c.self = member_id(1).address;  // the lowest address: the leader
  c.seeds = {c.self};
  Kernel k(c, 1);
  Seen seen;
  Instant now = Instant::from_ns(1'000'000'000);
  k.handle_tick(now);
  drain_into(k, now, seen);

  // n3 dials in, says hello, and gossips a table where it finds n2 (life 1)
  // unreachable; then one where n2 has restarted (life 2) and n3 finds the
  // new life unreachable too. The view swaps n2@1 for n2@2 in one merge.
  const MemberId n3 = member_id(3);  // the hello views its address
  const LinkId from_n3 = test::introduce_stranger(k, now, c.cluster_name, n3);
  k.handle_bytes(now, from_n3, encode_frame(state_with_n2(1, 1)));
  drain_into(k, now, seen);
  now = now + Duration::milliseconds(100);
  k.handle_bytes(now, from_n3, encode_frame(state_with_n2(2, 2)));
  drain_into(k, now, seen);
  ASSERT_TRUE(seen.n2_life2_unreachable.has_value());

  // n3 stays alive (a heartbeat every 100 ms keeps it reachable and
  // counting as an observer) while the leader's wait runs out.
  std::uint64_t sequence = 0;
  const Instant until = now + Duration::seconds(30);
  while (now < until && !seen.n2_life2_down) {
    now = now + Duration::milliseconds(50);
    if (++sequence % 2 == 0) k.handle_bytes(now, from_n3, encode_frame(wire::Heartbeat{sequence}));
    k.handle_tick(now);
    drain_into(k, now, seen);
  }
  ASSERT_TRUE(seen.n2_life2_down.has_value()) << "n2's new life was never downed";
  // Downed after the silence wait from when the new life became unreachable,
  // not before it and not a view change later.
  const Duration waited = *seen.n2_life2_down - *seen.n2_life2_unreachable;
  EXPECT_LE(waited, c.down_after_unreachable + c.gossip_interval) << "waited " << waited.ns() / 1'000'000 << " ms";
}

}  // namespace
}  // namespace weft
