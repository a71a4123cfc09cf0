#include "sim/traffic.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace weft::sim {
namespace {

constexpr std::uint32_t kFloodTick = 0x5701;  // driver -> flood-src: {target u32, count u32, bytes u32}
constexpr std::uint32_t kFloodData = 0x5702;  // flood-src -> flood-sink: {incarnation u64, seq u64, target u32}
constexpr std::uint32_t kEcho = 0x5703;
constexpr std::size_t kFloodHeader = 20;
const Duration kFloodTickEvery = Duration::milliseconds(10);
// How late a completion may be: the checks run every 100 ms, and a paused
// asker's deadlines move only at a check.
const Duration kAskSlack = Duration::milliseconds(200);
// An ask still open this long after its timeout has not merely been late:
// it is reported as never completed.
const Duration kAskNever = kAskSlack + Duration::seconds(1);
// An open ask to a member the asker holds down must fail this soon (S3);
// the checks run every 100 ms.
const Duration kAskDownSlack = Duration::milliseconds(300);

void put32(std::uint8_t* p, std::uint32_t v) { std::memcpy(p, &v, 4); }
void put64(std::uint8_t* p, std::uint64_t v) { std::memcpy(p, &v, 8); }
std::uint32_t get32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
std::uint64_t get64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Appended piece by piece: `"x" + std::string` (operator+ prepending into the
// temporary) draws a false -Wrestrict from gcc 12 at -O3 (GCC bug 105329).
std::string node_name(std::size_t node) {
  std::string name = "n";
  name += std::to_string(node);
  return name;
}

class FloodSource final : public Behavior {
 public:
  FloodSource(TrafficWorkload& workload, std::size_t node, std::uint64_t incarnation)
      : workload_(workload), node_(node), incarnation_(incarnation) {}

  void receive(Context& context, const Delivery& message) override {
    if (message.kind != DeliveryKind::tell || message.type_tag != kFloodTick || message.body.size() != 12) return;
    const std::uint32_t target = get32(message.body.data());
    const std::uint32_t count = get32(message.body.data() + 4);
    body_.assign(std::max<std::size_t>(kFloodHeader, get32(message.body.data() + 8)), 0xab);
    const ActorRef to{workload_.address(target), "flood-sink"};
    std::uint64_t& seq = next_seq_[target];
    for (std::uint32_t i = 0; i < count; ++i) {
      put64(body_.data(), incarnation_);
      // A number is used only once the kernel takes the message, so the
      // numbers a stream accepted are exactly 1..seq (S4 counts on it).
      put64(body_.data() + 8, seq + 1);
      put32(body_.data() + 16, target);
      if (context.tell(to, kFloodData, body_) == SendResult::sent) {
        workload_.accepted(node_, incarnation_, target, ++seq, body_.size());
      }
    }
  }

 private:
  TrafficWorkload& workload_;
  std::size_t node_;
  std::uint64_t incarnation_;
  std::map<std::uint32_t, std::uint64_t> next_seq_;
  std::vector<std::uint8_t> body_;
};

class FloodSink final : public Behavior {
 public:
  FloodSink(TrafficWorkload& workload, std::size_t node) : workload_(workload), node_(node) {}

  void receive(Context& context, const Delivery& message) override {
    if (message.kind != DeliveryKind::tell || message.type_tag != kFloodData) return;
    if (message.body.size() < kFloodHeader) {
      workload_.violation("S1: " + node_name(node_) + " flood-sink got a " + std::to_string(message.body.size()) +
                          "-byte body");
      return;
    }
    const std::uint64_t incarnation = get64(message.body.data());
    const std::uint64_t seq = get64(message.body.data() + 8);
    const std::uint32_t target = get32(message.body.data() + 16);
    const std::string sender = message.sender.to_owned().to_string() + "#" + std::to_string(incarnation);
    if (target != node_) {
      workload_.violation("S1: misdelivery: message " + std::to_string(seq) + " from " + sender + " for n" +
                          std::to_string(target) + " reached " + node_name(node_));
    }
    std::uint64_t& last = last_seq_[sender];
    if (seq <= last) {
      workload_.violation("S1: " + node_name(node_) + " flood-sink got message " + std::to_string(seq) + " from " +
                          sender + " after " + std::to_string(last) +
                          (seq == last ? " (duplicate)" : " (out of order)"));
    }
    last = std::max(last, seq);
    workload_.delivered(message.sender.to_owned().node, incarnation, node_, seq);
    (void)context;
  }

 private:
  TrafficWorkload& workload_;
  std::size_t node_;
  std::map<std::string, std::uint64_t> last_seq_;
};

class Echo final : public Behavior {
 public:
  void receive(Context& context, const Delivery& message) override {
    if (message.kind == DeliveryKind::ask) (void)context.reply(kEcho, message.body);
  }
};

}  // namespace

void TrafficWorkload::begin(Simulator& sim, const Scenario& scenario) {
  sim_ = &sim;
  addresses_.clear();
  for (std::size_t i = 1; i <= sim.size(); ++i) addresses_.push_back(sim.address(i));
  lives_.resize(sim.size() + 1, 1);
  network_window_ = scenario.network.window;
  const Instant start = sim.now();
  for (const Fault& f : scenario.faults) {
    if (f.kind == Fault::Kind::flood) {
      sim.call_at(start + f.at, [this, f, end = start + f.at + f.length] { flood_tick(f, end, 0); });
    } else if (f.kind == Fault::Kind::asks) {
      sim.call_at(start + f.at, [this, f, end = start + f.at + f.length] { ask_tick(f, end); });
    }
  }
}

void TrafficWorkload::flood_tick(const Fault& flood, Instant end, std::uint64_t carry_millis) {
  // rate messages a second, in 10 ms ticks; carry the fraction so any rate
  // comes out exact over a second.
  const std::uint64_t due_millis = carry_millis + std::uint64_t{flood.rate} * 10;
  const auto count = static_cast<std::uint32_t>(due_millis / 1000);
  std::uint8_t body[12];
  put32(body, static_cast<std::uint32_t>(flood.nodes[1]));
  put32(body + 4, count);
  put32(body + 8, flood.bytes);
  if (count > 0) {
    (void)sim_->command(flood.nodes[0], [&](Kernel& kernel, Instant now) {
      (void)kernel.tell(now, ActorRef{address(flood.nodes[0]), "flood-src"}, kFloodTick, body);
    });
  }
  const Instant next = sim_->now() + kFloodTickEvery;
  if (next < end) sim_->call_at(next, [this, flood, end, rest = due_millis % 1000] { flood_tick(flood, end, rest); });
}

void TrafficWorkload::ask_tick(const Fault& asks, Instant end) {
  const std::size_t from = asks.nodes[0];
  (void)sim_->command(from, [&](Kernel& kernel, Instant now) {
    const std::uint64_t token = ++asks_made_;
    std::uint8_t body[8];
    put64(body, token);
    const AskId id = kernel.ask(now, ActorRef{address(asks.nodes[1]), "echo"}, kEcho, body, asks.extra);
    // A completion may already have come (an ask refused at once).
    // Deadlines in virtual time: `now` is the node's own (possibly drifting) clock.
    const AskKey key{from, lives_[from], id};
    PendingAsk pending;
    pending.deadline = sim_->now() + asks.extra;
    pending.target = asks.nodes[1];
    pending.token = token;
    if (asks_.try_emplace(key, pending).second) {
      open_.insert(key);
    }
  });
  const Instant next = sim_->now() + Duration::nanoseconds(1'000'000'000 / std::max<std::uint32_t>(asks.rate, 1));
  if (next < end) sim_->call_at(next, [this, asks, end] { ask_tick(asks, end); });
}

void TrafficWorkload::on_start(std::size_t node, Kernel& kernel, Instant now) {
  // A new life: the asks of the node's last life died with it.
  std::erase_if(asks_, [&](const auto& entry) { return std::get<0>(entry.first) == node; });
  std::erase_if(open_, [&](const AskKey& key) { return std::get<0>(key) == node; });
  if (node < lives_.size()) ++lives_[node];  // before begin(), every node's first life
  std::erase_if(streams_, [&](const auto& entry) { return std::get<0>(entry.first) == node; });
  (void)kernel.spawn(now, "flood-src", std::make_unique<FloodSource>(*this, node, kernel.self().incarnation.value));
  (void)kernel.spawn(now, "flood-sink", std::make_unique<FloodSink>(*this, node));
  (void)kernel.spawn(now, "echo", std::make_unique<Echo>());
}

void TrafficWorkload::on_event(std::size_t node, const Event& event) {
  const auto* done = std::get_if<AskCompleted>(&event);
  if (done == nullptr || sim_ == nullptr) return;
  ++asks_completed_;
  count(judged_, Check::s2_asks);
  if (done->outcome == AskOutcome::target_down) count(judged_, Check::s3_down_targets);
  const AskKey key{node, lives_[node], done->id};
  PendingAsk& ask = asks_[key];
  open_.erase(key);
  if (done->outcome == AskOutcome::reply && ask.token != 0 &&
      (done->body.size() != 8 || get64(done->body.data()) != ask.token)) {
    violation("S2: ask " + std::to_string(done->id) + " of " + node_name(node) +
              " completed with a reply to another ask");
  }
  if (++ask.completions == 2) {
    violation("S2: ask " + std::to_string(done->id) + " of " + node_name(node) + " completed twice (now " +
              std::string(to_string(done->outcome)) + ")");
  }
  if (ask.deadline != Instant{} && sim_->now() > ask.deadline + kAskSlack) {
    violation("S2: ask " + std::to_string(done->id) + " of " + node_name(node) + " completed late, " +
              std::to_string((sim_->now() - ask.deadline).ms()) + " ms after its timeout");
  }
}

void TrafficWorkload::accepted(std::size_t from, std::uint64_t life, std::size_t to, std::uint64_t seq,
                               std::size_t bytes) {
  ++sent_;
  Stream& stream = streams_[{from, life, to}];
  stream.accepted_bytes += bytes;
  stream.largest = std::max(stream.largest, bytes);
  stream.open.emplace_back(seq, stream.accepted_bytes);
}

void TrafficWorkload::delivered(const NodeAddress& from, std::uint64_t life, std::size_t to, std::uint64_t seq) {
  ++delivered_;
  count(judged_, Check::s1_messages);
  const auto it = streams_.find({sim_->node_of(from), life, to});
  if (it == streams_.end()) return;
  Stream& stream = it->second;
  while (!stream.open.empty() && stream.open.front().first <= seq) {
    stream.delivered_bytes = stream.open.front().second;
    stream.open.pop_front();
  }
}

void TrafficWorkload::after_input(std::size_t node, const Kernel& kernel) {
  const std::uint32_t capacity = kernel.config().mailbox_capacity;
  constexpr std::array<std::string_view, 3> kActors{"flood-src", "flood-sink", "echo"};
  count(judged_, Check::s4_mailboxes, kActors.size());
  // No mailbox is deeper than the deepest: while that is within the
  // capacity and the high water already recorded, reading each by name
  // could change nothing, and after nearly every input it is.
  if (const std::size_t deepest = kernel.deepest_mailbox(); deepest <= capacity && deepest <= high_water_) return;
  for (const std::string_view actor : kActors) {
    const std::size_t size = kernel.mailbox_size(actor);
    high_water_ = std::max<std::uint64_t>(high_water_, size);
    if (size > capacity) {
      violation("S4: " + node_name(node) + "'s " + std::string(actor) + " mailbox holds " + std::to_string(size) +
                " messages; its capacity is " + std::to_string(capacity));
    }
  }
}

void TrafficWorkload::check_streams(const Simulator& sim) {
  for (const auto& [key, stream] : streams_) {
    const auto& [from, life, to] = key;
    const Kernel* k = sim.kernel(from);
    if (k == nullptr || k->self().incarnation.value != life || stream.open.empty()) continue;
    count(judged_, Check::s4_streams);
    const Config& c = k->config();
    // Messages in between sit in the sender's queue (its bound), one write,
    // the network, and the receiver's mailbox; a link lost with all of them
    // aboard may leave that much unaccounted once more.
    const std::uint64_t allowed = 2 * (c.max_outbound_user_bytes + c.max_write_bytes + network_window_ +
                                       std::uint64_t{c.mailbox_capacity} * stream.largest);
    const std::uint64_t outstanding = stream.accepted_bytes - stream.delivered_bytes;
    if (outstanding > allowed) {
      violation("S4: " + node_name(from) + " accepted " + std::to_string(stream.open.size()) +
                " messages (" + std::to_string(outstanding) + " body bytes) for " + node_name(to) +
                " that have not arrived; its outbound bound, a write, the network window and a mailbox hold at most " +
                std::to_string(allowed));
    }
  }
}

void TrafficWorkload::check(const Simulator& sim, std::vector<std::string>& failures) {
  check_streams(sim);
  // Asks past their deadline (and a tick of slack) that never completed. A
  // paused asker cannot time its asks out: its deadlines move with the pause.
  for (auto it = open_.begin(); it != open_.end();) {
    const auto& [node, life, id] = *it;
    PendingAsk& ask = asks_.at(*it);
    if (sim.paused(node)) ask.deadline = std::max(ask.deadline, sim.now());
    if (const Kernel* k = sim.kernel(node); k != nullptr && !sim.paused(node)) {
      const Member* target = k->members().find(sim.address(ask.target));
      if (target == nullptr || is_live_status(target->status)) {
        ask.target_down_seen = Instant{};
      } else if (ask.target_down_seen == Instant{}) {
        ask.target_down_seen = sim.now();
      } else if (sim.now() - ask.target_down_seen > kAskDownSlack) {
        violation("S3: ask " + std::to_string(id) + " of " + node_name(node) + " still open " +
                  std::to_string((sim.now() - ask.target_down_seen).ms()) + " ms after " + node_name(node) +
                  " saw its target down");
        ask.completions = 1;  // report once
        it = open_.erase(it);
        continue;
      }
    }
    // A dead node's asks die with it; on_start forgets them.
    if (!sim.alive(node) || sim.now() <= ask.deadline + kAskNever) {
      ++it;
      continue;
    }
    violation("S2: ask " + std::to_string(id) + " of " + node_name(node) + " never completed: still open " +
              std::to_string((sim.now() - ask.deadline).ms()) + " ms after its timeout");
    ask.completions = 1;  // report once
    it = open_.erase(it);
  }
  for (std::string& v : violations_) failures.push_back(std::move(v));
  violations_.clear();
}

void TrafficWorkload::finish(const Simulator& sim, std::vector<std::string>& failures) { check(sim, failures); }

std::string TrafficWorkload::summary() const {
  return "traffic: " + std::to_string(sent_) + " flood messages sent, " + std::to_string(delivered_) +
         " delivered; " + std::to_string(asks_made_) + " asks, " + std::to_string(asks_completed_) +
         " completions; deepest mailbox " + std::to_string(high_water_);
}

}  // namespace weft::sim
