// An application on weft, defined once: the actors every node spawns at
// start, the metrics they keep, and for simulation the defects they can
// have planted and the workloads (traffic and properties) that drive them.
// The same value goes to both hosts:
//
//   weft::sim::main(argc, argv, app)     sim_cli/sim_main.hpp: run, replay,
//                                        sweep, shrink and mutations over it
//   weft::daemon::main(argc, argv, app)  daemon/daemon_main.hpp: a whole
//                                        node on real sockets hosting it
//
// and one source file can build both programs (props/counter/counter_main.cpp
// is built as weft-counter-sim and weft-counterd). The daemon ignores
// `defects` and `workloads`; the simulator spawns `actors` on every node
// life (first boot and each restart) before the workloads' own on_start.
//
// A plain value: nothing registers itself behind the program's back. A
// definition a host cannot run (a kind without a name or a factory, two
// kinds or workloads or defects under one name) is refused at start with the
// culprit named (application_problems), before anything else happens.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/metrics.hpp"
#include "kernel/actors/behavior.hpp"

namespace weft {

namespace sim {
class Workload;  // sim/workload.hpp; only the simulator makes one
}

// What an actor kind's factory is given, each time a node starts.
struct ActorStart {
  // This node's registry: the same name registered again (a restarted
  // node's new actor) is the same metric. Deployed, the daemon exports it on
  // /metrics; simulated, it is recorded per node for the run.
  Metrics& metrics;
  // The defects planted in this run (`--defect NAME`); always empty when
  // deployed.
  std::span<const std::string> planted;
  // This node's configured seeds, as it started (a SIGHUP's new list is
  // not seen): a list every node of a deployment shares, which layers that
  // need one fixed set of members may use (shard/'s majority mode votes
  // with them).
  std::span<const NodeAddress> seeds = {};

  bool planted_defect(std::string_view defect) const;
};

// One actor every node spawns at start, addressable as host:port/name.
struct ActorKind {
  std::string name;
  // A fresh behavior for this node's actor; called once per node start.
  std::function<std::unique_ptr<Behavior>(const ActorStart&)> make;
};

// A defect the application can plant in its own code, to show its
// properties catch it: `mutations` sweeps seeds with it and requires a
// failure line that starts with `property` and holds `branch`.
struct PlantedDefect {
  std::string name;      // --defect NAME
  std::string property;  // e.g. "COUNTER" for failure lines "COUNTER: ..."
  std::string branch;    // words of that failure line
  // A scenario file (tests/sim_scenarios/) that plays what catches it, when
  // generated seeds seldom do: `mutations` lists it and sweeps it only by
  // name, and a CTest runs the file.
  std::string scenario_only = {};
  // A unit test (tests/) that catches it where no simulated run is known
  // to reach what catches it: `mutations` lists it unswept, naming the test.
  std::string unit_test_only = {};
};

// Traffic and properties for simulation (sim/workload.hpp).
struct WorkloadKind {
  std::string name;  // --workload NAME
  std::string description;
  // A fresh workload for one run of `seed`, with these defects planted.
  // Called once per run, in the process that runs it (sweep workers too),
  // so it must not share mutable state between runs.
  std::function<std::unique_ptr<sim::Workload>(std::uint64_t seed, std::span<const std::string> planted)> make;
};

struct Application {
  std::string name;              // the program's name in its help and messages, e.g. "weftd"
  std::string description = {};  // one line for --help
  // Defaulted, so a definition names only what it has (no
  // -Wmissing-field-initializers for the rest).
  std::vector<ActorKind> actors = {};
  std::vector<PlantedDefect> defects = {};
  std::vector<WorkloadKind> workloads = {};
};

// What makes `app` unrunnable, one line each naming the culprit; empty if
// none. Both hosts refuse such an application at start (exit 2).
std::vector<std::string> application_problems(const Application& app);

// `kind`'s behavior for a node starting now, its metrics exported
// (ExportsMetrics) into `start.metrics` under the kind's name. nullptr, with
// `error` naming the kind and why, if the factory made none or a metric
// registration was refused (Metrics throws std::invalid_argument): the
// daemon then refuses to start (exit 2), the simulator fails the run.
std::unique_ptr<Behavior> make_actor(const ActorKind& kind, const ActorStart& start, std::string& error);

}  // namespace weft
