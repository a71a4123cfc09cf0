#include "props/counter/counter_app.hpp"

#include <memory>

#include "props/counter/counter_actor.hpp"
#include "props/counter/counter_workload.hpp"

namespace weft::counter {

Application application(std::string program) {
  return Application{
      .name = std::move(program),
      .description = "the sharded counter of docs/own-actors.md",
      .actors = {{.name = std::string(kShardName),
                  .make =
                      [](const ActorStart& start) {
                        const Flaw flaw = start.planted_defect("coalesce_same_instant") ? Flaw::coalesce_same_instant
                                                                                        : Flaw::none;
                        return std::make_unique<CounterShard>(flaw, &start.metrics);
                      }}},
      .defects = {{.name = "coalesce_same_instant",
                   .property = "COUNTER",
                   .branch = "increments were acknowledged"}},
      .workloads = {{.name = "counter",
                     .description = "increments and reads by ask from every node",
                     .make = [](std::uint64_t, std::span<const std::string>) {
                       return std::make_unique<CounterWorkload>();
                     }}},
  };
}

}  // namespace weft::counter
