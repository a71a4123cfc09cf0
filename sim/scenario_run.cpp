// Playing a scenario: run() wires the simulator, the workloads and every
// checker, applies the faults in the chaos phase with safety checked every
// step, then heals everything and requires one view within the heal phase.
#include <algorithm>
#include <optional>
#include <string>

#include "sim/boot_checker.hpp"
#include "sim/checkers.hpp"
#include "sim/crash_downing_checker.hpp"
#include "sim/flapping_checker.hpp"
#include "sim/ongoing_faults.hpp"
#include "sim/partition_checker.hpp"
#include "sim/pause_downing_checker.hpp"
#include "sim/scenario.hpp"
#include "sim/text.hpp"
#include "sim/traffic.hpp"

namespace weft::sim {

namespace {

// Liveness after the heal: every live node up, in one identical view, and
// every node still crashed down or removed in it (M4, M5, F1). Judged from
// the member records and reachability marks themselves, not from the
// digest the kernels compute of them. `why` names the property: F1 for a
// crashed node still listed live, M5 when the run had a cut, partition or
// flap to heal, M4 otherwise.
bool one_view(const Simulator& sim, bool had_partition, std::string* why) {
  // Asked after every event of the heal phase until it holds. Tables whose
  // digests differ differ (the digest is a function of the records, cached
  // by the table per change), so most events are answered in O(N) instead
  // of N x N lookups. A digest only ever says "not yet": one view is still
  // judged record by record below.
  if (why == nullptr) {
    std::optional<std::uint64_t> digest;
    for (std::size_t i = 1; i <= sim.size(); ++i) {
      const Kernel* k = sim.kernel(i);
      if (k == nullptr) continue;
      const std::uint64_t d = k->members().digest();
      if (digest && *digest != d) return false;
      digest = d;
    }
  }
  const auto fail = [&](const char* property, std::string text) {
    if (why) *why = cat(property, ": ", text);
    return false;
  };
  const char* split = had_partition ? "M5" : "M4";
  const Kernel* first = nullptr;
  std::size_t first_node = 0;
  for (std::size_t i = 1; i <= sim.size(); ++i) {
    const Kernel* k = sim.kernel(i);
    if (k == nullptr) continue;
    for (std::size_t j = 1; j <= sim.size(); ++j) {
      const Member* m = k->members().find(sim.address(j));
      if (sim.alive(j)) {
        const MemberId& life = sim.kernel(j)->self();
        if (m == nullptr || m->status != MemberStatus::up || m->id != life) {
          return fail(split, cat("n", std::to_string(i), " does not see live n", std::to_string(j), " up"));
        }
        if (k->is_unreachable(life)) {
          return fail(split, cat("n", std::to_string(i), " still holds live n", std::to_string(j), " unreachable"));
        }
      } else if (m != nullptr && is_live_status(m->status)) {
        return fail("F1", cat("n", std::to_string(i), " still lists crashed n", std::to_string(j), " as ",
                                  to_string(m->status)));
      }
    }
    if (first == nullptr) {
      first = k;
      first_node = i;
      continue;
    }
    const std::span<const Member> a = first->members().members();
    const std::span<const Member> b = k->members().members();
    const bool same = std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Member& x, const Member& y) {
      return x.id == y.id && x.status == y.status;
    });
    if (!same) {
      return fail(split, cat("n", std::to_string(first_node), " and n", std::to_string(i), " hold different member records"));
    }
  }
  return true;
}

// Toggles a flapping partition every period until its time is up; the
// "heal" half restores every cut, as a heal fault does.
void flap(Simulator& sim, std::vector<std::size_t> side, Duration period, Instant end, bool cut) {
  if (sim.now() >= end) {
    sim.heal();
    return;
  }
  if (cut) {
    sim.partition(side);
  } else {
    sim.heal();
  }
  const Instant next = sim.now() + period;
  sim.call_at(std::min(next, end), [&sim, side = std::move(side), period, end, cut] {
    flap(sim, side, period, end, !cut);
  });
}

std::string view_line(std::size_t node, const Kernel& k) {
  std::string line = cat("n", std::to_string(node), " ", k.self().to_string(), ": leader ",
                         k.leader() ? k.leader()->to_string() : std::string("none"),
                         k.converged() ? ", converged" : ", not converged", "; members");
  for (const Member& m : k.members().members()) {
    line += ' ';
    line += m.id.to_string();
    line += '=';
    line += to_string(m.status);
    if (k.is_unreachable(m.id)) line += "(unreachable)";
  }
  line += "; seen by";
  for (const MemberId& id : k.seen_by()) {
    line += ' ';
    line += id.to_string();
  }
  const KernelCounters& c = k.counters();
  line += cat("; frames in ", std::to_string(c.frames_in), " out ", std::to_string(c.frames_out),
              ", gossip states sent ", std::to_string(c.gossip_states_sent), ", records refused ",
              std::to_string(c.ingest_rejected));
  return line;
}

}  // namespace

