#include "sim/simulator.hpp"

#include <algorithm>
#include <variant>

#include "kernel/drain.hpp"
#include "kernel/membership/member_table.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/msgpack.hpp"

namespace weft::sim {

struct Simulator::Node {
  NodeAddress address;
  Incarnation incarnation{1};
  Incarnation started{1};  // the incarnation the last start drew (not one a kernel took since)
  std::unique_ptr<Kernel> kernel;
  std::uint64_t life = 0;             // bumped on crash and restart: stale events see it
  Instant paused_until;
  bool host_lost = false;             // lose_host(): silent until restarted
  bool exits_on_shutdown = false;     // leave(): the process ends with its kernel
  std::int64_t clock_ppm = 0;         // drift of this node's clock
  bool tick_pending = false;
  Instant tick_at;
  // The kernel's link id -> connection id (0: none). Link ids are small
  // sequential integers per kernel, so a vector indexed by them.
  std::vector<std::uint64_t> connection_of_link;
};

namespace {

// One direction of a connection: the bytes in flight, in order, as chunks
// with their arrival times. One buffer per direction, consumed from the
// front, so a chunk costs no allocation of its own.
class Flight {
 public:
  bool empty() const { return chunk_head_ == chunks_.size(); }
  Instant front_arrival() const { return chunks_[chunk_head_].arrival; }
  // Makes room for a write of `size` bytes, pushed next in pieces.
  void prepare(std::size_t size) {
    if (empty()) {
      clear();  // reuse the buffers from the start
    } else {
      compact();
    }
    // One allocation for the write, not one per piece; geometric, so a
    // direction that is never empty still grows in amortised O(1).
    if (const std::size_t need = bytes_.size() + size; need > bytes_.capacity()) {
      bytes_.reserve(std::max(need, 2 * bytes_.capacity()));
    }
  }
  void push(Instant arrival, std::span<const std::uint8_t> bytes) {
    chunks_.push_back(ChunkMark{arrival, bytes.size()});
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  }
  // The front chunk's bytes; valid until the next push() or clear().
  std::span<const std::uint8_t> front() const {
    return {bytes_.data() + byte_head_, chunks_[chunk_head_].size};
  }
  void pop() {
    byte_head_ += chunks_[chunk_head_].size;
    ++chunk_head_;
  }
  // Drops what was consumed once it is most of the buffer, so a direction
  // that is never empty (a flood behind a cut) does not grow forever.
  void compact() {
    if (byte_head_ < 4096 || byte_head_ * 2 < bytes_.size()) return;
    bytes_.erase(bytes_.begin(), bytes_.begin() + static_cast<std::ptrdiff_t>(byte_head_));
    chunks_.erase(chunks_.begin(), chunks_.begin() + static_cast<std::ptrdiff_t>(chunk_head_));
    byte_head_ = 0;
    chunk_head_ = 0;
  }
  void clear() {
    chunks_.clear();
    wire::drain_buffer(bytes_);
    chunk_head_ = 0;
    byte_head_ = 0;
  }

