// The counter as an application (app/application.hpp), defined once for
// both hosts: its shard on every node (with its metrics, and the flaw
// planted when a run asks for it), the defect, and the workload whose
// clients drive it in simulation. counter_main.cpp hands it to
// weft::sim::main (weft-counter-sim) or weft::daemon::main (weft-counterd).
#pragma once

#include <string>

#include "app/application.hpp"

namespace weft::counter {

// `program` names the binary in its help and messages.
Application application(std::string program);

}  // namespace weft::counter
