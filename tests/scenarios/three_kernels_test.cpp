// Goal: three real kernels wired by hand show, step by step, a join, a crash
// detected and downed, and a suspicion refuted after a pause, plus one broken
// link that downs nobody. Each step names the scenario line it checks.
#include <gtest/gtest.h>

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
