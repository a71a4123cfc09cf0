// The deterministic simulator: N unmodified kernels in one thread on one
// virtual clock, connected by a modelled network, with faults injected on
// purpose. Every random choice derives from the root seed, events run in
// (time, sequence) order, and every event folds into a rolling trace hash:
// the same seed gives the same hash, on any machine (property D1).
//
// Network model, per connection and direction: TCP-like in-order delivery,
// latency = a floor plus an exponential tail; bytes may be split into random
// chunks so the kernels' incremental frame decoders are exercised. A cut
// direction holds its bytes (as TCP retransmits) until the cut heals.
//
// Faults: crash (the process dies: its connections close at once, redials
// are refused) and restart with a new incarnation; pause (the process
// handles nothing for a while, its connections stay open and silent);
// partitions between groups, or a single broken link.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kernel/kernel.hpp"
#include "kernel/prng.hpp"

namespace weft::sim {

struct NetworkModel {
  Duration latency_floor = Duration::microseconds(200);
  Duration latency_tail_mean = Duration::microseconds(300);
  // Split transmitted bytes into up to this many chunks (1: never split).
  std::uint32_t max_chunks = 4;
  // Per direction: bytes a second onto the wire. A write completes (the
  // kernel's handle_sent) when its last byte is on the wire...
  std::uint64_t bandwidth = 100'000'000;
  // ...and the bytes sent but not yet read by the peer fit this window.
  // A cut path or a paused reader fills it; then writes stall and the
  // sender's kernel queues, within its outbound bounds.
  std::uint64_t window = 4U << 20;

