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
//   S2  every ask the driver made completes exactly once, and a reply
//       answers that ask (the echo returns the ask's unique body); a
//       completion more than 200 ms after the ask's timeout is late, and an
//       ask still open 1.2 s after it has never completed
//   S3  an open ask whose target the asker's view holds down or removed
//       completes (target_down) within 300 ms: nothing waits for a member
//       that is gone
//   S4  no mailbox grows past its capacity (its size read after every input
//       the kernel handles); and per (sender life, receiver) stream, the
//       flood messages the sender's kernel accepted but the receiver has not
//       handled fit what the bounds allow in between: twice (one lost link's
//       worth, then the next) the sender's outbound bound, one write and the
//       network window, plus a full mailbox. Counted by the workload from
//       what the actors sent and received, not from the kernel's queues.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sim/checkers.hpp"
#include "sim/scenario.hpp"

namespace weft::sim {

class TrafficWorkload final : public Workload {
 public:
  void begin(Simulator& sim, const Scenario& scenario) override;
  void on_start(std::size_t node, Kernel& kernel, Instant now) override;
  void on_event(std::size_t node, const Event& event) override;
  void after_input(std::size_t node, const Kernel& kernel) override;
  void check(const Simulator& sim, std::vector<std::string>& failures) override;
  void finish(const Simulator& sim, std::vector<std::string>& failures) override;
  std::string summary() const override;

  // Counts what the checks judged (optional).
  void set_judged(Judged* judged) { judged_ = judged; }

  // Reported by the actors.
  void violation(std::string line) { violations_.push_back(std::move(line)); }
  void accepted(std::size_t from, std::uint64_t life, std::size_t to, std::uint64_t seq, std::size_t bytes);
  void delivered(const NodeAddress& from, std::uint64_t life, std::size_t to, std::uint64_t seq);
  const NodeAddress& address(std::size_t node) const { return addresses_.at(node - 1); }

 private:
  struct PendingAsk {
    Instant deadline;
    std::size_t target = 0;
    Instant target_down_seen;  // when the asker's view first held the target down (S3)
    std::uint32_t completions = 0;
    std::uint64_t token = 0;  // the ask's body; the echo's reply must carry it back
  };
  void flood_tick(const Fault& flood, Instant end, std::uint64_t carry_millis);
  void ask_tick(const Fault& asks, Instant end);

  // One flood stream: a sender's life to a receiving node.
  struct Stream {
    std::uint64_t accepted_bytes = 0;   // body bytes of every message the sender's kernel took
    std::uint64_t delivered_bytes = 0;  // of those, up to the highest the receiver's flood-sink handled
    std::size_t largest = 0;            // the largest body
    // (sequence number, accepted_bytes once it was taken) of each message
    // taken and not yet handled, nor passed by a later one.
    std::deque<std::pair<std::uint64_t, std::uint64_t>> open;
  };
  using StreamKey = std::tuple<std::size_t, std::uint64_t, std::size_t>;  // (from, life, to)
  void check_streams(const Simulator& sim);

  Simulator* sim_ = nullptr;
  Judged* judged_ = nullptr;
  std::uint64_t network_window_ = 0;
  std::map<StreamKey, Stream> streams_;
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
