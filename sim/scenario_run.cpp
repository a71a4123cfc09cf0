// Playing a scenario: run() wires the simulator, the workloads and every
// checker, applies the faults in the chaos phase with safety checked every
// step, then heals everything and requires one view within the heal phase.
#include <algorithm>
#include <optional>
#include <string>

#include "sim/boot_checker.hpp"
#include "sim/checkers.hpp"
#include "sim/crash_downing_checker.hpp"
#include "sim/detection_checks.hpp"
#include "sim/flapping_checker.hpp"
#include "sim/membership_checker.hpp"
#include "sim/ongoing_faults.hpp"
#include "sim/partition_checker.hpp"
#include "sim/pause_downing_checker.hpp"
#include "sim/scenario.hpp"
#include "sim/text.hpp"
#include "sim/traffic.hpp"
#include "sim/trust_boundary_checker.hpp"

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
              ", gossip states sent ", std::to_string(c.gossip_states_sent), ", deltas sent ",
              std::to_string(c.gossip_deltas_sent), ", records refused ",
              std::to_string(c.ingest_rejected));
  return line;
}

// One run of a scenario: the simulator, the workloads and every checker,
// wired together, then played in its phases. Set-up is the constructor;
// play() applies the faults in the chaos phase (apply), checking every
// step (run_checked_until), then heals and waits for one view (heal), and
// finish() gives the verdict and what the run leaves to read.
class ScenarioRun {
 public:
  ScenarioRun(const Scenario& scenario, const std::function<void(const TraceLine&)>& trace_sink,
              std::span<Workload* const> workloads);
  ScenarioRun(const ScenarioRun&) = delete;
  ScenarioRun& operator=(const ScenarioRun&) = delete;

  RunResult play();

 private:
  // The checkers look at every node this often, in both phases.
  static constexpr Duration kStep = Duration::milliseconds(100);

  SimOptions options();
  // Every checker and workload, in this order, each step.
  void check();
  // Runs the simulator in steps of kStep until `until`, checking after each,
  // and stops at the first step that found a failure.
  void run_checked_until(Instant until);
  // The chaos phase: each fault applied at its time, the checkers told first.
  void chaos();
  void apply(const Fault& fault);
  void apply_death(const Fault& fault);
  void apply_pause(const Fault& fault);
  // The heal phase: every cut restored, then up to the heal budget for one
  // view; its verdict.
  void heal();
  void judge_heal(bool healed, Instant heal_end);
  // The verdict's last part (required marks) and what every run reports.
  void finish();

  const Scenario& scenario_;
  TrafficWorkload traffic_;
  std::vector<Workload*> all_;  // the traffic workload, then the caller's
  RunResult result_;
  Config defaults_;  // every node's config but its address and keys
  std::int64_t worst_ppm_ = 0;  // the largest clock drift either way
  NoFlapping flapping_;
  // Set once the simulator is built: the starts inside its constructor come
  // before any gossip, so M7 judges nothing there.
  bool running_ = false;
  bool had_partition_;
  Simulator sim_;
  MembershipSafety membership_;
  DetectionChecks detection_;
  TrustBoundary boundary_;
  FaultLog faults_;
  OngoingFaults ongoing_;
  ClosedCrashDowning crash_downing_;
  ForgivenPause forgiven_pause_;
  BootTogether boot_;
  CleanPartition partition_;
  Instant start_;
};

std::vector<Workload*> with_traffic(Workload* traffic, std::span<Workload* const> workloads) {
  std::vector<Workload*> all{traffic};
  all.insert(all.end(), workloads.begin(), workloads.end());
  return all;
}

Config defaults_of(const Scenario& scenario) {
  Config defaults;
  defaults.mutations = scenario.mutations;
  return defaults;
}

std::int64_t worst_ppm_of(const Scenario& scenario) {
  std::int64_t worst_ppm = 0;
  for (const std::int32_t ppm : scenario.clock_ppm) worst_ppm = std::max<std::int64_t>(worst_ppm, ppm < 0 ? -ppm : ppm);
  return worst_ppm;
}

// A cut, partition or flap to heal: one view after the heal is M5's, not M4's.
bool had_partition_of(const Scenario& scenario) {
  return std::any_of(scenario.faults.begin(), scenario.faults.end(), [](const Fault& f) {
    return f.kind == Fault::Kind::cut || f.kind == Fault::Kind::cut_one_way || f.kind == Fault::Kind::partition ||
           f.kind == Fault::Kind::flap;
  });
}

