// Goal: the monitoring ring holds exactly the live members, each watches its
// k ring successors and is watched by its k predecessors (so every member
// has the same number of monitors), k shrinks to the ring's size minus one,
// the walks pass unreachable members, and an incremental update ends where a
// rebuild from scratch would.
#include "kernel/detection/monitoring_ring.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "kernel/prng.hpp"
#include "tests/test_ids.hpp"

namespace weft {
namespace {

MemberId id(int n, std::uint64_t incarnation = 1) { return test::member_id(n, incarnation); }

// Members 1..n, in address order, with the given statuses (default up).
std::vector<Member> table(int n, const std::map<int, MemberStatus>& statuses = {}) {
  std::vector<Member> members;
  for (int i = 1; i <= n; ++i) {
    const auto it = statuses.find(i);
    members.push_back(Member{id(i), it == statuses.end() ? MemberStatus::up : it->second});
  }
  std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) { return a.id < b.id; });
  return members;
}

MonitoringRing ring_of(const std::vector<Member>& members) {
  MonitoringRing ring;
  ring.update(members);
  return ring;
}

TEST(MonitoringRing, HoldsOnlyLiveMembers) {
  const std::vector<Member> members =
      table(6, {{2, MemberStatus::down}, {4, MemberStatus::removed}, {5, MemberStatus::joining}});
  const MonitoringRing ring = ring_of(members);
  const std::vector<MemberId> expected{id(1), id(3), id(5), id(6)};
  EXPECT_EQ(std::vector<MemberId>(ring.ids().begin(), ring.ids().end()), expected);
  EXPECT_TRUE(ring.successors(id(2), 3).empty()) << "a down member watches nobody";
  EXPECT_TRUE(ring.predecessors(id(4), 3).empty()) << "a removed member has no monitors";
}

TEST(MonitoringRing, EveryMemberIsWatchedByExactlyK) {
  const MonitoringRing ring = ring_of(table(12));
  std::map<MemberId, int> watchers;
  for (const MemberId& m : ring.ids()) {
    const std::vector<MemberId> watched = ring.successors(m, 5);
    ASSERT_EQ(watched.size(), 5u);
    EXPECT_TRUE(std::is_sorted(watched.begin(), watched.end()));
    EXPECT_EQ(std::count(watched.begin(), watched.end(), m), 0) << "nobody watches itself";
    for (const MemberId& subject : watched) ++watchers[subject];
  }
  for (const MemberId& m : ring.ids()) EXPECT_EQ(watchers[m], 5) << m.to_string();
}

TEST(MonitoringRing, PredecessorsAreTheInverseOfSuccessors) {
  const MonitoringRing ring = ring_of(table(9));
  for (const MemberId& subject : ring.ids()) {
    const std::vector<MemberId> monitors = ring.predecessors(subject, 3);
    ASSERT_EQ(monitors.size(), 3u);
    for (const MemberId& monitor : monitors) {
      const std::vector<MemberId> watched = ring.successors(monitor, 3);
      EXPECT_TRUE(std::binary_search(watched.begin(), watched.end(), subject));
    }
  }
}

TEST(MonitoringRing, PredecessorsComeNearestFirst) {
  // The first predecessor's single successor is the subject itself.
  const MonitoringRing ring = ring_of(table(7));
  for (const MemberId& subject : ring.ids()) {
    const std::vector<MemberId> monitors = ring.predecessors(subject, 2);
    ASSERT_EQ(monitors.size(), 2u);
    EXPECT_EQ(ring.successors(monitors[0], 1), std::vector<MemberId>{subject});
    EXPECT_EQ(ring.successors(monitors[1], 1), std::vector<MemberId>{monitors[0]});
  }
}

// Edge: k is capped at the ring's size minus one, down to a ring of one,
// where nobody is watched.
TEST(MonitoringRing, SmallRingsCapK) {
  const MonitoringRing three = ring_of(table(3));
  for (const MemberId& m : three.ids()) {
    EXPECT_EQ(three.successors(m, 5).size(), 2u);
    EXPECT_EQ(three.predecessors(m, 5).size(), 2u);
  }
  const MonitoringRing one = ring_of(table(1));
  EXPECT_TRUE(one.successors(id(1), 5).empty());
  EXPECT_TRUE(one.predecessors(id(1), 5).empty());
  const MonitoringRing none = ring_of({});
  EXPECT_EQ(none.size(), 0u);
  EXPECT_TRUE(none.successors(id(1), 5).empty());
}

// Edge: a restarted member (same address, new incarnation) is a different
// member: the old life leaves the ring, the new one joins it.
TEST(MonitoringRing, NewIncarnationReplacesTheOld) {
  std::vector<Member> members = table(4);
  MonitoringRing ring = ring_of(members);
  members[2] = Member{id(3, 2), MemberStatus::joining};
  ring.update(members);
  EXPECT_TRUE(ring.successors(id(3, 1), 2).empty());
  EXPECT_EQ(ring.successors(id(3, 2), 2).size(), 2u);
  EXPECT_EQ(ring.size(), 4u);
}

TEST(MonitoringRing, IncrementalUpdateMatchesARebuild) {
  // Members come and go in steps; after each, the ring equals one built
  // from scratch, in both its successor and predecessor answers.
  MonitoringRing ring;
  const std::vector<std::map<int, MemberStatus>> steps = {
      {},
      {{3, MemberStatus::down}},
      {{3, MemberStatus::removed}, {7, MemberStatus::leaving}, {9, MemberStatus::down}},
      {{1, MemberStatus::down}, {2, MemberStatus::down}},
      {},
  };
  for (const auto& statuses : steps) {
    const std::vector<Member> members = table(10, statuses);
    ring.update(members);
    const MonitoringRing fresh = ring_of(members);
    ASSERT_EQ(std::vector<MemberId>(ring.ids().begin(), ring.ids().end()),
              std::vector<MemberId>(fresh.ids().begin(), fresh.ids().end()));
    for (const MemberId& m : fresh.ids()) {
      EXPECT_EQ(ring.successors(m, 3), fresh.successors(m, 3));
      EXPECT_EQ(ring.predecessors(m, 3), fresh.predecessors(m, 3));
    }
  }
}

