// An entity kind as an actor every node spawns (app/application.hpp): its
// region, under the name shard.<kind>, with the region's planted defects
// (`--defect shard_keep_moved`, ...) applied when a simulated run asks for
// them. An application lists region_actor(kind) among its actors and, to
// let `mutations` sweep them, region_defects() among its defects.
#pragma once

#include <vector>

#include "app/application.hpp"
#include "shard/entity.hpp"

namespace weft::shard {

ActorKind region_actor(EntityKind kind);

// The region's defects by name, each with the property that must catch it
// (the names a workload over regions reports: props/entities).
std::vector<PlantedDefect> region_defects();

}  // namespace weft::shard
