// Goal: the simulator runs real kernels deterministically (same seed, same
// trace hash) and its faults behave like their real counterparts, on the
// scenarios the kernel must survive: join, crash and restart, partition and
// heal, a short pause.
#include <gtest/gtest.h>

#include "sim/recorder.hpp"
#include "sim/scenario.hpp"
#include "sim/simulator.hpp"

namespace weft::sim {
namespace {

SimOptions options(std::uint64_t seed, std::size_t nodes) {
  SimOptions o;
  o.seed = seed;
  o.nodes = nodes;
  return o;
}

bool one_view_all_up(const Simulator& s, const std::vector<std::size_t>& nodes) {
  std::optional<std::uint64_t> digest;
  for (std::size_t i : nodes) {
    const Kernel* k = s.kernel(i);
    if (k == nullptr) return false;
    for (std::size_t j : nodes) {
      const Member* m = k->members().find(s.address(j));
      if (m == nullptr || m->status != MemberStatus::up) return false;
    }
    if (digest && *digest != k->state_digest()) return false;
    digest = k->state_digest();
  }
  return true;
}

std::uint64_t scripted_run(std::uint64_t seed) {
  Simulator s(options(seed, 5));
  s.run_for(Duration::seconds(5));
  s.partition({1, 2});
  s.run_for(Duration::seconds(3));
  s.heal();
  s.crash(4);
  s.run_for(Duration::seconds(10));
  s.restart(4);
  s.pause(3, Duration::seconds(1));
  s.run_for(Duration::seconds(10));
  return s.trace_hash();
}

TEST(Simulator, SameSeedSameTraceHash) {
  const std::uint64_t first = scripted_run(42);
  EXPECT_EQ(scripted_run(42), first);
  EXPECT_NE(scripted_run(43), first);
}

TEST(Simulator, FiveNodesJoinIntoOneView) {
  Simulator s(options(7, 5));
  const Bounds bounds = compute_bounds(s.kernel(1)->config(), 5);
  const auto took = s.run_until([&] { return one_view_all_up(s, {1, 2, 3, 4, 5}); }, bounds.converge);
  ASSERT_TRUE(took.has_value());
  EXPECT_GT(s.events_processed(), 0u);
}

TEST(Simulator, CrashIsDownedAndTheRestartRejoins) {
  Simulator s(options(11, 5));
  s.run_for(Duration::seconds(5));
  ASSERT_TRUE(one_view_all_up(s, {1, 2, 3, 4, 5}));
  const Bounds bounds = compute_bounds(s.kernel(1)->config(), 5);
  s.crash(4);
  const auto downed = s.run_until(
      [&] {
        for (const std::size_t i : {1UL, 2UL, 3UL, 5UL}) {
          const Member* m = s.kernel(i)->members().find(s.address(4));
          if (m == nullptr || m->status < MemberStatus::down) return false;
        }
        return true;
      },
      bounds.down);
  ASSERT_TRUE(downed.has_value()) << "F1: down within T_down";
  s.restart(4);
  const auto back = s.run_until([&] { return one_view_all_up(s, {1, 2, 3, 4, 5}); }, bounds.converge);
  ASSERT_TRUE(back.has_value());
  const Member* four = s.kernel(1)->members().find(s.address(4));
  ASSERT_NE(four, nullptr);
  EXPECT_GT(four->incarnation().value, 1u);
}

TEST(Simulator, PartitionHealsIntoOneView) {
  Simulator s(options(5, 5));
  s.run_for(Duration::seconds(5));
  s.partition({1, 2});
  s.run_for(Duration::seconds(20));  // long enough for each side to down the other
  s.heal();
  const Bounds bounds = compute_bounds(s.kernel(1)->config(), 5);
  const auto healed = s.run_until([&] { return one_view_all_up(s, {1, 2, 3, 4, 5}); }, bounds.heal);
  EXPECT_TRUE(healed.has_value()) << "M5: one view within T_heal";
}

TEST(Simulator, ShortPauseIsNotSuspected) {
  Simulator s(options(3, 5));
  s.run_for(Duration::seconds(5));
  ASSERT_TRUE(one_view_all_up(s, {1, 2, 3, 4, 5}));
  s.pause(3, Duration::seconds(2));  // under the 3 s acceptable pause
  bool suspected = false;
  (void)s.run_until(
      [&] {
        for (const std::size_t i : {1UL, 2UL, 4UL, 5UL}) {
          const Member* m = s.kernel(i)->members().find(s.address(3));
          suspected = suspected || m == nullptr || s.kernel(i)->is_unreachable(m->id);  // vanished: a failure, not a crash
        }
        return false;
      },
      Duration::seconds(10));
  EXPECT_FALSE(suspected) << "F3: a pause under the acceptable pause is not suspected";
}

TEST(Simulator, DriftingClocksRunAtTheirOwnRate) {
  SimOptions o = options(4, 2);
  o.clock_ppm = {50'000, -50'000};  // 5 % fast, 5 % slow
  Simulator s(o);
  const Instant start = s.now();
  s.run_for(Duration::seconds(20));
  EXPECT_EQ(s.local_now(1) - start, Duration::seconds(21));
  EXPECT_EQ(s.local_now(2) - start, Duration::seconds(19));
}

TEST(Simulator, FivePercentDriftSuspectsNobody) {
  // Each node's timers (heartbeats, gossip, probe timeouts) run on its own
  // clock; phi's acceptable pause and sigma absorb a few percent of drift.
  SimOptions o = options(5, 5);
  o.clock_ppm = {50'000, -50'000, 30'000, -30'000, 0};
  Simulator s(o);
  ASSERT_TRUE(s.run_until([&] { return one_view_all_up(s, {1, 2, 3, 4, 5}); }, Duration::seconds(10)));
  bool suspected = false;
  (void)s.run_until(
      [&] {
        for (std::size_t i = 1; i <= 5; ++i) {
          for (std::size_t j = 1; j <= 5; ++j) {
            const Member* m = s.kernel(i)->members().find(s.address(j));
            suspected = suspected || (m != nullptr && s.kernel(i)->is_unreachable(m->id));
          }
        }
        return false;
      },
      Duration::seconds(60));
  EXPECT_FALSE(suspected) << "F2: drift within a few percent is no reason to suspect anyone";
}

}  // namespace
}  // namespace weft::sim