  friend bool operator==(const NetworkModel&, const NetworkModel&) = default;
};

struct SimOptions {
  std::uint64_t seed = 1;
  std::size_t nodes = 5;
  NetworkModel network;
  // Clock drift per node in parts per million (index node - 1; missing: 0),
  // within +-100000: each kernel's `now` runs at (1 + ppm/1e6) of virtual
  // time, so timers and detectors see a fast or slow clock.
  std::vector<std::int32_t> clock_ppm;
  // Applied to every node's config after the simulator's own settings.
  std::function<void(Config&)> tune;
  // Workload hooks. on_start runs when a node's kernel is made (first boot
  // and every restart), before it handles anything: spawn actors here.
  // on_event sees every event a kernel emits, in order.
  std::function<void(std::size_t node, Kernel& kernel, Instant now)> on_start;
  std::function<void(std::size_t node, const Event& event)> on_event;
  // After every input a kernel handled, before its outputs are drained.
  std::function<void(std::size_t node, const Kernel& kernel)> after_input;
  // Keep what tapped_opening() returns (a replaying rogue needs it); off,
  // nothing is kept.
  bool tap_openings = false;
  // Set: incarnations are start times in ms, as weftd's are (kWallEpochMs
  // plus the node's drifted virtual time at each start), every kernel is
  // told that wall time (Config::start_wall_ms), and this is its
  // incarnation_clock_skew. None: lives count from 1, unbounded by a clock.
  std::optional<Duration> wall_clock_skew;
};

// One line of the trace, as the timeline shows it.
struct TraceLine {
  Instant at;
  std::size_t node = 0;  // 1-based; 0 for the simulator itself
  std::string text;
};

class Simulator {
 public:
  // Virtual time when every simulation starts; traces and timelines count
  // from it.
  static constexpr Instant kStart = Instant::from_ns(1'000'000'000);
  // The wall clock in ms at virtual time zero, with wall_clock_skew set
  // (2027-01-01, about weftd's incarnations today).
  static constexpr std::uint64_t kWallEpochMs = 1'798'761'600'000;
  // A node's wall clock in ms now (with wall_clock_skew set): what its
  // start would read.
  std::uint64_t wall_ms(std::size_t node) const;

  explicit Simulator(SimOptions options);
  ~Simulator();

  Instant now() const { return now_; }
  std::size_t size() const { return nodes_.size(); }
  const NodeAddress& address(std::size_t node) const;
  // The node at `address` (1-based); 0 if none.
  std::size_t node_of(const NodeAddress& address) const;
  // The node's kernel, or nullptr while it is crashed.
  Kernel* kernel(std::size_t node);
  const Kernel* kernel(std::size_t node) const;
  bool alive(std::size_t node) const;
  // How many times a process ended (crash, host lost, exit after a leave):
  // a reader of alive() over every node need look again only when it moves.
  std::uint64_t stops() const { return stops_; }
  // The node's own clock now (virtual time, drifted by its clock_ppm).
  Instant local_now(std::size_t node) const;
  bool paused(std::size_t node) const;

  // Runs events until `duration` of virtual time has passed.
  void run_for(Duration duration);
  // Runs until `done()` holds (checked after each event) or `limit` passes;
  // the time it took, if it held.
  std::optional<Duration> run_until(const std::function<bool()>& done, Duration limit);

  // Runs `action` at virtual time `at` (not before now), in (time,
  // sequence) order with every other event.
  void call_at(Instant at, std::function<void()> action);
  // Runs a user command on a node's kernel now and drains what it produced.
  // False (and not run) while the node is crashed, shut down or paused: a
  // paused process runs no user code either.
  bool command(std::size_t node, const std::function<void(Kernel&, Instant)>& command);

  // Faults, effective at the current virtual time.
  void crash(std::size_t node);
  // The host is lost (power, kernel panic, cable): the process is gone like
  // a crash, but no FIN or RST is sent. Its connections go silent (peers'
  // writes stall once the window fills) and dials to it get no answer.
  // A restart reboots it: its old connections are then reset.
  void lose_host(std::size_t node);
  // The node leaves gracefully (Kernel::leave) and its process exits once
  // its kernel reports the ShutdownEvent: its connections then close as in
  // a crash, and restart() may start it again. False, and nothing asked, if
  // the node is crashed, shut down or paused.
  bool leave(std::size_t node);
  // A crashed (or lost) node starts again, in a life above every one it
  // reached; `fresh`, above only the lives earlier starts drew, as a
  // process whose incarnation is its start time (below a life it took to
  // refute a claim).
  void restart(std::size_t node, bool fresh = false);
  void pause(std::size_t node, Duration for_how_long);
  void cut(std::size_t a, std::size_t b);      // both directions
  void cut_one_way(std::size_t from, std::size_t to);
  void partition(const std::vector<std::size_t>& side);  // cut side from the rest
  void heal();                                  // restore every cut
  // Adds `extra` to the latency of every frame sent until `until`.
  void latency_spike(Duration extra, Instant until);
  // The next write `from` makes on the link it dialed to `to` is damaged.
  // truncate: only its first two bytes arrive, then the connection is reset
  // (both ends see it close; the reader holds half a frame). corrupt: its
  // first frame header claims 0xffffffff bytes (the reader must close that
  // link with a wire error). The reader's closes of a corrupted link are
  // reported by damaged_link_closes().
  enum class Damage : std::uint8_t { truncate, corrupt };
  void damage_stream(std::size_t from, std::size_t to, Damage damage);
  std::uint64_t damaged_link_closes(std::size_t node, CloseReason reason) const;
  // A corrupted stream `node` has read from and still holds open.
  bool corrupted_unclosed(std::size_t node) const;
  // Open connections the node dialed or accepted (for cost reports).
  std::size_t open_connections(std::size_t node) const;

  // A peer that is no node dials `node` and sends `bytes`, handled now. If
  // `answer` is given and the link is still open, it is called with what the
  // node wrote back, and the bytes it returns are sent too, at the same
  // instant (a handshake: the node's hello, then the rogue's proof). Returns
  // the closes the node made meanwhile: of the rogue's link, and of any other.
  struct RogueOutcome {
    bool handled = false;  // false when the node is crashed or paused
    std::vector<CloseReason> rogue_link_closed;
    std::vector<CloseReason> other_links_closed;
    std::vector<std::uint8_t> written;  // what the node wrote on the rogue's link
  };
  using RogueAnswer = std::function<std::vector<std::uint8_t>(std::span<const std::uint8_t> written)>;
  RogueOutcome rogue(std::size_t node, std::span<const std::uint8_t> bytes, const RogueAnswer& answer = {});
  // A tap on the wire: the first two frames (headers and all) that `dialer`
  // sent on the last connection it dialed to `acceptor` -- its hello and, on
  // an authenticated link, its proof -- or none yet (or SimOptions::
  // tap_openings off). A replaying rogue plays them back. At most
  // kTappedBytes are held per connection until then.
  const std::vector<std::uint8_t>* tapped_opening(std::size_t dialer, std::size_t acceptor) const;
  static constexpr std::size_t kTappedBytes = 64 * 1024;

  std::uint64_t trace_hash() const { return trace_hash_; }
  std::uint64_t events_processed() const { return events_processed_; }
  // Events scheduled and not yet run (some may be stale and will be dropped).
  std::size_t events_pending() const { return queue_.size(); }
  const std::vector<TraceLine>& timeline() const { return timeline_; }
  // Called for every trace line as it happens (for --trace FILE).
  void on_trace(std::function<void(const TraceLine&)> sink) { sink_ = std::move(sink); }

 private:
  struct Node;
  struct Connection;
  // One thing due to happen at a virtual instant, held by value in a binary
  // heap ordered by (at, seq). Named apart from weft::Event, the kernel's
  // outputs (which drain() hands to SimOptions::on_event): an occurrence is
  // the simulator's own agenda, never seen outside this class.
  struct Occurrence {
    enum class Kind : std::uint8_t { tick, deliver, sent, connect_result, peer_closed, call };
    Instant at;
    std::uint64_t seq = 0;
    std::uint64_t connection = 0;  // call: the slot in calls_
    std::uint64_t life = 0;
    std::uint32_t node = 0;
    Kind kind = Kind::tick;
    bool to_acceptor = false;
  };
  // The heap's comparator: true when `a` runs after `b`.
  struct Later {
    bool operator()(const Occurrence& a, const Occurrence& b) const {
      if (a.at != b.at) return a.at > b.at;
      return a.seq > b.seq;
    }
  };

  void schedule(Occurrence occurrence);
  // Pops the next occurrence, runs it and forgets finished connections.
  void step();
  // One handler per kind; process() dispatches.
  void process(const Occurrence& occurrence);
  void on_tick(const Occurrence& tick);
  void on_connect_result(const Occurrence& result);
  void on_deliver(const Occurrence& delivery);
  void on_sent(const Occurrence& sent);
  void on_call(const Occurrence& call);
  void on_peer_closed(const Occurrence& closed);
  // After every kernel input: the kernel's outputs, then its next tick.
  void drain(std::size_t node);
  void dial(std::size_t node, const ConnectCommand& connect);
  void close_link(std::size_t node, const CloseCommand& close);
  void trace_kernel_event(std::size_t node, const Event& event);
  void schedule_tick(std::size_t node);
  void transmit(std::uint64_t id, Connection& connection, bool from_dialer,
                std::span<const std::uint8_t> bytes);
  void tap_opening(Connection& connection, std::span<const std::uint8_t> bytes);
  void close_connection(std::uint64_t id, Connection& connection, std::size_t closer);
  void reset_connection(std::uint64_t id);
  void close_connections_of(std::size_t node);
  void stop(std::size_t node, const char* what);  // crash() and lose_host(): the process ends
  Connection* find_connection(std::uint64_t id);
  std::uint64_t connection_of(std::size_t node, LinkId link) const;
  void set_connection_of(std::size_t node, LinkId link, std::uint64_t id);
  bool blocked(std::size_t from, std::size_t to) const;
  void reap();
  Duration latency();
  void trace(std::size_t node, std::string text, bool show);
  Config node_config(std::size_t node, Incarnation incarnation) const;

  SimOptions options_;
  Prng network_prng_;
  Instant now_ = kStart;
  std::uint64_t stops_ = 0;
  std::uint64_t next_seq_ = 0;
  std::vector<Occurrence> queue_;  // a heap under Later: the next occurrence at front()
  std::vector<std::function<void()>> calls_;  // actions of pending call occurrences
  std::vector<std::uint64_t> free_calls_;     // reusable slots in calls_
  std::vector<std::unique_ptr<Node>> nodes_;
  std::map<NodeAddress, std::size_t> node_by_address_;
  // Indexed by connection id; null once the connection is finished and reaped.
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<std::uint64_t> finished_;  // closed and told: erased by reap()
  std::set<std::pair<std::size_t, std::size_t>> cuts_;  // directed (from, to)
  Duration spike_;
  Instant spike_until_;
  std::map<std::pair<std::size_t, std::size_t>, Damage> damage_;  // pending, by (dialer, acceptor)
  std::map<std::pair<std::size_t, CloseReason>, std::uint64_t> damaged_closes_;
  std::map<std::pair<std::size_t, std::size_t>, std::vector<std::uint8_t>> openings_;  // by (dialer, acceptor)
  // While rogue() runs: the node and the link the rogue dialed, and what
  // the node closed.
  std::optional<std::pair<std::size_t, LinkId>> rogue_link_;
  RogueOutcome rogue_outcome_;
  std::uint64_t trace_hash_ = 0;
  std::uint64_t events_processed_ = 0;
  std::vector<TraceLine> timeline_;
  std::function<void(const TraceLine&)> sink_;
};

}  // namespace weft::sim
