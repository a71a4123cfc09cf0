// The counter entities, one source built twice (tools/CMakeLists.txt):
//
//   weft-entities-sim  weft::sim::main: the application in the simulator:
//                        weft-entities-sim sweep --seeds 1..200 --jobs 2
//                        weft-entities-sim mutations --seeds 1..200 --jobs 2
//   weft-entitiesd     weft::daemon::main (built with WEFT_DEPLOY): the same
//                      regions and entities on real sockets.
#include "props/entities/entities_app.hpp"

#ifdef WEFT_DEPLOY
#include "daemon/daemon_main.hpp"

int main(int argc, char** argv) {
  return weft::daemon::main(argc, argv, weft::entities::application("weft-entitiesd"));
}
#else
#include "sim_cli/sim_main.hpp"

int main(int argc, char** argv) {
  return weft::sim::main(argc, argv, weft::entities::application("weft-entities-sim"));
}
#endif
