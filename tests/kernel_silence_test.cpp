// Goal: a leader that watches a silent member downs it once the member has
// provably been silent for the forgiven pause plus silence_slack, never
// sooner, and the proof is the earlier of its two clocks: the first
// heartbeat the leader sent after it last heard the member (unanswered), and
// the member's own next heartbeat, due a heartbeat_interval after its last.
// Before, the leader counted from the last frame heard and had to allow a
// whole heartbeat interval on top (6 s at the defaults).
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "kernel/drain.hpp"
#include "kernel/kernel.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/handshake.hpp"
#include "sim/simulator.hpp"
#include "tests/dial_back_support.hpp"
#include "tests/test_ids.hpp"
#include "tests/wire_test_support.hpp"

namespace weft {
namespace {

using test::member_id;
using wire::testing::encode_frame;

constexpr Duration kStep = Duration::milliseconds(10);

// n1 (the leader: the lowest address), n2 the subject, n3 an observer.
wire::GossipState cluster(std::uint64_t row_version, bool n3_marks_n2) {
  wire::GossipState state;
  state.members = {Member{member_id(1), MemberStatus::up}, Member{member_id(2), MemberStatus::up},
                   Member{member_id(3), MemberStatus::up}};
  std::vector<MemberId> unreachable;
  if (n3_marks_n2) unreachable.push_back(member_id(2));
  state.rows = {ReachabilityRow{member_id(3), row_version, unreachable}};
  state.seen.assign(seen_bytes_for(state.members.size()), 0);
  return state;
}

struct Run {
  Config config;
  Kernel kernel;
  Instant now = Instant::from_ns(1'000'000'000);
  LinkId from_n2{};
  LinkId from_n3{};
  std::optional<Instant> n2_down;
  std::uint64_t sequence = 0;

  Run() : config(leader_config()), kernel(config, 7) {}

  static Config leader_config() {
    Config c;
    c.self = member_id(1).address;
    c.seeds = {c.self};
    return c;
  }

  void drain_all() {
    (void)drain(
        kernel, [](LinkCommand&&) {}, [](const Transmit&) {},
        [&](Event&& event) {
          if (const auto* m = std::get_if<MemberEvent>(&event)) {
            if (m->member.id == member_id(2) && m->member.status == MemberStatus::down && !n2_down) n2_down = now;
          }
          return true;
        });
  }

  LinkId dial_in(const MemberId& peer) {
    const LinkId link = kernel.handle_link_accepted(now);
    kernel.handle_bytes(now, link, encode_frame(wire::testing::hello_from(config.cluster_name, peer)));
    return link;
  }

  void start() {
    kernel.handle_tick(now);
    drain_all();
    from_n2 = dial_in(member_id(2));
    from_n3 = test::introduce_stranger(kernel, now, config.cluster_name, member_id(3));
    kernel.handle_bytes(now, from_n3, encode_frame(cluster(1, false)));
    drain_all();
  }

  // Time passes in steps; n3 heartbeats every 100 ms (it stays reachable
  // and counts as an observer); n2 sends what `n2_sends` says at each step.
  template <class N2Sends>
  void run_until(Instant until, N2Sends n2_sends) {
    while (now < until && !n2_down) {
      now = now + kStep;
      if (((now - Instant::epoch()).ns() / kStep.ns()) % 10 == 0) kernel.handle_bytes(now, from_n3, encode_frame(wire::Heartbeat{++sequence}));
      n2_sends(*this);
      kernel.handle_tick(now);
      drain_all();
    }
  }
};

Duration ms(std::int64_t n) { return Duration::milliseconds(n); }

// n2 heartbeats the leader once a second and gossips every 100 ms, then
// falls silent at `lost`; at `lost + 4.5 s` n3 gossips its mark. Returns
// when the leader downed n2, as a delay after the last frame n2 sent.
struct Outcome {
  Duration after_last_frame;
  Duration after_last_heartbeat;
};

Outcome lose_n2(Duration last_heartbeat_before_loss, Duration last_gossip_before_loss) {
  Run run;
  run.start();
  const Instant lost = run.now + Duration::seconds(10);
  const Instant last_heartbeat = lost - last_heartbeat_before_loss;
  const Instant last_gossip = lost - last_gossip_before_loss;
  const auto n2_alive = [&](Run& r) {
    if (r.now > lost) return;
    // Heartbeats on n2's own 1 s cadence, ending at last_heartbeat.
    if ((last_heartbeat - r.now).ns() % Duration::seconds(1).ns() == 0 && r.now <= last_heartbeat) {
      r.kernel.handle_bytes(r.now, r.from_n2, encode_frame(wire::Heartbeat{++r.sequence}));
    }
    // Gossip every 100 ms, ending at last_gossip: frequent frames, so the
    // leader's own detector trips early and its silence clock decides.
    if ((last_gossip - r.now).ns() % ms(100).ns() == 0 && r.now <= last_gossip) {
      r.kernel.handle_bytes(r.now, r.from_n2, encode_frame(wire::GossipDigest{1, 1}));
    }
  };
  run.run_until(lost + ms(4500), n2_alive);
  run.kernel.handle_bytes(run.now, run.from_n3, encode_frame(cluster(2, true)));
  run.run_until(lost + Duration::seconds(20), n2_alive);
  EXPECT_TRUE(run.n2_down.has_value()) << "n2 was never downed";
  if (!run.n2_down) return {};
  const Instant last_frame = std::max(last_heartbeat, last_gossip);
  return {*run.n2_down - last_frame, *run.n2_down - last_heartbeat};
}

TEST(KernelSilence, TheSubjectsMissedHeartbeatStartsTheClock) {
  // Its last heartbeat 900 ms before the loss, so the next was due 100 ms
  // after it; its last frame (gossip) just before the loss.
  const Outcome o = lose_n2(ms(900), ms(10));
  const Config c;
  const Duration allowed = forgiven_pause(c) + c.silence_slack;
  // Due at last heartbeat + 1 s: downed within a couple of steps after
  // that plus the allowance, and never sooner.
  EXPECT_GE(o.after_last_heartbeat, c.heartbeat_interval + allowed);
  EXPECT_LE(o.after_last_heartbeat, c.heartbeat_interval + allowed + kStep * 2)
      << "downed " << o.after_last_heartbeat.ms() << " ms after the last heartbeat";
  // The old clock (the last frame + forgiven pause + a heartbeat interval)
  // would have waited 6 s after the gossip.
  EXPECT_LT(o.after_last_frame, forgiven_pause(c) + c.heartbeat_interval - ms(500));
}

TEST(KernelSilence, NeverBeforeTheForgivenPausePlusTheSlack) {
  // Whatever the phases, a silence is downed only once it has lasted the
  // forgiven pause plus the slack since the last frame, and at the latest a
  // heartbeat interval (the leader's own next round) after that.
  const Config c;
  const Duration allowed = forgiven_pause(c) + c.silence_slack;
  for (const std::int64_t heartbeat_ms : {0, 250, 500, 990}) {
    const Outcome o = lose_n2(ms(heartbeat_ms), ms(0));
    EXPECT_GE(o.after_last_frame, allowed) << "last heartbeat " << heartbeat_ms << " ms before the loss";
    EXPECT_LE(o.after_last_frame, allowed + c.heartbeat_interval + kStep * 2)
        << "last heartbeat " << heartbeat_ms << " ms before the loss";
  }
}

// Mixed configs: a member configured to heartbeat less often (every 2 s,
// as during a rolling change of heartbeat_interval) is not downed for a
// pause of 4.99 s (inside the forgiven 5 s) at phases 100 ms apart across
// its heartbeat interval, and a lost host with the same setting still is.
// (The rule that keeps its heartbeat clock honest, waiting out the gap
// seen between two of its heartbeats, is shown alone in
// silence_clock_test.cpp: in the cluster, frames heard after the due time
// void the clock first nearly always.)
bool n5_downed(const sim::Simulator& s) {
  for (std::size_t o = 1; o <= 4; ++o) {
    const Member* m = s.kernel(o)->members().find(s.address(5));
    if (m == nullptr || m->id.incarnation.value != 1 || m->status == MemberStatus::down) return true;
  }
  return false;
}

sim::SimOptions slow_n5(std::uint64_t seed) {
  sim::SimOptions o;
  o.seed = seed;
  o.nodes = 5;
  o.tune = [](Config& c) {
    if (c.self.host == "10.0.0.5") c.heartbeat_interval = Duration::seconds(2);
  };
  return o;
}

TEST(KernelSilence, ASlowerHeartbeatIsNotHeldSilentEarly) {
  for (std::int64_t phase_ms = 0; phase_ms < 2000; phase_ms += 100) {
    sim::Simulator s(slow_n5(1));
    s.run_for(Duration::seconds(10) + ms(phase_ms));
    ASSERT_FALSE(n5_downed(s));
    s.pause(5, ms(4990));
    s.run_for(Duration::seconds(15));
    EXPECT_FALSE(n5_downed(s)) << "a 4.99 s pause downed at phase " << phase_ms << " ms";
  }
  sim::Simulator lost(slow_n5(1));
  lost.run_for(Duration::seconds(10));
  lost.lose_host(5);
  EXPECT_TRUE(lost.run_until([&] { return n5_downed(lost); }, Duration::seconds(10)).has_value());
}

}  // namespace
}  // namespace weft
