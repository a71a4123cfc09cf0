// Membership at scale (issue 12's table), measured in the simulator at the
// default configuration, a few seeds a case, in virtual time:
//
//   boot N        N nodes start together; the time until every node sees
//                 all N up (N = 5, 32; 1000 with --big)
//   silent loss   5 nodes; the host of n5 is lost (no FIN, no RST, dials
//                 unanswered): the time until every survivor holds it down
//   crash         5 nodes; n5's process dies (sockets closed, redials
//                 refused): unreachable and down on every survivor
//   pause 2 s     5 nodes; n5 stops for 2 s: how many runs saw it suspected
//   pause 5 s     the same for 5 s: how many runs downed it, and in how
//                 many the resumed node listed itself unreachable (M7)
//   cost          N = 32, 100 (1000 with --big) booted and settled; over the
//                 next 30 s, the bytes each node sends (membership only:
//                 gossip, heartbeats, probes) and its open connections
//   partition     5 nodes (--partition-nodes N: N, two fifths cut off)
//                 split {n1, n2} | {n3, n4, n5}: the time until
//                 every node holds every node across the cut down; then,
//                 5 s later, the cut heals: the time until one view, every
//                 node seeing all five up
//
// Each fault strikes 10 s after the boot plus a phase drawn from the seed
// (0-1 s, so the fault meets the heartbeats anywhere in their interval).
// Each case prints the median and the range over its seeds. Not a
// benchmark of wall time: every number is simulated time, the same on any
// machine for the same build.
//
//   build/release/bench/weft_membership_scale [--first SEED] [--seeds N] [--big] [--partition-nodes N]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/simulator.hpp"