// The recorder behind weft-sim --html only looks: the run keeps its trace
// hash, and the picture holds what happened: n4 crashed for good, marked
// unreachable and then down in every survivor's view, n5 paused.
namespace weft::sim {
namespace {

TEST(RunRecorder, LeavesTheRunAsItWasAndPicturesIt) {
  const ParsedScenario parsed = parse_scenario(
      "seed 7 nodes 5 chaos 30.000s heal 35.000s\n"
      "network floor 300us\n"
      "at 6.000s crash n4\n"
      "at 10.000s pause n5 for 2000ms\n");
  ASSERT_TRUE(parsed.scenario) << parsed.error;
  const RunResult plain = run(*parsed.scenario);
  RunRecorder recorder;
  Workload* const workloads[] = {&recorder};
  const RunResult watched = run(*parsed.scenario, {}, workloads);
  EXPECT_EQ(plain.trace_hash, watched.trace_hash);
  EXPECT_EQ(plain.events, watched.events);
  ASSERT_EQ(watched.verdict, Verdict::pass);

  const RunPicture& p = recorder.picture();
  ASSERT_EQ(p.views.size(), 5U);
  EXPECT_EQ(p.end, watched.simulated);
  EXPECT_FALSE(p.first_failure);
  const auto at = [&](const std::vector<RunPicture::Span>& row, Duration t) -> std::optional<std::uint8_t> {
    const auto cell = static_cast<std::uint32_t>(t / p.cell);
    for (const RunPicture::Span& s : row) {
      if (s.from <= cell && cell < s.to) return s.state;
    }
    return std::nullopt;
  };
  EXPECT_EQ(at(p.process[3], Duration::seconds(5)), RunPicture::running);
  EXPECT_EQ(at(p.process[3], Duration::seconds(20)), RunPicture::crashed);
  EXPECT_EQ(at(p.process[4], Duration::seconds(11)), RunPicture::paused);
  EXPECT_TRUE(p.views[3][0].back().to <= static_cast<std::uint32_t>(Duration::seconds(7) / p.cell))
      << "a crashed node has no view";
  bool saw_unreachable = false;
  for (std::size_t observer : {0U, 1U, 2U, 4U}) {
    const auto early = at(p.views[observer][3], Duration::seconds(4));
    ASSERT_TRUE(early);
    EXPECT_EQ(*early, static_cast<std::uint8_t>(MemberStatus::up));
    const auto late = at(p.views[observer][3], p.end - Duration::milliseconds(1));
    ASSERT_TRUE(late);
    EXPECT_TRUE((*late & 7) == static_cast<std::uint8_t>(MemberStatus::down) ||
                (*late & 7) == static_cast<std::uint8_t>(MemberStatus::removed) || (*late & 7) == RunPicture::kAbsent)
        << "n" << observer + 1 << " still sees crashed n4 as " << int(*late);
    for (const RunPicture::Span& s : p.views[observer][3]) saw_unreachable |= (s.state & RunPicture::kUnreachable) != 0;
    // Spans are ordered, disjoint and merged.
    for (std::size_t k = 1; k < p.views[observer][3].size(); ++k) {
      EXPECT_LE(p.views[observer][3][k - 1].to, p.views[observer][3][k].from);
      EXPECT_LT(p.views[observer][3][k].from, p.views[observer][3][k].to);
    }
  }
  EXPECT_TRUE(saw_unreachable);
}

}  // namespace
}  // namespace weft::sim