RunResult run(const Scenario& scenario, const std::function<void(const TraceLine&)>& trace_sink,
              std::span<Workload* const> workloads) {
  TrafficWorkload traffic;
  std::vector<Workload*> all{&traffic};
  all.insert(all.end(), workloads.begin(), workloads.end());

  SimOptions options;
  options.seed = scenario.seed;
  options.nodes = scenario.nodes;
  options.network = scenario.network;
  options.clock_ppm = scenario.clock_ppm;
  options.tune = [&](Config& config) {
    config.mutations = scenario.mutations;
    config.auth = scenario_auth(scenario.auth, scenario.seed, config.self);
  };
  options.on_start = [&](std::size_t node, Kernel& kernel, Instant now) {
    for (Workload* w : all) w->on_start(node, kernel, now);
  };
  options.on_event = [&](std::size_t node, const Event& event) {
    for (Workload* w : all) w->on_event(node, event);
  };
  RunResult result;
  Config defaults;
  defaults.mutations = scenario.mutations;
  std::int64_t worst_ppm = 0;
  for (const std::int32_t ppm : scenario.clock_ppm) worst_ppm = std::max<std::int64_t>(worst_ppm, ppm < 0 ? -ppm : ppm);
  NoFlapping flapping(defaults, worst_ppm, &result.judged);
  // Set once built: the starts inside the constructor come before any
  // gossip, so nothing is judged there.
  const Simulator* running = nullptr;
  options.after_input = [&](std::size_t node, const Kernel& kernel) {
    for (Workload* w : all) w->after_input(node, kernel);
    if (running != nullptr) flapping.after_input(node, kernel, running->now());
  };
  const bool had_partition = std::any_of(scenario.faults.begin(), scenario.faults.end(), [](const Fault& f) {
    return f.kind == Fault::Kind::cut || f.kind == Fault::Kind::cut_one_way || f.kind == Fault::Kind::partition ||
           f.kind == Fault::Kind::flap;
  });
  Simulator sim(options);
  running = &sim;
  if (trace_sink) sim.on_trace(trace_sink);
  traffic.set_judged(&result.judged);
  MembershipSafety membership(&result.judged);
  DetectionAccuracy accuracy(defaults, scenario.nodes, &result.judged);
  TrustBoundary boundary(&result.judged);
  FaultLog faults;
  OngoingFaults ongoing;
  ClosedCrashDowning crash_downing(defaults, scenario.nodes, faults, &result.judged);
  ForgivenPause forgiven_pause(defaults, scenario.nodes, worst_ppm, faults, &result.judged);
  BootTogether boot(defaults, scenario.nodes, worst_ppm, faults, ongoing, &result.judged);
  boot.on_boot(sim.now());
  CleanPartition partition(
      defaults, scenario.nodes, worst_ppm, faults, ongoing,
      [&](std::string* why) { return one_view(sim, true, why); }, &result.judged);
  const auto check = [&] {
    membership.check(sim, result.failures);
    accuracy.check(sim, result.failures);
    boundary.check(sim, result.failures);
    crash_downing.check(sim, result.failures);
    forgiven_pause.check(sim, result.failures);
    boot.check(sim, result.failures);
    partition.check(sim, result.failures);
    flapping.check(result.failures);
    for (Workload* w : all) w->check(sim, result.failures);
  };
  const Instant start = sim.now();
  for (Workload* w : all) w->begin(sim, scenario);
  const Duration step = Duration::milliseconds(100);

  const auto run_checked_until = [&](Instant until) {
    while (sim.now() < until && result.failures.empty()) {
      sim.run_for(std::min(step, until - sim.now()));
      check();
    }
  };
  for (const Fault& f : scenario.faults) {
    run_checked_until(start + f.at);
    if (!result.failures.empty()) break;
    accuracy.on_fault(f, sim.now());
    faults.add(sim.now());
    switch (f.kind) {
      case Fault::Kind::crash:
      case Fault::Kind::lose:
        boot.on_crash(f.nodes[0], sim.now());
        if (const Kernel* k = sim.kernel(f.nodes[0]); k != nullptr && !k->is_shut_down()) {
          accuracy.on_crash(f.nodes[0], k->self(), sim.now());
          if (f.kind == Fault::Kind::crash) crash_downing.on_crash(f.nodes[0], k->self(), sim.now());
        }
        if (f.kind == Fault::Kind::crash) {
          sim.crash(f.nodes[0]);
        } else {
          sim.lose_host(f.nodes[0]);
        }
        break;
      case Fault::Kind::restart:
        if (!sim.alive(f.nodes[0])) boot.on_restart(f.nodes[0], sim.now());
        sim.restart(f.nodes[0]);
        break;
      case Fault::Kind::pause:
        if (const Kernel* k = sim.kernel(f.nodes[0]); k != nullptr && !k->is_shut_down() && !sim.paused(f.nodes[0])) {
          forgiven_pause.on_pause(f.nodes[0], k->self(), sim.now(), f.length);
        }
        sim.pause(f.nodes[0], f.length);
        break;
      case Fault::Kind::cut: sim.cut(f.nodes[0], f.nodes[1]); break;
      case Fault::Kind::cut_one_way: sim.cut_one_way(f.nodes[0], f.nodes[1]); break;
      case Fault::Kind::partition:
        partition.on_partition(sim, f.nodes);
        sim.partition(f.nodes);
        break;
      case Fault::Kind::flap: flap(sim, f.nodes, f.period, sim.now() + f.length, true); break;
      case Fault::Kind::heal:
        partition.on_heal(sim.now());
        sim.heal();
        break;
      case Fault::Kind::spike: sim.latency_spike(f.extra, sim.now() + f.length); break;
      case Fault::Kind::truncate: sim.damage_stream(f.nodes[0], f.nodes[1], Simulator::Damage::truncate); break;
      case Fault::Kind::corrupt: boundary.corrupt(sim, f); break;
      case Fault::Kind::rogue: boundary.rogue(sim, f, scenario.seed, result.failures); break;
      case Fault::Kind::flood:
      case Fault::Kind::asks: break;  // the traffic workload drives them
    }
    ongoing.add(f, sim.now());
  }
  run_checked_until(start + scenario.chaos);
  if (!result.failures.empty()) {
    result.verdict = Verdict::safety_failure;
  } else {
    sim.heal();
    const Fault heal{Fault::Kind::heal, sim.now() - start, {}, {}, {}, {}, 0, 0};
    accuracy.on_fault(heal, sim.now());
    faults.add(sim.now());
    ongoing.add(heal, sim.now());
    const Instant heal_end = sim.now() + scenario.heal;
    bool healed = false;
    while (!healed && result.failures.empty() && sim.now() < heal_end) {
      healed = sim.run_until([&] { return one_view(sim, had_partition, nullptr); }, std::min(step, heal_end - sim.now()))
                   .has_value();
      check();
    }
    if (!result.failures.empty()) {
      result.verdict = Verdict::safety_failure;
    } else if (!healed) {
      std::string why;
      (void)one_view(sim, had_partition, &why);
      result.verdict = Verdict::liveness_failure;
      const std::size_t colon = why.find(": ");
      result.failures.push_back(cat(why.substr(0, colon), ": no single view ", std::to_string(scenario.heal.ms()),
                                    " ms after the heal: ", why.substr(colon + 2)));
    } else {
      result.healed_after = sim.now() - (heal_end - scenario.heal);
      count(&result.judged, Check::m4_one_view);
      if (had_partition) count(&result.judged, Check::m5_partition_heal);
      for (Workload* w : all) w->finish(sim, result.failures);
      if (!result.failures.empty()) result.verdict = Verdict::safety_failure;
    }
  }
  for (std::size_t i = 1; i <= sim.size(); ++i) {
    const Kernel* k = sim.kernel(i);
    if (k == nullptr) {
      result.final_views.push_back(cat("n", std::to_string(i), ": crashed"));
      continue;
    }
    for (std::size_t m = 0; m < kMarkCount; ++m) result.marks[m] += k->counters().marks[m];
    result.final_views.push_back(view_line(i, *k));
  }
  if (result.verdict == Verdict::pass) {
    for (Mark mark : scenario.required_marks) {
      if (result.marks[static_cast<std::size_t>(mark)] == 0) {
        result.verdict = Verdict::coverage_failure;
        result.failures.push_back(cat("required mark ", to_string(mark), " was not hit"));
      }
    }
  }
  for (Workload* w : all) {
    if (std::string line = w->summary(); !line.empty()) result.summaries.push_back(std::move(line));
  }
  result.trace_hash = sim.trace_hash();
  result.events = sim.events_processed();
  result.simulated = sim.now() - start;
  result.timeline = sim.timeline();
  return result;
}

}  // namespace weft::sim
