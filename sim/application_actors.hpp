// An application's actors (app/application.hpp) in the simulator: a
// workload whose on_start spawns every ActorKind on every node life (first
// boot and each restart), as weft::daemon::main spawns them on a real node.
// weft::sim::main runs it ahead of the application's own workloads, so a
// workload's on_start finds the actors already there
// (Kernel::behavior(name)).
//
// Metrics: one registry per node for the whole run. A restarted node's new
// actors register the same names again and so keep counting in the same
// series (a deployed node's start from zero at each process start, which a
// sum over the run does not show); its gauges are zeroed at each new life,
// since a gauge says how things stand now.
#pragma once

#include <string>
#include <vector>

#include "app/application.hpp"
#include "sim/workload.hpp"

namespace weft::sim {

class ApplicationActors final : public Workload {
 public:
  // `app` must outlive this and have no application_problems.
  ApplicationActors(const Application& app, std::vector<std::string> planted);

  void on_start(std::size_t node, Kernel& kernel, Instant now) override;
  // A factory that made no behavior: a failure naming the kind (the daemon
  // refuses the same at start).
  void check(const Simulator& sim, std::vector<std::string>& failures) override;

  // Node `node`'s registry (1-based, as Simulator numbers nodes); empty for
  // a node that never started.
  const Metrics& metrics(std::size_t node) const;
  std::size_t nodes() const { return metrics_.size(); }

 private:
  const Application& app_;
  std::vector<std::string> planted_;
  // std::vector<Metrics> would move registries (and the series actors hold
  // references to) as it grows.
  std::vector<std::unique_ptr<Metrics>> metrics_;
  std::vector<std::string> problems_;
};

}  // namespace weft::sim
