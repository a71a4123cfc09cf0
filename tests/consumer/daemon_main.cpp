// The consumer's own node: weft::daemon::main, linked through weft::daemon
// alone, hosting an application of its own. Its one actor kind, "greeter",
// answers every ask with kGreeting and counts the asks it answered in
// consumer_greetings_total, registered through ActorStart::metrics, so the
// daemon serves it on /metrics after its own. check_consumer.cmake runs it
// through run_daemon.py: /health, an ask through the admin endpoint, the
// count on /metrics, a SIGTERM leave that exits 0.
//
// With CONSUMER_DUPLICATE_GREETER=1 in the environment the definition names
// "greeter" twice, which the daemon must refuse at start: exit 2, naming it.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <string_view>
#include <utility>

#include "app/application.hpp"
#include "daemon/daemon_main.hpp"

namespace {

constexpr std::string_view kGreeting = "hello from the consumer";
constexpr std::uint32_t kGreetingTag = 1;

class Greeter final : public weft::Behavior {
 public:
  explicit Greeter(weft::Counter& greetings) : greetings_(greetings) {}
  void receive(weft::Context& context, const weft::Delivery& message) override {
    if (message.kind != weft::DeliveryKind::ask) return;
    greetings_.add();
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(kGreeting.data());
    (void)context.reply(kGreetingTag, std::span<const std::uint8_t>(bytes, kGreeting.size()));
  }

 private:
  weft::Counter& greetings_;
};

weft::ActorKind greeter() {
  return {.name = "greeter", .make = [](const weft::ActorStart& start) {
            return std::make_unique<Greeter>(
                start.metrics.counter("consumer_greetings_total", "asks the greeter answered"));
          }};
}

}  // namespace

int main(int argc, char** argv) {
  weft::Application app{
      .name = "weft_consumer_daemon",
      .description = "the consumer's own node: a greeter that counts its asks",
      .actors = {greeter()},
  };
  if (const char* duplicate = std::getenv("CONSUMER_DUPLICATE_GREETER"); duplicate != nullptr) {
    app.actors.push_back(greeter());
  }
  return weft::daemon::main(argc, argv, app);
}
