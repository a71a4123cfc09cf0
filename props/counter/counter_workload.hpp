// The counter as a simulator workload: the clients of CounterShard
// (counter_actor.hpp), which the counter application (counter_app.hpp)
// spawns on every node of a simulated cluster as on a deployed one, driven
// on the virtual clock, with its own property checked during and after the
// run.
//
// Lifecycle (the sim::Workload hooks):
//   on_start  every node life (first boot and each restart) finds the fresh
//             shard the application's actors spawned just before; a second
//             on_start for a node is a restart, and its counts start again
//             from zero;
//   begin     schedules the clients: a chain of Simulator::call_at events
//             whose gaps, nodes, keys and operations come from a Prng derived
//             from the scenario's seed, so a seed replays the same traffic;
//             each operation is Simulator::command + Kernel::ask, from a
//             random node to the key's owner, with a timeout;
//   on_event  reads the AskCompleted events of those asks;
//   check     the property, after every step; finish: once more at the end.
//
// The property, COUNTER. For every key k, with owner o = owner(k, n):
//   (a) no acknowledged increment is lost while its owner stays up: if o has
//       had exactly one life so far (never crashed, never restarted) and is
//       alive, its shard's count of k is at least the number of increments
//       of k acknowledged so far (asks that completed with outcome reply);
//   (b) no increment is applied twice: the count of k on o's current life,
//       and any value a read or an ack of k reports, is at most the number
//       of increments of k attempted so far (asks issued);
//   (c) reads see acknowledged increments: a read of k answered by a
//       one-life owner reports at least the number of increments of k that
//       were acknowledged before the read was issued.
// Every answer must also decode as a Value for the key asked about: a
// malformed answer, or one about another key, is a COUNTER failure too.
// An owner that crashed (and maybe restarted) lost its counts by design, so
// (a) and (c) exempt it; (b) holds for every life. Rejoining after being
// downed is not a restart: the process and its shard live on.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernel/prng.hpp"
#include "props/counter/counter_actor.hpp"
#include "sim/workload.hpp"

namespace weft::counter {

struct CounterWorkloadOptions {
  std::uint64_t keys = 20;                      // keys 0..keys-1
  std::uint32_t operations_per_second = 50;     // over the whole cluster
  std::uint32_t read_percent = 10;              // the rest are increments
  Duration ask_timeout = Duration::seconds(3);
};

class CounterWorkload final : public sim::Workload {
 public:
  explicit CounterWorkload(CounterWorkloadOptions options = {}) : options_(options) {}

  void begin(sim::Simulator& sim, const sim::Scenario& scenario) override;
  void on_start(std::size_t node, Kernel& kernel, Instant now) override;
  void on_event(std::size_t node, const Event& event) override;
  void check(const sim::Simulator& sim, std::vector<std::string>& failures) override;
  void finish(const sim::Simulator& sim, std::vector<std::string>& failures) override;
  std::string summary() const override;

  std::uint64_t increments_acknowledged() const { return acked_total_; }

 private:
  enum class Op : std::uint8_t { increment, read };
  struct Pending {
    Op op = Op::increment;
    std::uint64_t key = 0;
    std::uint64_t acked_before = 0;  // reads: acks of the key when issued
  };
  struct Node {
    std::uint64_t lives = 0;
    CounterShard* shard = nullptr;  // owned by the node's kernel; valid while it is alive
  };

  void client_step();
  void schedule_next();
  void check_reported(std::uint64_t key, std::size_t from, const char* what, std::uint64_t value,
                      std::uint64_t acked_before);
  std::size_t owner_of(std::uint64_t key) const { return owner(key, nodes_.size()); }
  bool stayed_up(std::size_t node) const { return nodes_.at(node - 1).lives == 1; }

  CounterWorkloadOptions options_;
  sim::Simulator* sim_ = nullptr;
  Prng prng_{0};
  std::vector<Node> nodes_;  // index node - 1
  std::map<std::pair<std::size_t, AskId>, Pending> pending_;  // (client node, ask id)
  std::vector<std::uint64_t> attempted_;  // per key: increments asked
  std::vector<std::uint64_t> acked_;      // per key: increments acknowledged
  std::vector<std::string> reported_;     // violations seen in on_event, for check()
  std::uint64_t acked_total_ = 0;
  std::uint64_t attempted_total_ = 0;
  std::uint64_t reads_ = 0;
  std::uint64_t reads_answered_ = 0;
  std::uint64_t not_run_ = 0;  // the client's node was crashed, paused or shut down
  std::map<AskOutcome, std::uint64_t> failed_;  // increments and reads that got no reply
  std::string survivors_;  // set by finish(): the summary may outlive the simulator
};

}  // namespace weft::counter
