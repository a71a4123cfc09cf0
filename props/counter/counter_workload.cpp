#include "props/counter/counter_workload.hpp"

#include <memory>

#include "sim/scenario.hpp"
#include "sim/simulator.hpp"

namespace weft::counter {
namespace {

// The workload's own PRNG stream, independent of the simulator's.
constexpr std::uint64_t kPrngStream = 0xC0047E4;

// Appended piece by piece: `"x" + std::string` (operator+ prepending into the
// temporary) draws a false -Wrestrict from gcc 12 at -O3 (GCC bug 105329).
std::string n(std::size_t node) {
  std::string name = "n";
  name += std::to_string(node);
  return name;
}

}  // namespace

void CounterWorkload::begin(sim::Simulator& sim, const sim::Scenario& scenario) {
  sim_ = &sim;
  prng_ = Prng::derive(scenario.seed, kPrngStream);
  nodes_.resize(sim.size());
  attempted_.assign(options_.keys, 0);
  acked_.assign(options_.keys, 0);
  schedule_next();
}

void CounterWorkload::on_start(std::size_t node, Kernel& kernel, Instant) {
  // The simulator boots its nodes before begin() runs: size the table here too.
  if (nodes_.size() < node) nodes_.resize(node);
  Node& state = nodes_[node - 1];
  ++state.lives;
  // Spawned just now by the application's actors (counter_app.hpp), which
  // run ahead of this workload.
  state.shard = dynamic_cast<CounterShard*>(kernel.behavior(kShardName));
  if (state.shard == nullptr) {
    reported_.push_back("COUNTER: " + n(node) + " started without a counter shard (the application spawns one on "
                        "every node: run this workload with the counter application's actors)");
  }
  // Asks the previous life made will never complete: forget them.
  std::erase_if(pending_, [&](const auto& entry) { return entry.first.first == node; });
}

void CounterWorkload::schedule_next() {
  const Duration mean = Duration::nanoseconds(1'000'000'000 / options_.operations_per_second);
  const Duration gap = prng_.exponential(mean);
  sim_->call_at(sim_->now() + gap, [this] { client_step(); });
}

void CounterWorkload::client_step() {
  const std::size_t from = static_cast<std::size_t>(prng_.below(nodes_.size())) + 1;
  const std::uint64_t key = prng_.below(options_.keys);
  const Op op = prng_.below(100) < options_.read_percent ? Op::read : Op::increment;
  const ActorRef target{sim_->address(owner_of(key)), std::string(kShardName)};
  const bool ran = sim_->command(from, [&](Kernel& kernel, Instant now) {
    const AskId id = op == Op::read ? CounterProtocol::ask(kernel, now, target, Read{key}, options_.ask_timeout)
                                    : CounterProtocol::ask(kernel, now, target, Increment{key}, options_.ask_timeout);
    // Recorded before the simulator drains the kernel: a rejected ask
    // completes at once, and its event must find this entry.
    pending_[{from, id}] = Pending{op, key, acked_[key]};
    if (op == Op::read) {
      ++reads_;
    } else {
      ++attempted_[key];
      ++attempted_total_;
    }
  });
  if (!ran) ++not_run_;
  schedule_next();
}

void CounterWorkload::on_event(std::size_t node, const Event& event) {
  const auto* done = std::get_if<AskCompleted>(&event);
  if (done == nullptr) return;
  const auto it = pending_.find({node, done->id});
  if (it == pending_.end()) return;  // someone else's ask
  const Pending ask = it->second;
  pending_.erase(it);
  if (done->outcome != AskOutcome::reply) {
    ++failed_[done->outcome];
    return;
  }
  const typed::Decoded<Value> value = CounterProtocol::decode<Value>(done->type_tag, done->body);
  if (!value) {
    reported_.push_back("COUNTER: " + n(node) + " got a malformed answer (tag " + std::to_string(done->type_tag) +
                        ", " + std::to_string(done->body.size()) + " bytes: " + std::string(typed::to_string(value.reason)) +
                        ", " + value.detail + ") for key " + std::to_string(ask.key));
    return;
  }
  if (value->key != ask.key) {
    reported_.push_back("COUNTER: " + n(node) + " asked about key " + std::to_string(ask.key) +
                        " and was answered about key " + std::to_string(value->key));
    return;
  }
  if (ask.op == Op::increment) {
    ++acked_[ask.key];
    ++acked_total_;
    check_reported(ask.key, node, "an increment's ack", value->count, 0);
  } else {
    ++reads_answered_;
    check_reported(ask.key, node, "a read", value->count, ask.acked_before);
  }
}

void CounterWorkload::check_reported(std::uint64_t key, std::size_t from, const char* what, std::uint64_t value,
                                     std::uint64_t acked_before) {
  const std::size_t o = owner_of(key);
  // (b): nothing reports more increments than were ever asked for.
  if (value > attempted_[key]) {
    reported_.push_back("COUNTER: " + std::string(what) + " of key " + std::to_string(key) + " from " + n(o) +
                        " to " + n(from) + " reported " + std::to_string(value) + " but only " +
                        std::to_string(attempted_[key]) + " increments were attempted (applied twice)");
  }
  // (c): a read from an owner that stayed up sees every ack that preceded it.
  if (stayed_up(o) && value < acked_before) {
    reported_.push_back("COUNTER: " + std::string(what) + " of key " + std::to_string(key) + " from " + n(o) +
                        " to " + n(from) + " reported " + std::to_string(value) + " but " +
                        std::to_string(acked_before) + " increments were acknowledged before it was sent");
  }
}

void CounterWorkload::check(const sim::Simulator& sim, std::vector<std::string>& failures) {
  for (std::string& line : reported_) failures.push_back(std::move(line));
  reported_.clear();
  for (std::uint64_t key = 0; key < acked_.size(); ++key) {
    const std::size_t o = owner_of(key);
    const Node& state = nodes_[o - 1];
    if (!sim.alive(o) || state.shard == nullptr) continue;  // crashed: its counts are gone
    const std::uint64_t held = state.shard->value(key);
    // (a): an owner that stayed up holds every acknowledged increment.
    if (stayed_up(o) && held < acked_[key]) {
      failures.push_back("COUNTER: key " + std::to_string(key) + " on " + n(o) + " holds " + std::to_string(held) +
                         " but " + std::to_string(acked_[key]) + " increments were acknowledged");
    }
    // (b): and no life holds more than were attempted.
    if (held > attempted_[key]) {
      failures.push_back("COUNTER: key " + std::to_string(key) + " on " + n(o) + " holds " + std::to_string(held) +
                         " but only " + std::to_string(attempted_[key]) +
                         " increments were attempted (applied twice)");
    }
  }
}

void CounterWorkload::finish(const sim::Simulator& sim, std::vector<std::string>& failures) {
  check(sim, failures);
  survivors_ = "; owners that stayed up:";
  for (std::size_t node = 1; node <= nodes_.size(); ++node) {
    if (stayed_up(node) && sim.alive(node)) {
      survivors_ += ' ';
      survivors_ += n(node);
    }
  }
  // A run in which nothing was acknowledged proves nothing: say so.
  if (acked_total_ == 0) failures.push_back("COUNTER: no increment was acknowledged in the whole run");
}

std::string CounterWorkload::summary() const {
  std::string line = "counter: " + std::to_string(attempted_total_) + " increments asked, " +
                     std::to_string(acked_total_) + " acknowledged; " + std::to_string(reads_) + " reads, " +
                     std::to_string(reads_answered_) + " answered";
  for (const auto& [outcome, count] : failed_) {
    line += ", " + std::to_string(count) + " " + std::string(to_string(outcome));
  }
  line += "; " + std::to_string(not_run_) + " not run (client node down or paused)" + survivors_;
  return line;
}

}  // namespace weft::counter
