// Goal: three real kernels wired by hand show, step by step, a join, a crash
// detected and downed, and a suspicion refuted after a pause, plus one broken
// link that downs nobody. Each step names the scenario line it checks.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>

#include "kernel_harness.hpp"

namespace weft::testing {
namespace {

constexpr auto kUp = MemberStatus::up;

TEST(ThreeKernels, JoinThroughASeed) {
  Harness h(3);
  // n1 forms the cluster; n2 and n3 join through it.
  const auto took = h.advance_until(
      [&] {
        for (std::size_t subject = 1; subject <= 3; ++subject) {
          if (!h.all_see_status({1, 2, 3}, subject, kUp)) return false;
        }
        return h.node(1).converged() && h.node(2).converged() && h.node(3).converged();
      },
      Duration::seconds(10));
  h.expect(took.has_value(), "all three see all three up and converged within 10 s");
  h.expect(h.node(1).state_digest() == h.node(2).state_digest() &&
               h.node(2).state_digest() == h.node(3).state_digest(),
           "identical views");
  h.expect(h.node(1).leader() == h.address(1), "the lowest address leads");
  h.expect(h.node(2).monitored_subjects().size() == 2, "each node monitors both others (k capped at N-1)");
}

TEST(ThreeKernels, CrashIsDetectedDownedAndRemoved) {
  Harness h(3);
  h.advance(Duration::seconds(5));
  h.expect(h.all_see_status({1, 2, 3}, 3, kUp), "n3 up everywhere before the crash");

  h.crash(3);
  const Bounds bounds = compute_bounds(h.node(1).config(), 3);
  const auto unreachable = h.advance_until(
      [&] { return h.unreachable_seen_by(1, 3) && h.unreachable_seen_by(2, 3); }, bounds.detect);
  h.expect(unreachable.has_value(), "n1 and n2 mark n3 unreachable within T_detect");
  const auto down = h.advance_until([&] { return h.all_see_status({1, 2}, 3, MemberStatus::down); },
                                    bounds.down);
  h.expect(down.has_value(), "n3 is down on n1 and n2 within T_down");
  const auto removed = h.advance_until(
      [&] { return h.all_see_status({1, 2}, 3, MemberStatus::removed); }, Duration::seconds(10));
  h.expect(removed.has_value(), "then removed");
  std::printf("crash: unreachable after %lld ms (T_detect %lld), down %lld ms later (T_down %lld)\n",
              static_cast<long long>(unreachable.value_or(Duration::zero()).ms()),
              static_cast<long long>(bounds.detect.ms()),
              static_cast<long long>(down.value_or(Duration::zero()).ms()),
              static_cast<long long>(bounds.down.ms()));
  h.expect(h.all_see_status({1, 2}, 1, kUp) && h.all_see_status({1, 2}, 2, kUp),
           "the survivors stay up");
  h.expect(h.node(1).counters().marks[static_cast<std::size_t>(Mark::early_crash_suspicion)] > 0 ||
               h.node(2).counters().marks[static_cast<std::size_t>(Mark::early_crash_suspicion)] > 0,
           "a refused redial started probing before phi did");
}

TEST(ThreeKernels, PauseSuspicionIsRefutedWithoutRestart) {
  Harness h(3, [](Config& c) { c.down_after_unreachable = Duration::seconds(30); });
  h.advance(Duration::seconds(5));
  const Incarnation before = h.node(3).self().incarnation;

  h.pause(3);  // a long GC pause: links stay open and silent
  const auto suspected = h.advance_until([&] { return h.unreachable_seen_by(1, 3); }, Duration::seconds(12));
  ASSERT_TRUE(suspected.has_value()) << "n1 suspects the paused n3 within 12 s";
  h.expect(*suspected > Duration::seconds(3), "not before the acceptable pause");

  std::printf("pause: suspected after %lld ms\n", static_cast<long long>(suspected->ms()));
  h.resume(3);
  const auto refuted = h.advance_until(
      [&] { return !h.unreachable_seen_by(1, 3) && !h.unreachable_seen_by(2, 3); }, Duration::seconds(5));
  h.expect(refuted.has_value(), "the suspicion is refuted once n3 answers again");
  h.expect(h.all_see_status({1, 2, 3}, 3, kUp), "n3 stays up");
  h.expect(h.node(3).self().incarnation == before, "without a restart");
  h.expect(h.node(3).counters().marks[static_cast<std::size_t>(Mark::self_pause_forgiven)] > 0,
           "n3 forgave its own pause instead of blaming n1 and n2");
  h.expect(!h.unreachable_seen_by(3, 1) && !h.unreachable_seen_by(3, 2), "n3 blames nobody");
}

TEST(ThreeKernels, OneBrokenLinkDownsNobody) {
  Harness h(3);
  h.advance(Duration::seconds(5));
  h.cut(1, 3);  // n1 and n3 cannot talk; both still reach n2
  h.advance(Duration::seconds(30));
  for (std::size_t subject = 1; subject <= 3; ++subject) {
    h.expect(h.all_see_status({1, 2, 3}, subject, kUp), "everyone still up: n" + std::to_string(subject));
  }
  h.expect(!h.unreachable_seen_by(2, 1) && !h.unreachable_seen_by(2, 3), "n2 sees no unreachability");
  h.expect(h.node(1).counters().marks[static_cast<std::size_t>(Mark::indirect_probe_saved)] > 0,
           "n2 vouched for n3 when n1 probed");
}

TEST(ThreeKernels, GracefulLeave) {
  Harness h(3);
  h.advance(Duration::seconds(3));
  h.node(3).leave(h.now());
  const auto removed = h.advance_until(
      [&] { return h.all_see_status({1, 2}, 3, MemberStatus::removed); }, Duration::seconds(10));
  h.expect(removed.has_value(), "the leaver goes leaving -> exiting -> removed everywhere");
  const auto stopped = h.advance_until([&] { return h.node(3).is_shut_down(); }, Duration::seconds(2));
  h.expect(stopped.has_value(), "and, once it learns it was removed, stops");
  h.expect(h.count_events(3, [](const Event& e) { return std::holds_alternative<ShutdownEvent>(e); }) == 1,
           "with one shutdown event");
  h.expect(h.advance_until([&] { return h.node(1).converged() && h.node(2).converged(); },
                           Duration::seconds(2))
               .has_value(),
           "the rest converge");
}

TEST(ThreeKernels, DownedWhileAliveRejoinsWithANewIncarnation) {
  Harness h(3);
  h.advance(Duration::seconds(3));
  const Incarnation before = h.node(3).self().incarnation;
  h.cut(1, 3);
  h.cut(2, 3);  // n3 is alone long enough to be downed by n1 and n2, and downs them
  const auto downed = h.advance_until([&] { return h.all_see_status({1, 2}, 3, MemberStatus::down); },
                                      Duration::seconds(30));
  h.expect(downed.has_value(), "the majority side downs n3");
  h.restore(1, 3);
  h.restore(2, 3);
  const auto healed = h.advance_until(
      [&] {
        for (std::size_t s = 1; s <= 3; ++s) {
          if (!h.all_see_status({1, 2, 3}, s, MemberStatus::up)) return false;
        }
        return h.node(1).state_digest() == h.node(3).state_digest();
      },
      compute_bounds(h.node(1).config(), 3).heal);
  h.expect(healed.has_value(), "after the heal all three are up in one view within T_heal (M5)");
  h.expect(h.node(3).self().incarnation > before, "n3 came back as a new incarnation (M3)");
  h.expect(h.node(3).counters().marks[static_cast<std::size_t>(Mark::rejoined_after_down)] > 0,
           "the rejoin mark was hit");
}

}  // namespace
}  // namespace weft::testing

