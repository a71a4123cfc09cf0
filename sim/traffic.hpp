// The standard traffic workload: the floods and asks of a scenario, driven
// through ordinary actors, with the messaging properties they must keep.
//
// On every node life it spawns
//   flood-src   tells flood-sink actors on other nodes, when told to (a tick
//               from the driver every 10 ms carries how many)
//   flood-sink  receives and checks each (sender, life) stream
//   echo        replies to every ask with the ask's body
// Checks:
//   S1  per (sender actor life, receiver actor life): strictly increasing
//       sequence numbers (FIFO, no duplicates; gaps are allowed: a closed
//       link or a full mailbox loses messages, counted), and no message
//       meant for another node
//   S2  every ask the driver made completes exactly once, no later than its
//       timeout plus 200 ms (S3: a down target fails fast), and a reply
//       answers that ask (the echo returns the ask's unique body)
//   S4  no mailbox grows past its capacity; no link queues past its bounds
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sim/scenario.hpp"

namespace weft::sim {

class TrafficWorkload final : public Workload {
 public:
  void begin(Simulator& sim, const Scenario& scenario) override;
  void on_start(std::size_t node, Kernel& kernel, Instant now) override;
  void on_event(std::size_t node, const Event& event) override;
  void check(const Simulator& sim, std::vector<std::string>& failures) override;
  void finish(const Simulator& sim, std::vector<std::string>& failures) override;
  std::string summary() const override;

  // Reported by the actors.
  void violation(std::string line) { violations_.push_back(std::move(line)); }
  void sent_one() { ++sent_; }
  void delivered_one() { ++delivered_; }
  const NodeAddress& address(std::size_t node) const { return addresses_.at(node - 1); }

 private:
  struct PendingAsk {
    Instant deadline;
    std::uint32_t completions = 0;
    std::uint64_t token = 0;  // the ask's body; the echo's reply must carry it back
  };
  void flood_tick(const Fault& flood, Instant end, std::uint64_t carry_millis);
  void ask_tick(const Fault& asks, Instant end);

  Simulator* sim_ = nullptr;
  std::vector<NodeAddress> addresses_;
  std::vector<std::string> violations_;
  // (node, life, ask id) -> pending ask; erased when its life ends. A life
  // is one kernel (a rejoin keeps it, with its asks; a restart does not).
  std::vector<std::uint64_t> lives_;
  using AskKey = std::tuple<std::size_t, std::uint64_t, AskId>;
  std::map<AskKey, PendingAsk> asks_;
  // The keys of asks_ not yet completed: all that check() must look at
  // (asks_ keeps completed asks, to catch a second completion).
  std::set<AskKey> open_;
  std::uint64_t sent_ = 0;
  std::uint64_t delivered_ = 0;
  std::uint64_t asks_made_ = 0;
  std::uint64_t asks_completed_ = 0;
  std::uint64_t high_water_ = 0;
};

}  // namespace weft::sim
