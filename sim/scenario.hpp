// A simulation scenario as plain data: cluster size, network, and a fault
// schedule, with a readable one-line-per-fault text form. generate() draws
// one from a seed alone (swarm testing: each fault kind is on or off, and
// heavy or light, per seed); run() plays it in two phases, as VOPR does:
// chaos (faults active, safety checked throughout) then heal (faults end,
// and liveness is required within the bounds of compute_bounds).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel/time.hpp"
#include "sim/simulator.hpp"

namespace weft::sim {

struct Fault {
  enum class Kind : std::uint8_t { crash, restart, pause, cut, partition, heal };
  Kind kind = Kind::crash;
  Duration at;                     // from the start of the run
  std::vector<std::size_t> nodes;  // crash/restart/pause: one; cut: two; partition: one side
  Duration length;                 // pause only
};

struct Scenario {
  std::uint64_t seed = 1;
  std::size_t nodes = 5;
  Duration chaos = Duration::seconds(30);
  Duration heal = Duration::seconds(40);  // at least T_heal for the cluster size
  NetworkModel network;
  std::vector<Fault> faults;       // sorted by time, all inside the chaos phase

  std::string to_text() const;
};

// A scenario drawn from `seed` alone.
Scenario generate(std::uint64_t seed, std::size_t nodes, Duration chaos);

enum class Verdict : std::uint8_t { pass = 0, safety_failure = 10, liveness_failure = 20 };

struct RunResult {
  Verdict verdict = Verdict::pass;
  std::vector<std::string> failures;  // one line per violated property
  std::uint64_t trace_hash = 0;
  std::uint64_t events = 0;
  std::vector<TraceLine> timeline;
  // Each live node's final view, one line per node (for reading failures).
  std::vector<std::string> final_views;
  // Coverage marks (kernel/events.hpp Mark) summed over the nodes alive at
  // the end (a crashed life's counts go with it).
  std::array<std::uint64_t, kMarkCount> marks{};
};

// Plays the scenario: the faults during chaos with safety checks after every
// event, then heals everything and requires one view within the heal phase.
RunResult run(const Scenario& scenario, const std::function<void(const TraceLine&)>& trace_sink = {});

}  // namespace weft::sim