namespace {

using weft::Duration;
using weft::MemberStatus;
using weft::sim::Simulator;

constexpr std::size_t kVictim = 5;

// --confirmed MS overrides down_after_confirmed (to chart the trade-off).
std::optional<Duration> g_confirmed;

weft::sim::SimOptions options(std::uint64_t seed, std::size_t nodes,
                              std::function<void(std::size_t, const weft::Event&)> on_event = {}) {
  weft::sim::SimOptions o;
  o.seed = seed;
  o.nodes = nodes;
  o.on_event = std::move(on_event);
  if (g_confirmed) o.tune = [](weft::Config& c) { c.down_after_confirmed = *g_confirmed; };
  return o;
}

std::optional<MemberStatus> status_seen(const Simulator& sim, std::size_t observer, std::size_t subject) {
  const weft::Kernel* k = sim.kernel(observer);
  if (k == nullptr) return std::nullopt;
  const weft::Member* m = k->members().find(sim.address(subject));
  if (m == nullptr) return std::nullopt;
  return m->status;
}

bool all_up(const Simulator& sim) {
  for (std::size_t o = 1; o <= sim.size(); ++o) {
    const weft::Kernel* k = sim.kernel(o);
    if (k == nullptr) return false;
    std::size_t up = 0;
    for (const weft::Member& m : k->members().members()) up += m.status == MemberStatus::up ? 1 : 0;
    if (up != sim.size()) return false;
  }
  return true;
}

bool down_on_survivors(const Simulator& sim, std::size_t victim) {
  for (std::size_t o = 1; o <= sim.size(); ++o) {
    if (o == victim) continue;
    const auto s = status_seen(sim, o, victim);
    if (s && *s != MemberStatus::down && *s != MemberStatus::removed) return false;
  }
  return true;
}

bool unreachable_on_survivors(const Simulator& sim, std::size_t victim) {
  for (std::size_t o = 1; o <= sim.size(); ++o) {
    if (o == victim) continue;
    const weft::Kernel* k = sim.kernel(o);
    const weft::Member* m = k->members().find(sim.address(victim));
    if (m != nullptr && m->status == MemberStatus::up && !k->is_unreachable(m->id)) return false;
  }
  return true;
}

bool sides_see_each_other_down(const Simulator& sim, const std::vector<std::size_t>& side) {
  const auto in_side = [&](std::size_t n) { return std::find(side.begin(), side.end(), n) != side.end(); };
  for (std::size_t o = 1; o <= sim.size(); ++o) {
    for (std::size_t s = 1; s <= sim.size(); ++s) {
      if (in_side(o) == in_side(s)) continue;
      const auto status = status_seen(sim, o, s);
      if (status && *status != MemberStatus::down && *status != MemberStatus::removed) return false;
    }
  }
  return true;
}

struct Sample {
  std::vector<double> seconds;  // one per seed that finished
  std::size_t missed = 0;       // seeds where it did not happen within the limit
};

void add(Sample& s, std::optional<Duration> took) {
  if (took) {
    s.seconds.push_back(static_cast<double>(took->ns()) / 1e9);
  } else {
    ++s.missed;
  }
}

std::string summary(Sample s) {
  if (s.seconds.empty()) return "never (" + std::to_string(s.missed) + " runs)";
  std::sort(s.seconds.begin(), s.seconds.end());
  char text[160];
  std::snprintf(text, sizeof text, "%.2f s (%.2f-%.2f, %zu runs)", s.seconds[s.seconds.size() / 2],
                s.seconds.front(), s.seconds.back(), s.seconds.size());
  std::string out = text;
  if (s.missed > 0) out += ", " + std::to_string(s.missed) + " never";
  return out;
}

// Where in the heartbeat interval a fault strikes, drawn from the seed:
// nodes booted together heartbeat in step, so a fault a fixed time after the
// boot would meet every seed's heartbeats at the same phase.
Duration phase(std::uint64_t seed) { return Duration::milliseconds(static_cast<std::int64_t>((seed * 618) % 1000)); }

// Boots `nodes`, lets the cluster settle, and returns the simulator.
std::optional<Duration> boot(Simulator& sim, Duration limit) {
  return sim.run_until([&] { return all_up(sim); }, limit);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t first = 1;
  std::uint64_t seeds = 11;
  bool big = false;
  std::size_t pause_nodes = 5;
  std::size_t partition_nodes = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--big") == 0) {
      big = true;
    } else if (std::strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
      seeds = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--confirmed") == 0 && i + 1 < argc) {
      g_confirmed = Duration::milliseconds(std::strtoll(argv[++i], nullptr, 10));
    } else if (std::strcmp(argv[i], "--pause-nodes") == 0 && i + 1 < argc) {
      pause_nodes = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--partition-nodes") == 0 && i + 1 < argc) {
      partition_nodes = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--first") == 0 && i + 1 < argc) {
      first = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: %s [--first SEED] [--seeds N] [--big] [--confirmed MS] [--pause-nodes N] [--partition-nodes N]\n", argv[0]);
      return 2;
    }
  }
  std::printf("| case | weft (simulated, default config, seeds %llu..%llu) |\n|---|---|\n",
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(first + seeds - 1));
  for (std::size_t n : {std::size_t{5}, std::size_t{32}}) {
    Sample s;
    for (std::uint64_t seed = first; seed < first + seeds; ++seed) {
      Simulator sim(options(seed, n));
      add(s, boot(sim, Duration::seconds(60)));
    }
    std::printf("| %zu nodes boot together, every node sees all up | %s |\n", n, summary(s).c_str());
  }
  if (big) {
    Sample s;
    Simulator sim(options(first, 1000));
    add(s, boot(sim, Duration::seconds(60)));
    std::printf("| 1000 nodes boot together (seed %llu) | %s |\n", static_cast<unsigned long long>(first), summary(s).c_str());
  }
  for (const std::size_t n : {std::size_t{32}, std::size_t{100}, std::size_t{1000}}) {
    if (n == 1000 && !big) continue;
    Simulator sim(options(first, n));
    if (!boot(sim, Duration::seconds(60))) {
      std::printf("| cost at %zu nodes | never converged |\n", n);
      continue;
    }
    sim.run_for(Duration::seconds(10));
    std::vector<std::uint64_t> before(n + 1);
    for (std::size_t i = 1; i <= n; ++i) before[i] = sim.kernel(i)->counters().bytes_out;
    const Duration window = Duration::seconds(30);
    sim.run_for(window);
    double total = 0;
    double most = 0;
    std::size_t links = 0;
    std::size_t most_links = 0;
    for (std::size_t i = 1; i <= n; ++i) {
      const double rate = static_cast<double>(sim.kernel(i)->counters().bytes_out - before[i]) /
                          (static_cast<double>(window.ns()) / 1e9);
      total += rate;
      most = std::max(most, rate);
      const std::size_t open = sim.open_connections(i);
      links += open;
      most_links = std::max(most_links, open);
    }
    std::printf("| cost at %zu nodes, converged (seed %llu): membership bytes sent per node | %.0f B/s mean, %.0f B/s max |\n",
                n, static_cast<unsigned long long>(first), total / static_cast<double>(n), most);
    std::printf("| cost at %zu nodes: open connections per node (dialed or accepted) | %.1f mean, %zu max |\n", n,
                static_cast<double>(links) / static_cast<double>(n), most_links);
  }
  for (const bool silent : {true, false}) {
    Sample unreachable;
    Sample down;
    for (std::uint64_t seed = first; seed < first + seeds; ++seed) {
      Simulator sim(options(seed, 5));
      if (!boot(sim, Duration::seconds(30))) continue;
      sim.run_for(Duration::seconds(10) + phase(seed));  // detectors fill their windows
      if (silent) {
        sim.lose_host(kVictim);
      } else {
        sim.crash(kVictim);
      }
      const auto u = sim.run_until([&] { return unreachable_on_survivors(sim, kVictim); }, Duration::seconds(30));
      add(unreachable, u);
      const auto d = sim.run_until([&] { return down_on_survivors(sim, kVictim); }, Duration::seconds(30));
      add(down, u && d ? std::optional<Duration>(*u + *d) : std::nullopt);
    }
    const char* what = silent ? "silent host loss" : "crash, sockets closed and redials refused";
    std::printf("| %s: unreachable on every survivor | %s |\n", what, summary(unreachable).c_str());
    std::printf("| %s: down on every survivor | %s |\n", what, summary(down).c_str());
  }
  {
    Sample both_down;
    Sample one_view;
    for (std::uint64_t seed = first; seed < first + seeds; ++seed) {
      Simulator sim(options(seed, partition_nodes));
      if (!boot(sim, Duration::seconds(30))) continue;
      sim.run_for(Duration::seconds(10) + phase(seed));
      std::vector<std::size_t> minority;  // {n1, n2} of 5
      for (std::size_t n = 1; n <= partition_nodes * 2 / 5; ++n) minority.push_back(n);
      sim.partition(minority);
      add(both_down, sim.run_until([&] { return sides_see_each_other_down(sim, minority); }, Duration::seconds(30)));
      sim.run_until([&] { return sides_see_each_other_down(sim, minority); }, Duration::seconds(30));
      sim.run_for(Duration::seconds(5));
      sim.heal();
      add(one_view, sim.run_until([&] { return all_up(sim); }, Duration::seconds(60)));
    }
    const std::size_t small = partition_nodes * 2 / 5;
    std::printf("| partition %zu / %zu: both sides see the other down | %s |\n", small, partition_nodes - small,
                summary(both_down).c_str());
    std::printf("| heal after it: one view, all up everywhere | %s |\n", summary(one_view).c_str());
  }
  for (const std::int64_t pause_s : {2, 5}) {
    std::size_t suspected = 0;
    std::size_t downed = 0;
    std::size_t self_listed = 0;
    std::size_t runs = 0;
    for (std::uint64_t seed = first; seed < first + seeds; ++seed) {
      bool victim_suspected = false;
      bool listed_itself = false;
      weft::NodeAddress victim;
      Simulator sim(options(seed, pause_nodes, [&](std::size_t node, const weft::Event& event) {
        const auto* r = std::get_if<weft::ReachabilityEvent>(&event);
        if (r && r->unreachable && node != kVictim && r->subject.address == victim) victim_suspected = true;
        if (r && r->unreachable && node == kVictim && r->subject.address == victim) listed_itself = true;
      }));
      victim = sim.address(kVictim);
      if (!boot(sim, Duration::seconds(30))) continue;
      sim.run_for(Duration::seconds(10) + phase(seed));
      victim_suspected = false;
      ++runs;
      sim.pause(kVictim, Duration::seconds(pause_s));
      sim.run_for(Duration::seconds(pause_s + 15));
      suspected += victim_suspected ? 1 : 0;
      self_listed += listed_itself ? 1 : 0;
      bool was_downed = false;
      for (std::size_t o = 1; o <= sim.size(); ++o) {
        if (o == kVictim) continue;
        const weft::Kernel* k = sim.kernel(o);
        const weft::Member* m = k->members().find(sim.address(kVictim));
        // Downed at some point: the record left its first incarnation.
        if (m == nullptr || m->id.incarnation.value != 1 || m->status == MemberStatus::down) was_downed = true;
      }
      downed += was_downed ? 1 : 0;
    }
    std::printf("| pause %lld s (%zu nodes): runs with a suspicion | %zu of %zu |\n", static_cast<long long>(pause_s), pause_nodes, suspected, runs);
    std::printf("| pause %lld s (%zu nodes): runs that downed it | %zu of %zu |\n", static_cast<long long>(pause_s), pause_nodes, downed, runs);
    std::printf("| pause %lld s (%zu nodes): runs where the resumed node listed itself unreachable | %zu of %zu |\n",
                static_cast<long long>(pause_s), pause_nodes, self_listed, runs);
  }
  return 0;
}
