// Goal: a kernel's monitors follow the monitoring ring's walk over its own
// unreachable view (kernel/detection/monitoring_ring.hpp). When gossip brings
// a row that finds one of its ring successors unreachable, it watches one
// more member past it; when the row is withdrawn, it drops that member
// again. Without this, a node whose nearest monitors crashed with it was
// watched by nobody until they were downed (all_monitors_die.scenario).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "kernel/detection/monitoring_ring.hpp"
#include "kernel/drain.hpp"
#include "kernel/kernel.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/handshake.hpp"
#include "tests/dial_back_support.hpp"
#include "tests/test_ids.hpp"
#include "tests/wire_test_support.hpp"

namespace weft {
namespace {

using test::member_id;
using wire::testing::encode_frame;

constexpr int kMembers = 12;

void drain_all(Kernel& k) {
  (void)drain(
      k, [](LinkCommand&&) {}, [](const Transmit&) {}, [](Event&&) { return true; });
}

std::vector<Member> all_up() {
  std::vector<Member> members;
  for (int i = 1; i <= kMembers; ++i) members.push_back(Member{member_id(i), MemberStatus::up});
  // Address order, as a member table holds them ("10.0.0.10" before "10.0.0.2").
  std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) { return a.id < b.id; });
  return members;
}

// The whole cluster up; `observer` finds `unreachable` unreachable in its
// row at `version` (an empty list withdraws). Every member has seen it, so
// each is vouched for (vouched_lives.hpp) and stands on the ring.
wire::GossipState state(const MemberId& observer, std::uint64_t version, std::vector<MemberId> unreachable) {
  wire::GossipState s;
  s.members = all_up();
  s.rows = {ReachabilityRow{observer, version, std::move(unreachable)}};
  s.seen.assign(seen_bytes_for(s.members.size()), 0);
  for (std::size_t i = 0; i < s.members.size(); ++i) s.seen[i / 8] |= static_cast<std::uint8_t>(1U << (i % 8));
  return s;
}

TEST(KernelMonitors, WatchPastASuccessorTheViewHoldsUnreachable) {
  Config c;
  c.self = member_id(1).address;
  c.seeds = {c.self};
  Kernel k(c, 1);
  Instant now = Instant::from_ns(1'000'000'000);
  k.handle_tick(now);
  drain_all(k);

  // Where the kernel should stand, from the ring itself.
  MonitoringRing ring;
  ring.update(all_up());
  const std::vector<MemberId> nearest = ring.successors(member_id(1), c.monitored_by);
  ASSERT_EQ(nearest.size(), c.monitored_by);
  // The successor to hold unreachable: the nearest one on the ring, the
  // member whose nearest predecessor this node is.
  const MemberId first = *std::find_if(ring.ids().begin(), ring.ids().end(), [&](const MemberId& m) {
    return ring.predecessors(m, 1) == std::vector<MemberId>{member_id(1)};
  });
  const std::vector<MemberId> past_first = ring.successors(member_id(1), c.monitored_by, std::vector<MemberId>{first});
  ASSERT_EQ(past_first.size(), c.monitored_by + 1);

  // An observer that is neither this node nor the subject dials in and
  // gossips the cluster, everyone reachable.
  const MemberId observer = *std::find_if(nearest.begin(), nearest.end(), [&](const MemberId& m) { return m != first; });
  const LinkId link = test::introduce_stranger(k, now, c.cluster_name, observer);
  k.handle_bytes(now, link, encode_frame(state(observer, 1, {})));
  drain_all(k);
  EXPECT_EQ(k.monitored_subjects(), nearest);

  // The observer finds the nearest successor unreachable: one more watched.
  now = now + Duration::milliseconds(100);
  k.handle_bytes(now, link, encode_frame(state(observer, 2, {first})));
  drain_all(k);
  ASSERT_TRUE(k.is_unreachable(first));
  EXPECT_EQ(k.monitored_subjects(), past_first);

  // Withdrawn: back to the five nearest.
  now = now + Duration::milliseconds(100);
  k.handle_bytes(now, link, encode_frame(state(observer, 3, {})));
  drain_all(k);
  EXPECT_FALSE(k.is_unreachable(first));
  EXPECT_EQ(k.monitored_subjects(), nearest);
}

}  // namespace
}  // namespace weft
