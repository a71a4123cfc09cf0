#include "props/entities/entities_app.hpp"

#include <memory>

#include "props/entities/entities_workload.hpp"
#include "props/entities/entity_counter.hpp"
#include "shard/region_actor.hpp"

namespace weft::entities {

Application application(std::string program) {
  return Application{
      .name = std::move(program),
      .description = "the sharded counter as entities addressed by key (docs/sharding.md)",
      .actors = {shard::region_actor(counter_kind()), shard::region_actor(counter_kind(shard::Consistency::majority))},
      .defects = shard::region_defects(),
      .workloads = {{.name = "entities",
                     .description = "Adds and Gets by entity key from every node",
                     .make = [](std::uint64_t, std::span<const std::string>) {
                       return std::make_unique<EntitiesWorkload>();
                     }},
                    {.name = "entities_majority",
                     .description = "the same, to the counter in the majority mode, with SHARD2",
                     .make = [](std::uint64_t, std::span<const std::string>) {
                       return std::make_unique<EntitiesWorkload>(
                           EntitiesWorkloadOptions{.consistency = shard::Consistency::majority});
                     }}},
  };
}

}  // namespace weft::entities
