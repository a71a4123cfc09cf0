#include "app/application.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "kernel/wire/refs.hpp"

namespace weft {

bool ActorStart::planted_defect(std::string_view defect) const {
  return std::find(planted.begin(), planted.end(), defect) != planted.end();
}

namespace {

// `what` i (1-based) under `name`, for a message.
std::string named(const char* what, std::size_t i, const std::string& name) {
  return name.empty() ? std::string(what) + " " + std::to_string(i + 1) : std::string(what) + " \"" + name + "\"";
}

}  // namespace

std::vector<std::string> application_problems(const Application& app) {
  std::vector<std::string> problems;
  if (app.name.empty()) problems.push_back("the application has no name (Application::name names the program)");
  std::set<std::string> names;
  for (std::size_t i = 0; i < app.actors.size(); ++i) {
    const ActorKind& kind = app.actors[i];
    const std::string which = named("actor kind", i, kind.name);
    if (kind.name.empty()) problems.push_back(which + " has no name");
    if (kind.name.size() > wire::kMaxActorNameBytes) {
      problems.push_back(which + ": a name is at most " + std::to_string(wire::kMaxActorNameBytes) + " bytes");
    }
    if (!kind.make) problems.push_back(which + " has no factory (ActorKind::make)");
    if (!kind.name.empty() && !names.insert(kind.name).second) {
      problems.push_back(which + " is defined twice: every node spawns one actor of each name");
    }
  }
  std::set<std::string> defects;
  for (std::size_t i = 0; i < app.defects.size(); ++i) {
    const PlantedDefect& d = app.defects[i];
    const std::string which = named("defect", i, d.name);
    if (d.name.empty()) problems.push_back(which + " has no name (--defect NAME)");
    if (d.property.empty()) problems.push_back(which + " names no property (the failure line that catches it)");
    if (!d.name.empty() && !defects.insert(d.name).second) problems.push_back(which + " is defined twice");
  }
  std::set<std::string> workloads;
  for (std::size_t i = 0; i < app.workloads.size(); ++i) {
    const WorkloadKind& w = app.workloads[i];
    const std::string which = named("workload", i, w.name);
    if (w.name.empty()) problems.push_back(which + " has no name (--workload NAME)");
    if (!w.make) problems.push_back(which + " has no factory (WorkloadKind::make)");
    if (!w.name.empty() && !workloads.insert(w.name).second) problems.push_back(which + " is defined twice");
  }
  return problems;
}

std::unique_ptr<Behavior> make_actor(const ActorKind& kind, const ActorStart& start, std::string& error) {
  try {
    std::unique_ptr<Behavior> behavior = kind.make(start);
    if (behavior == nullptr) {
      error = "actor kind \"" + kind.name + "\": its factory made no behavior";
      return nullptr;
    }
    if (auto* exports = dynamic_cast<ExportsMetrics*>(behavior.get())) exports->export_metrics(start.metrics, kind.name);
    return behavior;
  } catch (const std::invalid_argument& e) {
    error = "actor kind \"" + kind.name + "\": " + e.what();
    return nullptr;
  }
}

}  // namespace weft
