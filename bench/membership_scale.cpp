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
//   pause 5 s     the same for 5 s: how many runs downed it
//
// Each case prints the median and the range over its seeds. Not a
// benchmark of wall time: every number is simulated time, the same on any
// machine for the same build.
//
//   build/release/bench/weft_membership_scale [--first SEED] [--seeds N] [--big]
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

weft::sim::SimOptions options(std::uint64_t seed, std::size_t nodes,
                              std::function<void(std::size_t, const weft::Event&)> on_event = {}) {
  weft::sim::SimOptions o;
  o.seed = seed;
  o.nodes = nodes;
  o.on_event = std::move(on_event);
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

// Boots `nodes`, lets the cluster settle, and returns the simulator.
std::optional<Duration> boot(Simulator& sim, Duration limit) {
  return sim.run_until([&] { return all_up(sim); }, limit);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t first = 1;
  std::uint64_t seeds = 11;
  bool big = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--big") == 0) {
      big = true;
    } else if (std::strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
      seeds = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--first") == 0 && i + 1 < argc) {
      first = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: %s [--first SEED] [--seeds N] [--big]\n", argv[0]);
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
  for (const bool silent : {true, false}) {
    Sample unreachable;
    Sample down;
    for (std::uint64_t seed = first; seed < first + seeds; ++seed) {
      Simulator sim(options(seed, 5));
      if (!boot(sim, Duration::seconds(30))) continue;
      sim.run_for(Duration::seconds(10));  // detectors fill their windows
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
  for (const std::int64_t pause_s : {2, 5}) {
    std::size_t suspected = 0;
    std::size_t downed = 0;
    std::size_t runs = 0;
    for (std::uint64_t seed = first; seed < first + seeds; ++seed) {
      bool victim_suspected = false;
      weft::NodeAddress victim;
      Simulator sim(options(seed, 5, [&](std::size_t node, const weft::Event& event) {
        const auto* r = std::get_if<weft::ReachabilityEvent>(&event);
        if (r && r->unreachable && node != kVictim && r->subject.address == victim) victim_suspected = true;
      }));
      victim = sim.address(kVictim);
      if (!boot(sim, Duration::seconds(30))) continue;
      sim.run_for(Duration::seconds(10));
      victim_suspected = false;
      ++runs;
      sim.pause(kVictim, Duration::seconds(pause_s));
      sim.run_for(Duration::seconds(pause_s + 15));
      suspected += victim_suspected ? 1 : 0;
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
    std::printf("| pause %lld s: runs with a suspicion | %zu of %zu |\n", static_cast<long long>(pause_s), suspected, runs);
    std::printf("| pause %lld s: runs that downed it | %zu of %zu |\n", static_cast<long long>(pause_s), downed, runs);
  }
  return 0;
}