ScenarioRun::ScenarioRun(const Scenario& scenario, const std::function<void(const TraceLine&)>& trace_sink,
                         std::span<Workload* const> workloads)
    : scenario_(scenario),
      all_(with_traffic(&traffic_, workloads)),
      defaults_(defaults_of(scenario)),
      worst_ppm_(worst_ppm_of(scenario)),
      flapping_(defaults_, worst_ppm_, &result_.judged),
      had_partition_(had_partition_of(scenario)),
      sim_(options()),
      membership_(&result_.judged),
      detection_(defaults_, scenario.nodes, &result_.judged),
      boundary_(&result_.judged),
      crash_downing_(defaults_, scenario.nodes, faults_, &result_.judged),
      forgiven_pause_(defaults_, scenario.nodes, worst_ppm_, faults_, &result_.judged),
      boot_(defaults_, scenario.nodes, worst_ppm_, faults_, ongoing_, &result_.judged),
      partition_(
          defaults_, scenario.nodes, worst_ppm_, faults_, ongoing_,
          [this](std::string* why) { return one_view(sim_, true, why); }, &result_.judged) {
  running_ = true;
  if (trace_sink) sim_.on_trace(trace_sink);
  traffic_.set_judged(&result_.judged);
  boot_.on_boot(sim_.now());
  start_ = sim_.now();
}

SimOptions ScenarioRun::options() {
  SimOptions options;
  options.seed = scenario_.seed;
  options.nodes = scenario_.nodes;
  options.network = scenario_.network;
  options.clock_ppm = scenario_.clock_ppm;
  options.wall_clock_skew = scenario_.wall_clock_skew;
  options.tap_openings = std::any_of(scenario_.faults.begin(), scenario_.faults.end(), [](const Fault& f) {
    return f.kind == Fault::Kind::rogue && f.rogue == Fault::Rogue::replayed_proof;
  });
  options.tune = [this](Config& config) {
    config.mutations = scenario_.mutations;
    config.auth = scenario_auth(scenario_.auth, scenario_.seed, config.self);
    if (scenario_.link_idle_timeout) config.link_idle_timeout = *scenario_.link_idle_timeout;
    if (scenario_.tombstone_ttl) config.tombstone_ttl = *scenario_.tombstone_ttl;
  };
  options.on_start = [this](std::size_t node, Kernel& kernel, Instant now) {
    for (Workload* w : all_) w->on_start(node, kernel, now);
  };
  options.on_event = [this](std::size_t node, const Event& event) {
    for (Workload* w : all_) w->on_event(node, event);
    if (running_) detection_.on_event(sim_, node, event);
  };
  options.after_input = [this](std::size_t node, const Kernel& kernel) {
    for (Workload* w : all_) w->after_input(node, kernel);
    if (running_) flapping_.after_input(node, kernel, sim_.now());
  };
  return options;
}

RunResult ScenarioRun::play() {
  for (Workload* w : all_) w->begin(sim_, scenario_);
  chaos();
  if (!result_.failures.empty()) {
    result_.verdict = Verdict::safety_failure;
  } else {
    heal();
  }
  finish();
  return std::move(result_);
}

void ScenarioRun::check() {
  std::vector<std::string>& failures = result_.failures;
  membership_.check(sim_, failures);
  detection_.check(sim_, failures);
  boundary_.check(sim_, failures);
  crash_downing_.check(sim_, failures);
  forgiven_pause_.check(sim_, failures);
  boot_.check(sim_, failures);
  partition_.check(sim_, failures);
  flapping_.check(failures);
  for (Workload* w : all_) w->check(sim_, failures);
}

void ScenarioRun::run_checked_until(Instant until) {
  while (sim_.now() < until && result_.failures.empty()) {
    sim_.run_for(std::min(kStep, until - sim_.now()));
    check();
  }
}

void ScenarioRun::chaos() {
  for (const Fault& f : scenario_.faults) {
    run_checked_until(start_ + f.at);
    if (!result_.failures.empty()) return;
    apply(f);
  }
  run_checked_until(start_ + scenario_.chaos);
}

void ScenarioRun::apply(const Fault& f) {
  detection_.on_fault(f, sim_.now());
  boundary_.on_fault(f, sim_.now());
  // Invented members are no fault to the timed bounds: joins, downs and
  // heals are judged as if they were not there (W5, vouched_lives.hpp).
  if (f.kind != Fault::Kind::rogue || f.rogue != Fault::Rogue::fake_members) faults_.add(sim_.now());
  switch (f.kind) {
    case Fault::Kind::crash:
    case Fault::Kind::lose: apply_death(f); break;
    case Fault::Kind::leave: (void)sim_.leave(f.nodes[0]); break;
    case Fault::Kind::restart:
      if (!sim_.alive(f.nodes[0])) boot_.on_restart(f.nodes[0], sim_.now());
      sim_.restart(f.nodes[0], f.fresh);
      break;
    case Fault::Kind::pause: apply_pause(f); break;
    case Fault::Kind::cut: sim_.cut(f.nodes[0], f.nodes[1]); break;
    case Fault::Kind::cut_one_way: sim_.cut_one_way(f.nodes[0], f.nodes[1]); break;
    case Fault::Kind::partition:
      partition_.on_partition(sim_, f.nodes);
      sim_.partition(f.nodes);
      break;
    case Fault::Kind::flap: flap(sim_, f.nodes, f.period, sim_.now() + f.length, true); break;
    case Fault::Kind::heal:
      partition_.on_heal(sim_.now());
      sim_.heal();
      break;
    case Fault::Kind::spike: sim_.latency_spike(f.extra, sim_.now() + f.length); break;
    case Fault::Kind::truncate: sim_.damage_stream(f.nodes[0], f.nodes[1], Simulator::Damage::truncate); break;
    case Fault::Kind::corrupt: boundary_.corrupt(sim_, f); break;
    case Fault::Kind::rogue: boundary_.rogue(sim_, f, scenario_.seed, result_.failures); break;
    case Fault::Kind::flood:
    case Fault::Kind::asks: break;  // the traffic workload drives them
  }
  ongoing_.add(f, sim_.now());
}