 private:
  struct ChunkMark {
    Instant arrival;
    std::size_t size = 0;
  };
  std::vector<ChunkMark> chunks_;
  std::size_t chunk_head_ = 0;
  std::vector<std::uint8_t> bytes_;
  std::size_t byte_head_ = 0;
};

}  // namespace

// One TCP connection: the dialer's link and, once the acceptor has read from
// it, the acceptor's. Each direction is a FIFO of chunks in flight.
struct Simulator::Connection {
  std::size_t dialer = 0;
  std::size_t acceptor = 0;
  std::uint64_t dialer_life = 0;
  std::uint64_t acceptor_life = 0;
  LinkId dialer_link;
  std::optional<LinkId> acceptor_link;
  bool open = true;
  bool established = false;
  Flight to_acceptor;
  Flight to_dialer;
  // Per direction, [0] to the acceptor and [1] to the dialer:
  Instant last_arrival[2];
  Instant wire_free[2];       // when the sender's last write is all on the wire
  std::uint64_t unread[2] = {0, 0};  // sent, not yet read by the peer
  bool corrupted = false;     // damage_stream(corrupt) hit what the dialer sent
  Instant corrupt_arrival;    // ...in the chunk arriving then
  bool corrupt_read = false;  // ...and the acceptor has read that chunk
  std::vector<std::uint8_t> opening;  // what the dialer sent, until tap_opening() holds two frames
  bool opening_tapped = false;
};

namespace {

// One allocation a line: a thousand nodes trace a million of these.
std::string member_line(const MemberEvent& e) {
  std::string text;
  text.reserve(64);
  e.member.id.append_to(text);
  text += ' ';
  text += to_string(e.member.status);
  if (e.from_known) {
    text += " (was ";
    text += to_string(e.from);
    text += ')';
  }
  return text;
}

}  // namespace

Simulator::Simulator(SimOptions options)
    : options_(std::move(options)), network_prng_(Prng::derive(options_.seed, 1)) {
  WEFT_ASSERT(options_.nodes >= 1);
  WEFT_ASSERT(options_.network.max_chunks >= 1);
  trace_hash_ = fingerprint_u64(0, options_.seed);
  connections_.emplace_back();  // id 0 is never used
  for (std::size_t i = 1; i <= options_.nodes; ++i) {
    auto node = std::make_unique<Node>();
    node->address = NodeAddress{"10.0.0." + std::to_string(i), 7000};
    if (i <= options_.clock_ppm.size()) {
      node->clock_ppm = options_.clock_ppm[i - 1];
      WEFT_ASSERT(node->clock_ppm > -100'000 && node->clock_ppm < 100'000);
    }
    node_by_address_.emplace(node->address, i);
    nodes_.push_back(std::move(node));
  }
  for (std::size_t i = 1; i <= options_.nodes; ++i) restart(i);
}

Simulator::~Simulator() = default;

namespace {

const Instant kOrigin = Simulator::kStart;

// A drifting clock: elapsed virtual time scaled by (1 + ppm/1e6). It never
// runs backwards (|ppm| < 1e6), as a kernel's `now` must not.
Instant drifted(Instant at, std::int64_t ppm) {
  if (ppm == 0) return at;
  const std::int64_t elapsed = (at - kOrigin).ns();
  return at + Duration::nanoseconds(elapsed / 1'000'000 * ppm + elapsed % 1'000'000 * ppm / 1'000'000);
}

// The first virtual instant at which a clock with this drift reads `local`.
Instant undrifted(Instant local, std::int64_t ppm) {
  if (ppm == 0 || local <= kOrigin) return local;
  const std::int64_t elapsed = (local - kOrigin).ns();
  Instant at = kOrigin + Duration::nanoseconds(elapsed / (1'000'000 + ppm) * 1'000'000 +
                                                elapsed % (1'000'000 + ppm) * 1'000'000 / (1'000'000 + ppm));
  while (drifted(at, ppm) < local) at += Duration::nanoseconds(1);
  return at;
}

}  // namespace

Instant Simulator::local_now(std::size_t node) const { return drifted(now_, nodes_.at(node - 1)->clock_ppm); }

const NodeAddress& Simulator::address(std::size_t node) const { return nodes_.at(node - 1)->address; }
std::size_t Simulator::node_of(const NodeAddress& address) const {
  const auto it = node_by_address_.find(address);
  return it == node_by_address_.end() ? 0 : it->second;
}
Kernel* Simulator::kernel(std::size_t node) { return nodes_.at(node - 1)->kernel.get(); }
const Kernel* Simulator::kernel(std::size_t node) const { return nodes_.at(node - 1)->kernel.get(); }
bool Simulator::alive(std::size_t node) const { return nodes_.at(node - 1)->kernel != nullptr; }
bool Simulator::paused(std::size_t node) const { return nodes_.at(node - 1)->paused_until > now_; }

std::uint64_t Simulator::wall_ms(std::size_t node) const {
  const Node& n = *nodes_.at(node - 1);
  return kWallEpochMs + static_cast<std::uint64_t>((drifted(now_, n.clock_ppm) - Instant::epoch()).ms());
}

Config Simulator::node_config(std::size_t node, Incarnation incarnation) const {
  Config config;
  config.cluster_name = "sim";
  config.self = address(node);
  config.incarnation = incarnation;
  // Every node is a seed, as a deployment would list several: a restarted
  // node can join through whoever is up.
  for (std::size_t i = 1; i <= nodes_.size(); ++i) config.seeds.push_back(address(i));
  if (options_.tune) options_.tune(config);
  return config;
}

void Simulator::trace(std::size_t node, std::string text, bool show) {
  trace_hash_ = fingerprint_u64(trace_hash_, static_cast<std::uint64_t>(now_.ns_since_epoch()));
  trace_hash_ = fingerprint_u64(trace_hash_, node);
  trace_hash_ = fingerprint_bytes(trace_hash_, text.data(), text.size());
  if (!show && !sink_) return;
  TraceLine line{now_, node, std::move(text)};
  if (sink_) sink_(line);
  if (show) timeline_.push_back(std::move(line));
}

Duration Simulator::latency() {
  const Duration base = options_.network.latency_floor + network_prng_.exponential(options_.network.latency_tail_mean);
  return now_ < spike_until_ ? base + spike_ : base;
}

void Simulator::schedule(Occurrence occurrence) {
  occurrence.seq = next_seq_++;
  queue_.push_back(occurrence);
  std::push_heap(queue_.begin(), queue_.end(), Later{});
}

Simulator::Connection* Simulator::find_connection(std::uint64_t id) {
  return id < connections_.size() ? connections_[id].get() : nullptr;
}

std::uint64_t Simulator::connection_of(std::size_t node, LinkId link) const {
  const std::vector<std::uint64_t>& table = nodes_[node - 1]->connection_of_link;
  return link.value < table.size() ? table[link.value] : 0;
}

void Simulator::set_connection_of(std::size_t node, LinkId link, std::uint64_t id) {
  std::vector<std::uint64_t>& table = nodes_[node - 1]->connection_of_link;
  if (link.value >= table.size()) {
    if (id == 0) return;
    table.resize(static_cast<std::size_t>(link.value) + 1, 0);
  }
  table[link.value] = id;
}

void Simulator::schedule_tick(std::size_t node) {
  Node& n = *nodes_[node - 1];
  if (!n.kernel) return;
  const Instant at = std::max(std::max(undrifted(n.kernel->next_deadline(), n.clock_ppm), now_), n.paused_until);
  if (n.tick_pending && n.tick_at <= at) return;
  n.tick_pending = true;
  n.tick_at = at;
  Occurrence tick;
  tick.at = at;
  tick.kind = Occurrence::Kind::tick;
  tick.node = static_cast<std::uint32_t>(node);
  tick.life = n.life;
  schedule(tick);
}

bool Simulator::blocked(std::size_t from, std::size_t to) const {
  return !cuts_.empty() && cuts_.count({from, to}) != 0;
}

void Simulator::reap() {
  // A connection is forgotten once closed and its other side told, so a
  // long run with many redials keeps only live connections. Occurrences still
  // naming it find nothing and are dropped.
  for (const std::uint64_t id : finished_) connections_[id].reset();
  finished_.clear();
}

void Simulator::transmit(std::uint64_t id, Connection& c, bool from_dialer,
                         std::span<const std::uint8_t> bytes) {
  const std::size_t slot = from_dialer ? 0 : 1;
  if (options_.tap_openings && from_dialer && !c.opening_tapped) tap_opening(c, bytes);
  std::vector<std::uint8_t> damaged;
  bool reset_after = false;
  if (const auto d = damage_.find({c.dialer, c.acceptor}); from_dialer && d != damage_.end() && bytes.size() > 4) {
    damaged.assign(bytes.begin(), bytes.end());
    if (d->second == Damage::corrupt) {
      std::fill_n(damaged.begin(), wire::kFrameHeaderBytes, std::uint8_t{0xff});
      c.corrupted = true;
      trace(c.dialer, "stream to n" + std::to_string(c.acceptor) + " corrupted", true);
    } else {
      damaged.resize(2);  // inside the first frame's header: always mid-frame
      reset_after = true;
      trace(c.dialer, "stream to n" + std::to_string(c.acceptor) + " truncated mid-frame and reset", true);
    }
    bytes = damaged;
    damage_.erase(d);
  }
  Flight& flight = from_dialer ? c.to_acceptor : c.to_dialer;
  // The write goes onto the wire behind the previous one at the link's
  // bandwidth; its bytes arrive one latency after they are all on it.
  const std::uint64_t wire_ns = bytes.size() * 1'000'000'000ULL / options_.network.bandwidth;
  c.wire_free[slot] = std::max(now_, c.wire_free[slot]) + Duration::nanoseconds(static_cast<std::int64_t>(wire_ns));
  c.unread[slot] += bytes.size();
  // Split into up to max_chunks pieces, in order, each arriving no earlier
  // than the one before (TCP delivers in order).
  const std::uint64_t pieces = 1 + network_prng_.below(options_.network.max_chunks);
  Instant arrival = std::max(c.wire_free[slot] + latency(), c.last_arrival[slot] + Duration::nanoseconds(1));
  if (!damaged.empty() && !reset_after) c.corrupt_arrival = arrival;  // the damaged header's chunk
  std::size_t at = 0;
  flight.prepare(bytes.size());
  for (std::uint64_t piece = 0; piece < pieces && at < bytes.size(); ++piece) {
    const std::size_t left = bytes.size() - at;
    const std::size_t size =
        piece + 1 == pieces ? left : 1 + static_cast<std::size_t>(network_prng_.below(left));
    flight.push(arrival, bytes.subspan(at, size));
    at += size;
    c.last_arrival[slot] = arrival;
    arrival += Duration::nanoseconds(1);
  }
  Occurrence deliver;
  deliver.at = c.last_arrival[slot];
  deliver.kind = Occurrence::Kind::deliver;
  deliver.connection = id;
  deliver.to_acceptor = from_dialer;
  schedule(deliver);
  if (reset_after) call_at(c.last_arrival[slot] + Duration::nanoseconds(1), [this, id] { reset_connection(id); });

  Occurrence sent;
  sent.at = c.wire_free[slot];
  sent.kind = Occurrence::Kind::sent;
  sent.node = static_cast<std::uint32_t>(from_dialer ? c.dialer : c.acceptor);
  sent.life = from_dialer ? c.dialer_life : c.acceptor_life;
  sent.connection = id;
  sent.to_acceptor = from_dialer;
  schedule(sent);
}

void Simulator::close_connection(std::uint64_t id, Connection& c, std::size_t closer) {
  if (!c.open) return;
  c.open = false;
  c.to_acceptor.clear();
  c.to_dialer.clear();
  set_connection_of(c.dialer, c.dialer_link, 0);
  if (c.acceptor_link) set_connection_of(c.acceptor, *c.acceptor_link, 0);
  // The other side learns of the close one network latency later.
  const std::size_t other = closer == c.dialer ? c.acceptor : c.dialer;
  if (other == c.acceptor && !c.acceptor_link.has_value()) {  // it never saw the link
    finished_.push_back(id);
    return;
  }
  Occurrence closed;
  closed.at = now_ + latency();
  closed.kind = Occurrence::Kind::peer_closed;
  closed.node = static_cast<std::uint32_t>(other);
  closed.life = other == c.dialer ? c.dialer_life : c.acceptor_life;
  closed.connection = id;
  schedule(closed);
}

void Simulator::reset_connection(std::uint64_t id) {
  Connection* c = find_connection(id);
  if (c == nullptr || !c->open) return;
  const std::size_t dialer = c->dialer;
  const LinkId link = c->dialer_link;
  const bool dialer_alive = nodes_[dialer - 1]->kernel && nodes_[dialer - 1]->life == c->dialer_life;
  // The acceptor learns of the reset one latency later; the dialer's own
  // socket reports it at once.
  close_connection(id, *c, dialer);
  if (dialer_alive) {
    Node& n = *nodes_[dialer - 1];
    n.kernel->handle_link_down(drifted(now_, n.clock_ppm), link, LinkDownCause::closed_by_peer);
    drain(dialer);
  }
}

void Simulator::damage_stream(std::size_t from, std::size_t to, Damage damage) { damage_[{from, to}] = damage; }

std::uint64_t Simulator::damaged_link_closes(std::size_t node, CloseReason reason) const {
  const auto it = damaged_closes_.find({node, reason});
  return it == damaged_closes_.end() ? 0 : it->second;
}

std::size_t Simulator::open_connections(std::size_t node) const {
  std::size_t open = 0;
  for (const auto& c : connections_) {
    if (c != nullptr && c->open && (c->dialer == node || c->acceptor == node)) ++open;
  }
  return open;
}

bool Simulator::corrupted_unclosed(std::size_t node) const {
  for (const auto& c : connections_) {
    if (c != nullptr && c->open && c->corrupt_read && c->acceptor == node) return true;
  }
  return false;
}

// Gathers the dialer's bytes until they hold two whole frames, then keeps
// exactly those as the pair's latest opening.
void Simulator::tap_opening(Connection& c, std::span<const std::uint8_t> bytes) {
  WEFT_ASSERT(options_.tap_openings && !c.opening_tapped);
  c.opening.insert(c.opening.end(), bytes.begin(), bytes.end());
  std::size_t whole = 0;  // the bytes of the frames complete so far
  for (int frame = 0; frame < 2; ++frame) {
    const std::size_t left = c.opening.size() - whole;
    const std::size_t length = left < wire::kFrameHeaderBytes ? 0 : wire::load_be32(c.opening.data() + whole);
    if (left < wire::kFrameHeaderBytes || left - wire::kFrameHeaderBytes < length) {
      if (c.opening.size() <= kTappedBytes) return;  // the rest is still coming
      c.opening_tapped = true;                       // nothing honest opens so: keep none of it
      c.opening = {};
      return;
    }
    whole += wire::kFrameHeaderBytes + length;
  }
  WEFT_ASSERT(whole <= c.opening.size());
  c.opening.resize(whole);
  openings_[{c.dialer, c.acceptor}] = std::move(c.opening);
  c.opening = {};
  c.opening_tapped = true;
}

const std::vector<std::uint8_t>* Simulator::tapped_opening(std::size_t dialer, std::size_t acceptor) const {
  const auto found = openings_.find({dialer, acceptor});
  return found == openings_.end() ? nullptr : &found->second;
}

Simulator::RogueOutcome Simulator::rogue(std::size_t node, std::span<const std::uint8_t> bytes,
                                         const RogueAnswer& answer) {
  Node& n = *nodes_[node - 1];
  rogue_outcome_ = RogueOutcome{};
  if (!n.kernel || now_ < n.paused_until) return rogue_outcome_;
  const Instant local = drifted(now_, n.clock_ppm);
  const LinkId link = n.kernel->handle_link_accepted(local);
  rogue_link_ = {node, link};
  trace(node, "rogue peer dials (" + std::to_string(bytes.size()) + " bytes)", true);
  n.kernel->handle_bytes(local, link, bytes);
  drain(node);
  if (answer && n.kernel && rogue_outcome_.rogue_link_closed.empty()) {
    const std::vector<std::uint8_t> more = answer(rogue_outcome_.written);
    if (!more.empty()) {
      trace(node, "rogue peer answers (" + std::to_string(more.size()) + " bytes)", true);
      n.kernel->handle_bytes(local, link, more);
      drain(node);
    }
  }
  rogue_link_.reset();
  rogue_outcome_.handled = true;
  return rogue_outcome_;
}

void Simulator::dial(std::size_t node, const ConnectCommand& connect) {
  Node& n = *nodes_[node - 1];
  const std::uint64_t id = connections_.size();
  connections_.push_back(std::make_unique<Connection>());
  Connection& c = *connections_.back();
  c.dialer = node;
  c.dialer_life = n.life;
  c.dialer_link = connect.link;
  set_connection_of(node, connect.link, id);
  c.acceptor = node_of(connect.address);
  Occurrence result;
  result.at = now_ + latency();
  result.kind = Occurrence::Kind::connect_result;
  result.node = static_cast<std::uint32_t>(node);
  result.life = n.life;
  result.connection = id;
  schedule(result);
  trace(node, "connect " + connect.address.to_string(), false);
}

void Simulator::close_link(std::size_t node, const CloseCommand& close) {
  if (rogue_link_ && rogue_link_->first == node) {
    (rogue_link_->second == close.link ? rogue_outcome_.rogue_link_closed : rogue_outcome_.other_links_closed)
        .push_back(close.reason);
    if (rogue_link_->second == close.link) {
      trace(node, "close rogue link: " + std::string(to_string(close.reason)), true);
      return;
    }
  }
  const std::uint64_t id = connection_of(node, close.link);
  if (Connection* c = find_connection(id); c != nullptr) {
    if (c->corrupted && node == c->acceptor) ++damaged_closes_[{node, close.reason}];
    close_connection(id, *c, node);
    trace(node, "close link: " + std::string(to_string(close.reason)), false);
  }
}

void Simulator::trace_kernel_event(std::size_t node, const Event& event) {
  if (const auto* member = std::get_if<MemberEvent>(&event)) {
    trace(node, member_line(*member), true);
  } else if (const auto* reach = std::get_if<ReachabilityEvent>(&event)) {
    trace(node, reach->subject.to_string() + (reach->unreachable ? " unreachable" : " reachable again"), true);
  } else if (const auto* done = std::get_if<AskCompleted>(&event)) {
    trace(node, "ask " + std::to_string(done->id) + " " + std::string(to_string(done->outcome)), false);
  } else if (const auto* dead = std::get_if<DeadLetter>(&event)) {
    trace(node, "dead letter " + std::string(to_string(dead->reason)) + " " + dead->target.to_string(), false);
  } else if (const auto* shutdown = std::get_if<ShutdownEvent>(&event)) {
    trace(node, shutdown->downed ? "shut down (downed)" : "shut down (left)", true);
  }
}

void Simulator::drain(std::size_t node) {
  Node& n = *nodes_[node - 1];
  if (!n.kernel) return;
  Kernel& k = *n.kernel;
  if (options_.after_input) options_.after_input(node, k);
  const auto on_command = [&](LinkCommand&& command) {
    if (const auto* connect = std::get_if<ConnectCommand>(&command)) {
      dial(node, *connect);
    } else {
      close_link(node, std::get<CloseCommand>(command));
    }
  };
  const auto on_transmit = [&](const Transmit& request) {
    if (rogue_link_ && *rogue_link_ == std::pair{node, request.link}) {
      rogue_outcome_.written.insert(rogue_outcome_.written.end(), request.bytes.begin(), request.bytes.end());
      return;
    }
    const std::uint64_t id = connection_of(node, request.link);
    Connection* c = find_connection(id);
    if (c != nullptr && c->open && c->established) transmit(id, *c, c->dialer == node, request.bytes);
  };
  bool exits = false;
  const auto on_event = [&](Event&& event) {
    trace_kernel_event(node, event);
    if (options_.on_event) options_.on_event(node, event);
    exits = exits || (n.exits_on_shutdown && std::holds_alternative<ShutdownEvent>(event));
    return n.kernel != nullptr;  // false: the workload crashed it
  };
  const bool running = weft::drain(k, on_command, on_transmit, on_event);
  if (exits && n.kernel) {
    // Left: the process exits after writing what its last drain sent, as
    // weftd does on its ShutdownEvent. Its connections close as in a crash.
    stop(node, "EXIT (left)");
    close_connections_of(node);
    return;
  }
  if (!running) return;
  schedule_tick(node);
}

void Simulator::process(const Occurrence& occurrence) {
  ++events_processed_;
  now_ = occurrence.at;
  switch (occurrence.kind) {
    case Occurrence::Kind::tick: on_tick(occurrence); return;
    case Occurrence::Kind::connect_result: on_connect_result(occurrence); return;
    case Occurrence::Kind::deliver: on_deliver(occurrence); return;
    case Occurrence::Kind::sent: on_sent(occurrence); return;
    case Occurrence::Kind::call: on_call(occurrence); return;
    case Occurrence::Kind::peer_closed: on_peer_closed(occurrence); return;
  }
}

void Simulator::on_tick(const Occurrence& tick) {
  Node& n = *nodes_[tick.node - 1];
  if (!n.kernel || n.life != tick.life || !n.tick_pending || n.tick_at != tick.at) return;
  n.tick_pending = false;
  if (now_ < n.paused_until) {
    schedule_tick(tick.node);
    return;
  }
  n.kernel->handle_tick(drifted(now_, n.clock_ppm));
  drain(tick.node);
}

void Simulator::on_connect_result(const Occurrence& result) {
  Connection* found = find_connection(result.connection);
  if (found == nullptr) return;
  Connection& c = *found;
  Node& dialer = *nodes_[c.dialer - 1];
  if (!dialer.kernel || dialer.life != c.dialer_life || !c.open) {
    set_connection_of(c.dialer, c.dialer_link, 0);
    finished_.push_back(result.connection);
    if (dialer.kernel && dialer.life == c.dialer_life) {
      // Closed while connecting: the acceptor crashed before answering
      // (its peer_closed may never reach the dialer: the connection is
      // forgotten now). Nothing listens there any more: refused. Without
      // this the dialer's link stayed "connecting" forever and it never
      // redialled that address. (A link the dialer closed itself is
      // unknown to its kernel, which ignores the report.)
      dialer.kernel->handle_link_down(drifted(now_, dialer.clock_ppm), c.dialer_link, LinkDownCause::refused);
      drain(c.dialer);
    }
    return;
  }
  const bool down = c.acceptor == 0 || !nodes_[c.acceptor - 1]->kernel;
  const bool refused = down && (c.acceptor == 0 || !nodes_[c.acceptor - 1]->host_lost);
  if (down || blocked(c.dialer, c.acceptor)) {
    c.open = false;
    set_connection_of(c.dialer, c.dialer_link, 0);
    finished_.push_back(result.connection);
    // Nothing listens at a dead process's address: refused. A cut path
    // or a lost host never answers: unreachable (modelled without the
    // connect timeout).
    dialer.kernel->handle_link_down(drifted(now_, dialer.clock_ppm), c.dialer_link,
                                    refused ? LinkDownCause::refused : LinkDownCause::unreachable);
    drain(c.dialer);
    return;
  }
  c.acceptor_life = nodes_[c.acceptor - 1]->life;
  c.established = true;
  dialer.kernel->handle_link_up(drifted(now_, dialer.clock_ppm), c.dialer_link);
  drain(c.dialer);
}

void Simulator::on_deliver(const Occurrence& delivery) {
  Connection* found = find_connection(delivery.connection);
  if (found == nullptr || !found->open) return;
  Connection& c = *found;
  const bool to_acceptor = delivery.to_acceptor;
  const std::size_t to = to_acceptor ? c.acceptor : c.dialer;
  const std::size_t from = to_acceptor ? c.dialer : c.acceptor;
  Node& receiver = *nodes_[to - 1];
  const std::uint64_t life = to_acceptor ? c.acceptor_life : c.dialer_life;
  if (!receiver.kernel || receiver.life != life) return;
  Flight& flight = to_acceptor ? c.to_acceptor : c.to_dialer;
  if (flight.empty() || flight.front_arrival() > now_) return;
  if (now_ < receiver.paused_until || blocked(from, to)) {
    // Held: a paused process reads later; a cut path retransmits.
    Occurrence retry = delivery;
    retry.at = std::max(receiver.paused_until, now_ + Duration::milliseconds(50));
    schedule(retry);
    return;
  }
  if (to_acceptor && !c.acceptor_link) {
    c.acceptor_link = receiver.kernel->handle_link_accepted(drifted(now_, receiver.clock_ppm));
    set_connection_of(to, *c.acceptor_link, delivery.connection);
  }
  const LinkId link = to_acceptor ? *c.acceptor_link : c.dialer_link;
  while (!flight.empty() && flight.front_arrival() <= now_ && c.open) {
    // Valid until the next push onto this direction, which only a
    // drain can make.
    const std::span<const std::uint8_t> chunk = flight.front();
    if (c.corrupted && to_acceptor && flight.front_arrival() == c.corrupt_arrival) c.corrupt_read = true;
    flight.pop();
    c.unread[to_acceptor ? 0 : 1] -= chunk.size();
    trace_hash_ = fingerprint_u64(trace_hash_, chunk.size() ^ (static_cast<std::uint64_t>(to) << 32));
    receiver.kernel->handle_bytes(drifted(now_, receiver.clock_ppm), link, chunk);
    drain(to);
    if (!receiver.kernel) return;
  }
}

void Simulator::on_sent(const Occurrence& sent) {
  Connection* found = find_connection(sent.connection);
  if (found == nullptr || !found->open) return;
  Connection& c = *found;
  Node& sender = *nodes_[sent.node - 1];
  if (!sender.kernel || sender.life != sent.life) return;
  // A paused process learns nothing; a full window (cut path, paused or
  // slow reader) stalls the write, as a blocked socket would.
  if (now_ < sender.paused_until || c.unread[sent.to_acceptor ? 0 : 1] > options_.network.window) {
    Occurrence retry = sent;
    retry.at = std::max(sender.paused_until, now_ + Duration::milliseconds(10));
    schedule(retry);
    return;
  }
  const LinkId link = sent.node == c.dialer ? c.dialer_link : *c.acceptor_link;
  sender.kernel->handle_sent(drifted(now_, sender.clock_ppm), link);
  drain(sent.node);
}

void Simulator::on_call(const Occurrence& call) {
  const std::size_t slot = static_cast<std::size_t>(call.connection);
  std::function<void()> action = std::move(calls_[slot]);
  calls_[slot] = nullptr;
  free_calls_.push_back(slot);
  action();
}

void Simulator::on_peer_closed(const Occurrence& closed) {
  Connection* found = find_connection(closed.connection);
  if (found == nullptr) return;
  Connection& c = *found;
  finished_.push_back(closed.connection);
  Node& n = *nodes_[closed.node - 1];
  if (!n.kernel || n.life != closed.life) return;
  const LinkId link = closed.node == c.dialer ? c.dialer_link : *c.acceptor_link;
  n.kernel->handle_link_down(drifted(now_, n.clock_ppm), link, LinkDownCause::closed_by_peer);
  drain(closed.node);
}

void Simulator::step() {
  std::pop_heap(queue_.begin(), queue_.end(), Later{});
  const Occurrence next = queue_.back();
  queue_.pop_back();
  process(next);
  reap();
}

void Simulator::run_for(Duration duration) {
  const Instant end = now_ + duration;
  while (!queue_.empty() && queue_.front().at <= end) step();
  now_ = end;
}

std::optional<Duration> Simulator::run_until(const std::function<bool()>& done, Duration limit) {
  const Instant start = now_;
  const Instant end = now_ + limit;
  while (!done()) {
    if (queue_.empty() || queue_.front().at > end) {
      now_ = end;
      return done() ? std::optional<Duration>(now_ - start) : std::nullopt;
    }
    step();
  }
  return now_ - start;
}

void Simulator::stop(std::size_t node, const char* what) {
  Node& n = *nodes_[node - 1];
  trace(node, what, true);
  // The next life must be newer than any this one reached (a rejoin raises
  // the incarnation in-process), as a restart clock would make it.
  n.incarnation = std::max(n.incarnation, n.kernel->self().incarnation);
  n.kernel.reset();
  ++stops_;
  ++n.life;
  n.tick_pending = false;
  n.exits_on_shutdown = false;
}

void Simulator::close_connections_of(std::size_t node) {
  for (std::uint64_t id = 1; id < connections_.size(); ++id) {
    Connection* c = connections_[id].get();
    if (c != nullptr && c->open && (c->dialer == node || c->acceptor == node)) close_connection(id, *c, node);
  }
}

void Simulator::crash(std::size_t node) {
  if (!nodes_[node - 1]->kernel) return;
  stop(node, "CRASH");
  close_connections_of(node);
}

bool Simulator::leave(std::size_t node) {
  Node& n = *nodes_[node - 1];
  if (!n.kernel || n.kernel->is_shut_down() || now_ < n.paused_until) {
    trace(node, "LEAVE not asked (not running)", true);
    return false;
  }
  trace(node, "LEAVE", true);
  n.exits_on_shutdown = true;
  return command(node, [](Kernel& kernel, Instant now) { kernel.leave(now); });
}

void Simulator::lose_host(std::size_t node) {
  Node& n = *nodes_[node - 1];
  if (!n.kernel) return;
  stop(node, "HOST LOST");
  n.host_lost = true;  // its connections stay open and unread: nobody is told
}

void Simulator::restart(std::size_t node, bool fresh) {
  Node& n = *nodes_[node - 1];
  if (n.kernel) return;
  if (n.host_lost) {
    // The rebooted host answers anything on its old connections with a
    // reset: peers learn of the close now.
    n.host_lost = false;
    close_connections_of(node);
  }
  ++n.life;
  // Fresh, the start knows only the lives earlier starts drew (a start
  // clock), not those the kernel took since to refute a claim or rejoin.
  if (n.life > 1) n.incarnation = Incarnation{(fresh ? n.started : n.incarnation).value + 1};
  // A start clock that reads the wall: its time in ms, unless the clock
  // stood still (the rule above then keeps lives rising).
  std::uint64_t start_wall = 0;
  if (options_.wall_clock_skew) {
    start_wall = wall_ms(node);
    if (n.life == 1 || start_wall > n.incarnation.value) n.incarnation = Incarnation{start_wall};
  }
  n.started = n.incarnation;
  n.paused_until = now_;
  n.tick_pending = false;
  Config config = node_config(node, n.incarnation);
  if (options_.wall_clock_skew) {
    config.start_wall_ms = start_wall;
    config.incarnation_clock_skew = *options_.wall_clock_skew;
  }
  n.kernel = std::make_unique<Kernel>(config, mix64(options_.seed ^ (node << 32) ^ n.incarnation.value));
  trace(node, "start " + MemberId{n.address, n.incarnation}.to_string(), n.life > 1);
  if (options_.on_start) options_.on_start(node, *n.kernel, drifted(now_, n.clock_ppm));
  n.kernel->handle_tick(drifted(now_, n.clock_ppm));
  drain(node);
}

void Simulator::pause(std::size_t node, Duration for_how_long) {
  Node& n = *nodes_[node - 1];
  if (!n.kernel) return;
  n.paused_until = std::max(n.paused_until, now_ + for_how_long);
  trace(node, "PAUSE for " + std::to_string(for_how_long.ms()) + " ms", true);
}

void Simulator::cut_one_way(std::size_t from, std::size_t to) {
  cuts_.insert({from, to});
  trace(0, "CUT " + std::to_string(from) + "->" + std::to_string(to), true);
}

void Simulator::cut(std::size_t a, std::size_t b) {
  cut_one_way(a, b);
  cut_one_way(b, a);
}

void Simulator::partition(const std::vector<std::size_t>& side) {
  for (std::size_t a : side) {
    for (std::size_t b = 1; b <= nodes_.size(); ++b) {
      if (std::find(side.begin(), side.end(), b) == side.end()) {
        cuts_.insert({a, b});
        cuts_.insert({b, a});
      }
    }
  }
  std::string text = "PARTITION {";
  // Appended piece by piece: `"x" + std::string` (operator+ prepending into the
  // temporary) draws a false -Wrestrict from gcc 12 at -O3 (GCC bug 105329).
  for (std::size_t a : side) {
    text += ' ';
    text += std::to_string(a);
  }
  trace(0, text + " } from the rest", true);
}

void Simulator::call_at(Instant at, std::function<void()> action) {
  std::size_t slot = calls_.size();
  if (free_calls_.empty()) {
    calls_.push_back(std::move(action));
  } else {
    slot = static_cast<std::size_t>(free_calls_.back());
    free_calls_.pop_back();
    calls_[slot] = std::move(action);
  }
  Occurrence call;
  call.at = std::max(at, now_);
  call.kind = Occurrence::Kind::call;
  call.connection = slot;
  schedule(call);
}

bool Simulator::command(std::size_t node, const std::function<void(Kernel&, Instant)>& command) {
  Node& n = *nodes_.at(node - 1);
  if (!n.kernel || n.kernel->is_shut_down() || now_ < n.paused_until) return false;
  command(*n.kernel, drifted(now_, n.clock_ppm));
  drain(node);
  return true;
}

void Simulator::latency_spike(Duration extra, Instant until) {
  spike_ = extra;
  spike_until_ = until;
  trace(0, "LATENCY +" + std::to_string(extra.ms()) + " ms until " + std::to_string((until - now_).ms()) + " ms from now", true);
}

void Simulator::heal() {
  cuts_.clear();
  trace(0, "HEAL", true);
}

}  // namespace weft::sim