// As a join storm and churn move it: members join anywhere in address order
// (the table grows), go down, come back in a later life, in random steps;
// after each the ring equals a rebuild.
TEST(MonitoringRing, IncrementalUpdateMatchesARebuildAsTheTableGrowsAndChurns) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Prng prng(seed);
    MonitoringRing ring;
    std::map<int, Member> known;  // by member number; the table holds those known
    for (int step = 0; step < 60; ++step) {
      for (std::uint64_t change = prng.below(6); change > 0; --change) {
        const int n = 1 + static_cast<int>(prng.below(40));
        const auto it = known.find(n);
        if (it == known.end()) {
          known.emplace(n, Member{id(n), MemberStatus::joining});
        } else if (prng.below(3) == 0) {
          it->second = Member{id(n, it->second.id.incarnation.value + 1), MemberStatus::up};  // a later life
        } else {
          it->second.status = prng.below(2) == 0 ? MemberStatus::down : MemberStatus::up;
        }
      }
      std::vector<Member> members;
      for (const auto& [n, m] : known) members.push_back(m);
      std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) { return a.id < b.id; });
      ring.update(members);
      const MonitoringRing fresh = ring_of(members);
      ASSERT_EQ(std::vector<MemberId>(ring.ids().begin(), ring.ids().end()),
                std::vector<MemberId>(fresh.ids().begin(), fresh.ids().end()))
          << "seed " << seed << " step " << step;
      for (const MemberId& m : fresh.ids()) ASSERT_EQ(ring.successors(m, 3), fresh.successors(m, 3)) << seed;
    }
  }
}

// The walk passes unreachable members: a member keeps watching until it has
// k that are not unreachable, so a subject whose k nearest predecessors are
// all unreachable (they died with it) is still watched by the live member
// before them. The two walks stay each other's inverse under any view.
TEST(MonitoringRing, WalksPastUnreachableMembers) {
  const MonitoringRing ring = ring_of(table(12));
  const std::size_t k = 3;
  const MemberId subject = ring.ids()[5];
  const std::vector<MemberId> nearest = ring.predecessors(subject, k);
  ASSERT_EQ(nearest.size(), k);
  std::vector<MemberId> unreachable = nearest;
  std::sort(unreachable.begin(), unreachable.end());

  const std::vector<MemberId> monitors = ring.predecessors(subject, k, unreachable);
  ASSERT_EQ(monitors.size(), 2 * k) << "the k unreachable ones, then k live ones";
  EXPECT_TRUE(std::equal(nearest.begin(), nearest.end(), monitors.begin()));
  const MemberId first_live = monitors[k];
  EXPECT_FALSE(std::binary_search(unreachable.begin(), unreachable.end(), first_live));
  const std::vector<MemberId> watched = ring.successors(first_live, k, unreachable);
  EXPECT_TRUE(std::binary_search(watched.begin(), watched.end(), subject));
  EXPECT_EQ(watched.size(), 2 * k) << "the k unreachable, the subject and k - 1 beyond it";
  const std::vector<MemberId> before = ring.successors(first_live, k);
  EXPECT_FALSE(std::binary_search(before.begin(), before.end(), subject)) << "not watched without the view";

  for (const MemberId& s : ring.ids()) {
    for (const MemberId& m : ring.predecessors(s, k, unreachable)) {
      const std::vector<MemberId> succ = ring.successors(m, k, unreachable);
      EXPECT_TRUE(std::binary_search(succ.begin(), succ.end(), s)) << m.to_string() << " -> " << s.to_string();
    }
    // And nobody else watches s.
    std::size_t watchers = 0;
    for (const MemberId& m : ring.ids()) {
      const std::vector<MemberId> succ = ring.successors(m, k, unreachable);
      watchers += std::binary_search(succ.begin(), succ.end(), s) ? 1U : 0U;
    }
    EXPECT_EQ(watchers, ring.predecessors(s, k, unreachable).size());
  }
}

// Edge: with everyone else unreachable the walk covers the whole ring once.
TEST(MonitoringRing, WalkStopsAtTheRingsEnd) {
  const MonitoringRing ring = ring_of(table(6));
  std::vector<MemberId> all(ring.ids().begin(), ring.ids().end());
  for (const MemberId& m : ring.ids()) {
    EXPECT_EQ(ring.successors(m, 3, all).size(), 5u);
    EXPECT_EQ(ring.predecessors(m, 3, all).size(), 5u);
  }
}

TEST(MonitoringRing, KeyIsAFixedFingerprintOfTheAddress) {
  // Every node must place every member at the same position, on every
  // platform and build: pinned values (a change reshuffles every ring, and
  // with it every trace hash).
  EXPECT_EQ(MonitoringRing::key(NodeAddress{"10.0.0.1", 7000}), 0xb2d829c4f5ded098ULL);
  EXPECT_EQ(MonitoringRing::key(NodeAddress{"10.0.0.2", 7000}), 0x54eed9ee6d643915ULL);
  EXPECT_NE(MonitoringRing::key(NodeAddress{"10.0.0.1", 7000}), MonitoringRing::key(NodeAddress{"10.0.0.1", 7001}));
}

}  // namespace
}  // namespace weft
