// The consumer's own actor and workload: an echo on every node life and a
// client asking numbered bodies of the next node's echo; every reply must
// carry back exactly what was sent (property ECHO). Shared by main.cpp (one
// run through weft::sim) and sim_main.cpp (the whole command line through
// weft::sim_main).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "kernel/kernel.hpp"
#include "sim/scenario.hpp"
#include "sim/simulator.hpp"
#include "sim/workload.hpp"

namespace consumer {

using weft::AskCompleted;
using weft::AskId;
using weft::AskOutcome;
using weft::Duration;
using weft::Instant;
using weft::Kernel;

constexpr std::uint32_t kEcho = 7;
// Not "echo": the simulator's own traffic spawns an actor of that name.
constexpr const char* kName = "user-echo";

// The user's actor: answers an ask with its own tag and body.
class Echo final : public weft::Behavior {
 public:
  // garble: the defect a user plants to see their property catch it (the
  // reply's first byte flipped).
  explicit Echo(bool garble = false) : garble_(garble) {}
  void receive(weft::Context& context, const weft::Delivery& message) override {
    if (message.kind != weft::DeliveryKind::ask) return;
    std::vector<std::uint8_t> body(message.body.begin(), message.body.end());
    if (garble_ && !body.empty()) body[0] = static_cast<std::uint8_t>(body[0] ^ 0xff);
    (void)context.reply(kEcho, body);
  }

 private:
  bool garble_;
};

inline std::vector<std::uint8_t> body_of(std::uint64_t n) {
  std::vector<std::uint8_t> body;
  for (int i = 0; i < 8; ++i) body.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
  return body;
}

// One kernel, no network: the ask goes to the local actor and its reply
// comes back as an AskCompleted event.
// The simulator half: an Echo on every node life, and a client asking a
// numbered body of the next node's echo every 100 ms of virtual time. A
// reply must carry back exactly what was sent; replies must arrive at all.
class EchoWorkload final : public weft::sim::Workload {
 public:
  explicit EchoWorkload(bool garble = false) : garble_(garble) {}
  void begin(weft::sim::Simulator& sim, const weft::sim::Scenario& scenario) override {
    (void)scenario;
    sim_ = &sim;
    schedule();
  }
  void on_start(std::size_t node, Kernel& kernel, Instant now) override {
    kernel.spawn(now, kName, std::make_unique<Echo>(garble_));
    // A restarted node's earlier asks never complete.
    std::erase_if(pending_, [&](const auto& entry) { return entry.first.first == node; });
  }
  void on_event(std::size_t node, const weft::Event& event) override {
    const auto* done = std::get_if<AskCompleted>(&event);
    if (done == nullptr) return;
    const auto it = pending_.find({node, done->id});
    if (it == pending_.end()) return;  // the standard traffic's asks
    if (done->outcome == AskOutcome::reply) {
      ++replies_;
      if (done->type_tag != kEcho || done->body != body_of(it->second)) {
        failures_.push_back("ECHO: ask " + std::to_string(it->second) + " came back altered");
      }
    }
    pending_.erase(it);
  }
  void check(const weft::sim::Simulator& sim, std::vector<std::string>& failures) override {
    (void)sim;
    failures.insert(failures.end(), failures_.begin(), failures_.end());
    failures_.clear();
  }
  void finish(const weft::sim::Simulator& sim, std::vector<std::string>& failures) override {
    (void)sim;
    if (replies_ == 0) failures.emplace_back("ECHO: no ask was ever answered");
  }
  std::string summary() const override {
    return "echo: " + std::to_string(asked_) + " asked, " + std::to_string(replies_) + " echoed";
  }
  std::uint64_t replies() const { return replies_; }

 private:
  void schedule() {
    sim_->call_at(sim_->now() + Duration::milliseconds(100), [this] { step(); });
  }
  void step() {
    const std::size_t from = asked_ % sim_->size() + 1;
    const weft::ActorRef target{sim_->address(from % sim_->size() + 1), kName};
    const std::uint64_t number = asked_++;
    (void)sim_->command(from, [&](Kernel& kernel, Instant now) {
      // Recorded before the simulator drains the kernel: a rejected ask
      // completes at once.
      pending_[{from, kernel.ask(now, target, 1, body_of(number), Duration::seconds(2))}] = number;
    });
    schedule();
  }

  bool garble_ = false;
  weft::sim::Simulator* sim_ = nullptr;
  std::map<std::pair<std::size_t, AskId>, std::uint64_t> pending_;
  std::vector<std::string> failures_;
  std::uint64_t asked_ = 0;
  std::uint64_t replies_ = 0;
};

}  // namespace consumer
