#include "sim/scenario.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace weft::sim {
namespace {

Duration uniform_ms(Prng& prng, std::int64_t low, std::int64_t high) {
  return Duration::milliseconds(prng.between(low, high));
}

Fault make_fault(Fault::Kind kind, Duration at, std::vector<std::size_t> nodes, Duration length) {
  Fault f;
  f.kind = kind;
  f.at = at;
  f.nodes = std::move(nodes);
  f.length = length;
  return f;
}

}  // namespace

Scenario generate(std::uint64_t seed, std::size_t nodes, Duration chaos) {
  WEFT_ASSERT(nodes >= 2);
  Scenario s;
  s.seed = seed;
  s.nodes = nodes;
  s.chaos = chaos;
  const Bounds bounds = compute_bounds(Config{}, nodes);
  s.heal = bounds.heal + Duration::seconds(5);
  Prng prng = Prng::derive(seed, 7);
  // One draw per statement: the order of two draws inside one expression is
  // unspecified in C++ and differs between gcc and clang.
  const Duration floor_ms = uniform_ms(prng, 0, 1);
  s.network.latency_floor = floor_ms + Duration::microseconds(prng.between(50, 500));
  s.network.latency_tail_mean = Duration::microseconds(prng.between(50, 2000));
  s.network.max_chunks = static_cast<std::uint32_t>(prng.between(1, 8));

  // Swarm testing: each kind of fault is off for some seeds and heavy for others.
  const Duration start = Duration::seconds(5);
  const Duration end = chaos - Duration::seconds(1);
  const auto when = [&] { return Duration::nanoseconds(prng.between(start.ns(), end.ns())); };
  const auto node = [&] { return static_cast<std::size_t>(prng.between(1, static_cast<std::int64_t>(nodes))); };
  const auto count = [&] { return prng.chance(Ratio{1, 2}) ? prng.between(1, 4) : 0; };

  for (std::int64_t i = count(); i > 0; --i) {
    const Duration at = when();
    const std::size_t victim = node();
    s.faults.push_back(make_fault(Fault::Kind::crash, at, {victim}, {}));
    if (prng.chance(Ratio{2, 3})) {
      s.faults.push_back(make_fault(Fault::Kind::restart, std::min(end, at + uniform_ms(prng, 500, 10'000)), {victim}, {}));
    }
  }
  for (std::int64_t i = count(); i > 0; --i) {
    s.faults.push_back(make_fault(Fault::Kind::pause, when(), {node()}, uniform_ms(prng, 200, 8'000)));
  }
  for (std::int64_t i = count(); i > 0; --i) {
    const std::size_t a = node();
    std::size_t b = node();
    if (b == a) b = a % nodes + 1;
    const Duration at = when();
    s.faults.push_back(make_fault(Fault::Kind::cut, at, {a, b}, {}));
    s.faults.push_back(make_fault(Fault::Kind::heal, std::min(end, at + uniform_ms(prng, 1'000, 15'000)), {}, {}));
  }
  for (std::int64_t i = count(); i > 0; --i) {
    std::vector<std::size_t> side;
    for (std::size_t n = 1; n <= nodes; ++n) {
      if (prng.chance(Ratio{1, 2})) side.push_back(n);
    }
    if (side.empty() || side.size() == nodes) side = {node()};
    const Duration at = when();
    s.faults.push_back(make_fault(Fault::Kind::partition, at, side, {}));
    s.faults.push_back(make_fault(Fault::Kind::heal, std::min(end, at + uniform_ms(prng, 2'000, 20'000)), {}, {}));
  }
  std::stable_sort(s.faults.begin(), s.faults.end(),
                   [](const Fault& a, const Fault& b) { return a.at < b.at; });
  return s;
}

namespace {

// Safety, checked throughout: no live node holds its own life as down or
// removed (M3), and no node's view of a member moves backwards (M2).
class SafetyChecker {
 public:
  explicit SafetyChecker(const Simulator& sim) : sim_(sim) {}

  void check(std::vector<std::string>& failures) {
    for (std::size_t i = 1; i <= sim_.size(); ++i) {
      const Kernel* k = sim_.kernel(i);
      if (k == nullptr || k->is_shut_down()) continue;
      const Member* me = k->members().find(k->self().address);
      if (me != nullptr && me->id == k->self() &&
          (me->status == MemberStatus::down || me->status == MemberStatus::removed)) {
        failures.push_back("M3: n" + std::to_string(i) + " holds itself " +
                           std::string(to_string(me->status)));
      }
      for (const Member& m : k->members().members()) {
        auto& last = seen_[{i, k->self().incarnation.value, m.address().to_string()}];
        const std::pair<std::uint64_t, int> now{m.incarnation().value, static_cast<int>(m.status)};
        if (now < last) {
          failures.push_back("M2: n" + std::to_string(i) + " moved " + m.address().to_string() + " backwards");
        }
        last = now;
      }
    }
  }

 private:
  const Simulator& sim_;
  std::map<std::tuple<std::size_t, std::uint64_t, std::string>, std::pair<std::uint64_t, int>> seen_;
};

// Liveness after the heal: every live node up in one identical view, and
// every node still crashed is down or removed in it (M4, F1, M5).
bool one_view(const Simulator& sim, std::string* why) {
  std::optional<std::uint64_t> digest;
  for (std::size_t i = 1; i <= sim.size(); ++i) {
    const Kernel* k = sim.kernel(i);
    if (k == nullptr) continue;
    for (std::size_t j = 1; j <= sim.size(); ++j) {
      const Member* m = k->members().find(sim.address(j));
      const bool alive = sim.alive(j);
      if (alive && (m == nullptr || m->status != MemberStatus::up || m->id != sim.kernel(j)->self())) {
        if (why) *why = "n" + std::to_string(i) + " does not see live n" + std::to_string(j) + " up";
        return false;
      }
      if (!alive && m != nullptr && is_live_status(m->status)) {
        if (why) *why = "n" + std::to_string(i) + " still lists crashed n" + std::to_string(j) + " as " +
                        std::string(to_string(m->status));
        return false;
      }
    }
    if (digest && *digest != k->state_digest()) {
      if (why) *why = "views differ (n" + std::to_string(i) + ")";
      return false;
    }
    digest = k->state_digest();
  }
  return true;
}

}  // namespace

RunResult run(const Scenario& scenario, const std::function<void(const TraceLine&)>& trace_sink,
              std::span<Workload* const> workloads) {
  (void)workloads;
  SimOptions options;
  options.seed = scenario.seed;
  options.nodes = scenario.nodes;
  options.network = scenario.network;
  Simulator sim(options);
  if (trace_sink) sim.on_trace(trace_sink);
  RunResult result;
  SafetyChecker safety(sim);
  const Instant start = sim.now();
  const Duration step = Duration::milliseconds(100);

  const auto run_checked_until = [&](Instant until) {
    while (sim.now() < until && result.failures.empty()) {
      sim.run_for(std::min(step, until - sim.now()));
      safety.check(result.failures);
    }
  };
  for (const Fault& f : scenario.faults) {
    run_checked_until(start + f.at);
    switch (f.kind) {
      case Fault::Kind::crash: sim.crash(f.nodes[0]); break;
      case Fault::Kind::restart: sim.restart(f.nodes[0]); break;
      case Fault::Kind::pause: sim.pause(f.nodes[0], f.length); break;
      case Fault::Kind::cut: sim.cut(f.nodes[0], f.nodes[1]); break;
      case Fault::Kind::partition: sim.partition(f.nodes); break;
      case Fault::Kind::heal: sim.heal(); break;
      case Fault::Kind::cut_one_way: sim.cut_one_way(f.nodes[0], f.nodes[1]); break;
      case Fault::Kind::flap:
      case Fault::Kind::spike:
      case Fault::Kind::flood:
      case Fault::Kind::asks: break;
    }
  }
  run_checked_until(start + scenario.chaos);
  if (!result.failures.empty()) {
    result.verdict = Verdict::safety_failure;
  } else {
    sim.heal();
    std::string why;
    const auto healed = sim.run_until([&] { return one_view(sim, nullptr); }, scenario.heal);
    if (!healed) {
      (void)one_view(sim, &why);
      result.verdict = Verdict::liveness_failure;
      result.failures.push_back("M4/M5/F1: no single view " + std::to_string(scenario.heal.ms()) +
                                " ms after the heal: " + why);
    }
  }
  for (std::size_t i = 1; i <= sim.size(); ++i) {
    const Kernel* k = sim.kernel(i);
    if (k == nullptr) {
      result.final_views.push_back("n" + std::to_string(i) + ": crashed");
      continue;
    }
    for (std::size_t m = 0; m < kMarkCount; ++m) result.marks[m] += k->counters().marks[m];
    std::string line = "n" + std::to_string(i) + " " + k->self().to_string() + ": leader " +
                       (k->leader() ? k->leader()->to_string() : std::string("none")) +
                       (k->converged() ? ", converged" : ", not converged") + "; members";
    for (const Member& m : k->members().members()) {
      line += " " + m.id.to_string() + "=" + std::string(to_string(m.status)) + (k->is_unreachable(m.id) ? "(unreachable)" : "");
    }
    line += "; seen by";
    for (const MemberId& id : k->seen_by()) line += " " + id.to_string();
    result.final_views.push_back(std::move(line));
  }
  result.trace_hash = sim.trace_hash();
  result.events = sim.events_processed();
  result.timeline = sim.timeline();
  return result;
}

}  // namespace weft::sim
