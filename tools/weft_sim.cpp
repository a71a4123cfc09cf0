// weft-sim: run, replay and sweep deterministic simulations of a weft
// cluster (docs/simulation.md). The command line lives in sim_cli/sim_main.*,
// so a user's own binary gets it whole for its own application; weft-sim
// passes none: the simulator's own traffic and checkers only.
#include "sim_cli/sim_main.hpp"

int main(int argc, char** argv) { return weft::sim::main(argc, argv); }
