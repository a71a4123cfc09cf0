// A workload: user actors and the traffic that drives them during a run,
// plus the properties they must keep. Behaviours are ordinary actor code
// (kernel/actors/behavior.hpp), the same code weftd hosts; the workload
// spawns them on every node life and drives them with commands on the
// virtual clock. sim::run() calls the hooks; a workload never reads a clock
// or draws unseeded randomness (derive a Prng from the scenario's seed).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "kernel/kernel.hpp"

namespace weft::sim {

class Simulator;
struct Scenario;

class Workload {
 public:
  virtual ~Workload() = default;

  // Once, before the first event: schedule traffic with sim.call_at().
  virtual void begin(Simulator& sim, const Scenario& scenario) { (void)sim, (void)scenario; }
  // A node's kernel was made (first boot or restart): spawn actors.
  virtual void on_start(std::size_t node, Kernel& kernel, Instant now) { (void)node, (void)kernel, (void)now; }
  // Every event a kernel emits (ask completions, dead letters, ...).
  virtual void on_event(std::size_t node, const Event& event) { (void)node, (void)event; }
  // After every input a node's kernel handled (bytes, tick, link change,
  // command), before what it produced is drained: for invariants that must
  // hold at every step, not only every 100 ms (a mailbox's size).
  virtual void after_input(std::size_t node, const Kernel& kernel) { (void)node, (void)kernel; }
  // Safety, after every step of both phases: append one line per violation,
  // each starting with the property's name ("S1: ...").
  virtual void check(const Simulator& sim, std::vector<std::string>& failures) { (void)sim, (void)failures; }
  // Once, after the heal phase succeeded: what must hold at the end.
  virtual void finish(const Simulator& sim, std::vector<std::string>& failures) { (void)sim, (void)failures; }
  // One line for the run's summary (what was sent, delivered, lost, ...).
  virtual std::string summary() const { return {}; }
};

}  // namespace weft::sim
