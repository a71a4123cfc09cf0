// The counter entities as an application (app/application.hpp), defined
// once for both hosts: the "counter" kind's region on every node, the
// region's planted defects, and the workload that drives it in simulation.
// entities_main.cpp hands it to weft::sim::main (weft-entities-sim) or
// weft::daemon::main (weft-entitiesd).
#pragma once

#include <string>

#include "app/application.hpp"

namespace weft::entities {

Application application(std::string program);

}  // namespace weft::entities