// A crash or a host loss: the checkers that judge its detection and
// downing learn of the life that dies, then it dies.
void ScenarioRun::apply_death(const Fault& f) {
  const std::size_t node = f.nodes[0];
  boot_.on_crash(node, sim_.now());
  if (const Kernel* k = sim_.kernel(node); k != nullptr && !k->is_shut_down()) {
    detection_.on_crash(node, k->self(), sim_.now());
    if (f.kind == Fault::Kind::crash) crash_downing_.on_crash(node, k->self(), sim_.now());
  }
  if (f.kind == Fault::Kind::crash) {
    sim_.crash(node);
  } else {
    sim_.lose_host(node);
  }
}

void ScenarioRun::apply_pause(const Fault& f) {
  const std::size_t node = f.nodes[0];
  if (const Kernel* k = sim_.kernel(node); k != nullptr && !k->is_shut_down() && !sim_.paused(node)) {
    forgiven_pause_.on_pause(node, k->self(), sim_.now(), f.length);
  }
  sim_.pause(node, f.length);
}

void ScenarioRun::heal() {
  sim_.heal();
  const Fault heal{Fault::Kind::heal, sim_.now() - start_, {}, {}, {}, {}, 0, 0};
  detection_.on_fault(heal, sim_.now());
  faults_.add(sim_.now());
  ongoing_.add(heal, sim_.now());
  const Instant heal_end = sim_.now() + scenario_.heal;
  bool healed = false;
  while (!healed && result_.failures.empty() && sim_.now() < heal_end) {
    healed = sim_.run_until([&] { return one_view(sim_, had_partition_, nullptr); }, std::min(kStep, heal_end - sim_.now()))
                 .has_value();
    check();
  }
  judge_heal(healed, heal_end);
}

void ScenarioRun::judge_heal(bool healed, Instant heal_end) {
  if (!result_.failures.empty()) {
    result_.verdict = Verdict::safety_failure;
  } else if (!healed) {
    std::string why;
    (void)one_view(sim_, had_partition_, &why);
    result_.verdict = Verdict::liveness_failure;
    const std::size_t colon = why.find(": ");
    result_.failures.push_back(cat(why.substr(0, colon), ": no single view ", std::to_string(scenario_.heal.ms()),
                                   " ms after the heal: ", why.substr(colon + 2)));
  } else {
    result_.healed_after = sim_.now() - (heal_end - scenario_.heal);
    count(&result_.judged, Check::m4_one_view);
    if (had_partition_) count(&result_.judged, Check::m5_partition_heal);
    for (Workload* w : all_) w->finish(sim_, result_.failures);
    if (!result_.failures.empty()) result_.verdict = Verdict::safety_failure;
  }
}

void ScenarioRun::finish() {
  for (std::size_t i = 1; i <= sim_.size(); ++i) {
    const Kernel* k = sim_.kernel(i);
    if (k == nullptr) {
      result_.final_views.push_back(cat("n", std::to_string(i), ": crashed"));
      continue;
    }
    for (std::size_t m = 0; m < kMarkCount; ++m) result_.marks[m] += k->counters().marks[m];
    result_.final_views.push_back(view_line(i, *k));
  }
  if (result_.verdict == Verdict::pass) {
    for (Mark mark : scenario_.required_marks) {
      if (result_.marks[static_cast<std::size_t>(mark)] == 0) {
        result_.verdict = Verdict::coverage_failure;
        result_.failures.push_back(cat("required mark ", to_string(mark), " was not hit"));
      }
    }
  }
  for (Workload* w : all_) {
    if (std::string line = w->summary(); !line.empty()) result_.summaries.push_back(std::move(line));
  }
  result_.trace_hash = sim_.trace_hash();
  result_.events = sim_.events_processed();
  result_.simulated = sim_.now() - start_;
  result_.timeline = sim_.timeline();
}

}  // namespace

RunResult run(const Scenario& scenario, const std::function<void(const TraceLine&)>& trace_sink,
              std::span<Workload* const> workloads) {
  ScenarioRun run(scenario, trace_sink, workloads);
  return run.play();
}

}  // namespace weft::sim
