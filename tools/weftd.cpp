// weftd: weft::daemon::main (daemon/daemon_main.hpp) with the demo
// application, two actors on every node that weftctl and the io tests talk
// to: echo (an ask's reply is its own body) and counter (counts tells, an
// ask reads the count). weftd-bench is the same program built on the daemon
// library with the load generator (POST /flood).
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "daemon/daemon_main.hpp"

namespace {

// Replies to every ask with the ask's own body.
class Echo final : public weft::Behavior {
 public:
  void receive(weft::Context& context, const weft::Delivery& message) override {
    if (message.kind == weft::DeliveryKind::ask) (void)context.reply(message.type_tag, message.body);
  }
};

// Counts the tells it gets (weftctl tell ... /counter), answers an ask with the count.
class Counter final : public weft::Behavior {
 public:
  void receive(weft::Context& context, const weft::Delivery& message) override {
    if (message.kind == weft::DeliveryKind::tell) ++count_;
    if (message.kind == weft::DeliveryKind::ask) {
      const std::string text = std::to_string(count_);
      (void)context.reply(message.type_tag, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
    }
  }

 private:
  std::uint64_t count_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const weft::Application demo{
      .name = "weftd",
      .description = "a weft cluster node (the demo actors echo and counter)",
      .actors = {{.name = "echo", .make = [](const weft::ActorStart&) { return std::make_unique<Echo>(); }},
                 {.name = "counter", .make = [](const weft::ActorStart&) { return std::make_unique<Counter>(); }}},
  };
  return weft::daemon::main(argc, argv, demo);
}
