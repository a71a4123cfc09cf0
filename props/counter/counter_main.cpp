// The sharded counter, one source built twice (tools/CMakeLists.txt):
//
//   weft-counter-sim   weft::sim::main: the application in the simulator,
//                      under weft-sim's whole command line:
//                        weft-counter-sim sweep --seeds 1..200 --jobs 2
//                        weft-counter-sim mutations --seeds 1..40 --defect coalesce_same_instant
//                        weft-counter-sim run --seed 4 --json    # with each node's metrics
//   weft-counterd      weft::daemon::main (built with WEFT_DEPLOY): the same
//                      application on real sockets, weftd's whole node:
//                        weft-counterd --advertise=127.0.0.1:7001 --seed=127.0.0.1:7001
//
// The definition itself is counter_app.cpp; docs/own-actors.md walks
// through both.
#include "props/counter/counter_app.hpp"

#ifdef WEFT_DEPLOY
#include "daemon/daemon_main.hpp"

int main(int argc, char** argv) { return weft::daemon::main(argc, argv, weft::counter::application("weft-counterd")); }
#else
#include "sim_cli/sim_main.hpp"

int main(int argc, char** argv) { return weft::sim::main(argc, argv, weft::counter::application("weft-counter-sim")); }
#endif
