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
#include "echo_workload.hpp"

namespace {

using namespace consumer;

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
