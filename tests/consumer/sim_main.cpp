// The consumer's own simulator binary: its echo workload, and the defect it
// can plant, under weft-sim's whole command line (weft::sim_main). The
// consumer test sweeps it, and replays a planted failure from the command
// the sweep printed.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "echo_workload.hpp"
#include "sim_cli/sim_main.hpp"

int main(int argc, char** argv) {
  const weft::Application echo{
      .name = "consumer-sim",
      .description = "the consumer's echo",
      .defects = {{.name = "garble", .property = "ECHO", .branch = "came back altered"}},
      .workloads = {{.name = "echo",
                     .description = "asks numbered bodies of every node's echo; each reply must be what was sent",
                     .make = [](std::uint64_t, std::span<const std::string> planted) {
                       return std::make_unique<consumer::EchoWorkload>(!planted.empty());
                     }}},
  };
  return weft::sim::main(argc, argv, echo);
}
