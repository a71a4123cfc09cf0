// weft-sim's whole command line for an application of one's own
// (app/application.hpp): its actors spawned on every simulated node life,
// its workloads driving them and checking their properties, its defects
// plantable. The program gets run, replay, sweep (--jobs, --shard), shrink,
// mutations, --html, --json (with the application's metrics per node), and
// on every failure the one command that replays it, under its own name.
// weft-sim is this with no application; props/counter/counter_main.cpp is
// the example a user copies (docs/own-actors.md), built both as this and as
// weft::daemon::main from one source.
#pragma once

#include "app/application.hpp"
#include "sim/workload.hpp"

namespace weft::sim {

// Parses argv as weft-sim does and runs the command with the application's
// actors and workloads (or those --workload names) beside the simulator's
// own traffic. An application with application_problems is refused first
// (exit 2, each named). Returns the process exit code (docs/simulation.md).
int main(int argc, char** argv, const Application& app = {});

}  // namespace weft::sim
