// weft-sim's whole command line for a program of one's own. A user registers
// workloads (their actors, the traffic that drives them and the properties
// they must keep: sim/workload.hpp) and the defects they can plant in them;
// their binary then has run, replay, sweep (--jobs, --shard), mutations,
// --html, --json, and on every failure the one command that replays it,
// under its own name. weft-sim is this with no workload registered;
// props/counter/counter_sim.cpp is the example a user copies
// (docs/own-actors.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/workload.hpp"

namespace weft::sim {

// A defect a workload can plant in its own actors, to show its properties
// catch it: `mutations` sweeps seeds with it and requires a failure line that
// starts with `property` and holds `branch`.
struct PlantedDefect {
  std::string name;      // --defect NAME
  std::string property;  // e.g. "COUNTER" for failure lines "COUNTER: ..."
  std::string branch;    // words of that failure line
};

struct UserWorkload {
  std::string name;  // --workload NAME
  std::string description;
  std::vector<PlantedDefect> defects;
  // A fresh workload for one run of `seed`, with these of its defects
  // planted (names from `defects`). Called once per run, in the process that
  // runs it (sweep workers included), so it must not share mutable state
  // between runs.
  std::function<std::unique_ptr<Workload>(std::uint64_t seed, const std::vector<std::string>& planted)> make;
};

// Parses argv as weft-sim does and runs the command with every registered
// workload (or those --workload names) beside the simulator's own traffic.
// Returns the process exit code (docs/simulation.md).
int main(int argc, char** argv, std::span<const UserWorkload> workloads = {});

}  // namespace weft::sim
