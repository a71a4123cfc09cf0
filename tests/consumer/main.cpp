// A program that uses weft the way a user's project does: only through
// weft::kernel and weft::sim, from an installed weft (find_package) or from
// weft's source tree (add_subdirectory). It asks its own actor on a lone
// Kernel, then runs one generated fault scenario with that actor on every
// node and requires the simulator's verdict to be a pass and every echo to
// come back intact. Exit 0 and one "consumer: ..." line only if all held.
#include <chrono>  // forbidden inside kernel/ by its build guard, which must not reach a consumer
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "kernel/drain.hpp"
#include "kernel/kernel.hpp"
#include "sim/scenario.hpp"
#include "sim/simulator.hpp"
#include "sim/workload.hpp"

namespace {

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
  void receive(weft::Context& context, const weft::Delivery& message) override {
    if (message.kind == weft::DeliveryKind::ask) (void)context.reply(kEcho, message.body);
  }
};

std::vector<std::uint8_t> body_of(std::uint64_t n) {
  std::vector<std::uint8_t> body;
  for (int i = 0; i < 8; ++i) body.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
  return body;
}

// One kernel, no network: the ask goes to the local actor and its reply
// comes back as an AskCompleted event.
bool echo_on_one_kernel() {
  weft::Config config;
  config.self = weft::NodeAddress{"127.0.0.1", 7000};
  config.seeds = {config.self};
  Kernel kernel(config, 1);
  Instant now = Instant::from_ns(1'000'000'000);
  kernel.handle_tick(now);
  const weft::ActorRef echo = kernel.spawn(now, kName, std::make_unique<Echo>());
  const std::vector<std::uint8_t> sent = body_of(42);
  const AskId id = kernel.ask(now, echo, 1, sent, Duration::seconds(1));
  bool echoed = false;
  // Bounded: within a second of virtual time the ask replies or times out.
  for (int step = 0; step < 20 && !echoed; ++step) {
    (void)weft::drain(
        kernel, [](weft::LinkCommand&&) {}, [](const weft::Transmit&) {},
        [&](weft::Event&& event) {
          if (const auto* done = std::get_if<AskCompleted>(&event); done != nullptr && done->id == id) {
            echoed = done->outcome == AskOutcome::reply && done->type_tag == kEcho && done->body == sent;
          }
          return true;
        });
    now = now + Duration::milliseconds(100);
    kernel.handle_tick(now);
  }
  return echoed;
}

// The simulator half: an Echo on every node life, and a client asking a
// numbered body of the next node's echo every 100 ms of virtual time. A
// reply must carry back exactly what was sent; replies must arrive at all.
class EchoWorkload final : public weft::sim::Workload {
 public:
  void begin(weft::sim::Simulator& sim, const weft::sim::Scenario& scenario) override {
    (void)scenario;
    sim_ = &sim;
    schedule();
  }
  void on_start(std::size_t node, Kernel& kernel, Instant now) override {
    kernel.spawn(now, kName, std::make_unique<Echo>());
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

  weft::sim::Simulator* sim_ = nullptr;
  std::map<std::pair<std::size_t, AskId>, std::uint64_t> pending_;
  std::vector<std::string> failures_;
  std::uint64_t asked_ = 0;
  std::uint64_t replies_ = 0;
};

}  // namespace

int main() {
  const auto started = std::chrono::steady_clock::now();
  if (!echo_on_one_kernel()) {
    std::cerr << "consumer: the lone kernel's echo did not answer the ask intact\n";
    return 1;
  }
  const std::uint64_t seed = 3;
  const weft::sim::Scenario scenario = weft::sim::generate(seed, 3, Duration::seconds(10));
  EchoWorkload echo;
  weft::sim::Workload* const workloads[] = {&echo};
  const weft::sim::RunResult result = weft::sim::run(scenario, {}, workloads);
  for (const std::string& failure : result.failures) std::cerr << "  " << failure << '\n';
  if (result.verdict != weft::sim::Verdict::pass || echo.replies() == 0) {
    std::cerr << "consumer: seed " << seed << " did not pass (exit code " << static_cast<int>(result.verdict)
              << ")\n";
    return 1;
  }
  const auto wall = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  std::cout << "consumer: seed " << seed << " (" << scenario.faults.size() << " faults) passed, " << echo.summary()
            << ", trace hash " << std::hex
            << result.trace_hash << std::dec << " (" << wall.count() << " ms)\n";
  return 0;
}