namespace weft::testing {
namespace {

// Issue 43, case 4: a removed member's tombstone, once pruned, stays gone.
// Four nodes, a short tombstone_ttl; n4 crashes, is downed and removed.
// Each node prunes the tombstone at its own moment, and one that has
// pruned hears it again from one that has not. Over 4 TTLs after the
// removal: how many times a survivor learned n4's removal again (after the
// first time), how many still hold a record of n4 at the end, and how many
// records were refused as forgotten lives.
struct Afterlife {
  std::uint64_t relearned = 0;
  std::uint64_t held_at_end = 0;
  std::uint64_t refused = 0;
  bool converged = false;
};
Afterlife tombstone_afterlife(std::size_t forgotten_lives) {
  Harness h(4, [&](Config& c) {
    c.tombstone_ttl = Duration::seconds(4);
    c.forgotten_lives = forgotten_lives;
  });
  h.advance(Duration::seconds(5));
  const NodeAddress n4 = h.address(4);
  h.crash(4);
  const auto removed =
      h.advance_until([&] { return h.all_see_status({1, 2, 3}, 4, MemberStatus::removed); }, Duration::seconds(20));
  h.expect(removed.has_value(), "n4 removed on every survivor");
  h.advance(Duration::seconds(16));
  Afterlife out;
  for (std::size_t i = 1; i <= 3; ++i) {
    const std::uint64_t removals = h.count_events(i, [&](const Event& e) {
      const auto* m = std::get_if<MemberEvent>(&e);
      return m != nullptr && m->member.address() == n4 && m->member.status == MemberStatus::removed;
    });
    h.expect(removals >= 1, "each survivor learned the removal");
    out.relearned += removals - 1;
    if (h.status_seen_by(i, 4)) ++out.held_at_end;
    out.refused += h.node(i).counters().forgotten_lives_refused;
  }
  out.converged = h.node(1).converged() && h.node(1).state_digest() == h.node(2).state_digest() &&
                  h.node(2).state_digest() == h.node(3).state_digest();
  return out;
}

TEST(ThreeKernels, APrunedTombstoneStaysGone) {
  const Afterlife a = tombstone_afterlife(4096);
  std::printf("pruned tombstone: learned again %llu times, held by %llu of 3 at the end, %llu records refused\n",
              static_cast<unsigned long long>(a.relearned), static_cast<unsigned long long>(a.held_at_end),
              static_cast<unsigned long long>(a.refused));
  EXPECT_EQ(a.relearned, 0u);
  EXPECT_EQ(a.held_at_end, 0u);
  EXPECT_GT(a.refused, 0u);  // the echo came, and was refused
  EXPECT_TRUE(a.converged) << "the survivors' views converged again";
}

// The same without the memory (forgotten_lives = 0, what weft did before):
// the tombstone comes back, the defect the test above would catch.
TEST(ThreeKernels, WithoutTheMemoryAPrunedTombstoneComesBack) {
  const Afterlife a = tombstone_afterlife(0);
  std::printf("no memory: learned again %llu times, held by %llu of 3 at the end\n",
              static_cast<unsigned long long>(a.relearned), static_cast<unsigned long long>(a.held_at_end));
  EXPECT_GT(a.relearned, 0u);
  EXPECT_EQ(a.refused, 0u);
}

// Six nodes joining through n1 with a budget of one new member per peer per
// gossip_interval (new_member_budget.hpp): every joiner takes the table one
// record at a time from each peer, the rest deferred, and still converges
// because honest gossip repeats what it was not answered.
std::optional<Duration> six_join(std::uint32_t cap, std::uint64_t& deferred) {
  Harness h(6, [&](Config& c) { c.max_new_members_per_peer = cap; });
  const auto took = h.advance_until(
      [&] {
        for (std::size_t subject = 1; subject <= 6; ++subject) {
          if (!h.all_see_status({1, 2, 3, 4, 5, 6}, subject, kUp)) return false;
        }
        for (std::size_t n = 1; n <= 6; ++n) {
          if (!h.node(n).converged()) return false;
        }
        return true;
      },
      Duration::seconds(30));
  deferred = 0;
  for (std::size_t n = 1; n <= 6; ++n) deferred += h.node(n).counters().new_members_deferred;
  return took;
}

TEST(ThreeKernels, JoinsConvergeWhenNewMembersAreCapped) {
  std::uint64_t deferred = 0;
  std::uint64_t deferred_by_default = 0;
  const std::optional<Duration> capped = six_join(1, deferred);
  const std::optional<Duration> by_default = six_join(Config{}.max_new_members_per_peer, deferred_by_default);
  ASSERT_TRUE(capped.has_value()) << "all six up and converged within 30 s at a cap of 1";
  ASSERT_TRUE(by_default.has_value());
  EXPECT_GT(deferred, 0U) << "the cap was reached";
  EXPECT_EQ(deferred_by_default, 0U);
  std::printf("six nodes up and converged: %lld ms at a cap of 1 (%llu records deferred), %lld ms at the default\n",
              static_cast<long long>(capped->ms()), static_cast<unsigned long long>(deferred),
              static_cast<long long>(by_default->ms()));
}

}  // namespace
}  // namespace weft::testing
