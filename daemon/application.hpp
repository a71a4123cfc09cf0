// An application on weft, as the daemon hosts it: the actors every node
// spawns at start, each under its name. A program passes one to
// weft::daemon::main (daemon/daemon_main.hpp) and gets a whole node: flags
// over TOML, every Config knob, --check-config, key files and TLS with
// reload on SIGHUP, logging, the admin and metrics endpoint, and a graceful
// leave on SIGTERM. weftd is that main with the demo application (echo and
// counter, tools/weftd.cpp); docs/own-actors.md shows one of a user's own.
//
// A plain value: nothing registers itself behind the program's back, and a
// definition the daemon cannot host (a kind without a name or a factory, two
// kinds under one name) is refused at start with the kind named
// (application_problems).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernel/actors/behavior.hpp"

namespace weft::daemon {

// One actor every node spawns at start, addressable as host:port/name.
struct ActorKind {
  std::string name;
  // A fresh behavior for this node's actor; called once per start.
  std::function<std::unique_ptr<Behavior>()> make;
};

struct Application {
  std::string name;         // the program's name in its help and messages, e.g. "weftd"
  std::string description;  // one line for --help
  std::vector<ActorKind> actors;
};

// What makes `app` unhostable, one line each naming the kind; empty if none.
std::vector<std::string> application_problems(const Application& app);

}  // namespace weft::daemon
