// weft-counter-sim: the sharded counter (props/counter) under the whole
// weft-sim command line. This is the path docs/own-actors.md has a user
// follow: register the workload and the defects it can plant, and the binary
// runs, replays, sweeps (--jobs, --shard), draws (--html) and checks that
// each planted defect is caught (`mutations`), printing on every failure the
// one command that replays it:
//
//   weft-counter-sim sweep --seeds 1..200 --jobs 2
//   weft-counter-sim mutations --seeds 1..40 --defect coalesce_same_instant
//   weft-counter-sim replay --seed 4 --nodes 5 --chaos 30 --defect coalesce_same_instant
#include <memory>

#include "props/counter/counter_workload.hpp"
#include "tools/sim_main.hpp"

int main(int argc, char** argv) {
  const weft::sim::UserWorkload counter{
      .name = "counter",
      .description = "a sharded counter: increments and reads by ask from every node",
      .defects = {{.name = "coalesce_same_instant",
                   .property = "COUNTER",
                   .branch = "increments were acknowledged"}},
      .make =
          [](std::uint64_t, const std::vector<std::string>& planted) {
            weft::counter::CounterWorkloadOptions options;
            if (!planted.empty()) options.flaw = weft::counter::Flaw::coalesce_same_instant;
            return std::make_unique<weft::counter::CounterWorkload>(options);
          },
  };
  return weft::sim::main(argc, argv, {&counter, 1});
}
