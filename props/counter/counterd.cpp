// weft-counterd: the sharded counter (props/counter) deployed on real
// sockets. The shard weft-counter-sim simulates is the shard this node
// hosts, unchanged: the application below is the whole program, and
// weft::daemon::main (daemon/daemon_main.hpp) gives it weftd's node
// (flags over TOML, key files and TLS, the admin and metrics endpoint,
// a graceful leave on SIGTERM). docs/own-actors.md, "Deploy it":
//
//   weft-counterd --advertise=127.0.0.1:7001 --seed=127.0.0.1:7001
//
// A client asks host:port/counter with the typed protocol of
// counter_actor.hpp (Increment{key} under tag 1 is acknowledged with
// Value{key, count} under tag 3).
#include <memory>

#include "daemon/daemon_main.hpp"
#include "props/counter/counter_actor.hpp"

int main(int argc, char** argv) {
  const weft::daemon::Application counter{
      .name = "weft-counterd",
      .description = "the sharded counter of docs/own-actors.md on a weft node",
      .actors = {{.name = std::string(weft::counter::kShardName),
                  .make = [] { return std::make_unique<weft::counter::CounterShard>(); }}},
  };
  return weft::daemon::main(argc, argv, counter);
}
