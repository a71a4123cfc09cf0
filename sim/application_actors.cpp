#include "sim/application_actors.hpp"

#include <utility>

namespace weft::sim {

ApplicationActors::ApplicationActors(const Application& app, std::vector<std::string> planted)
    : app_(app), planted_(std::move(planted)) {}

void ApplicationActors::on_start(std::size_t node, Kernel& kernel, Instant now) {
  while (metrics_.size() < node) metrics_.push_back(std::make_unique<Metrics>());
  Metrics& metrics = *metrics_[node - 1];
  // A gauge says how things stand now: a new life starts from zero, where
  // counters and histograms add up over the run.
  metrics.zero_gauges();
  const ActorStart start{.metrics = metrics, .planted = planted_, .seeds = kernel.config().seeds};
  for (const ActorKind& kind : app_.actors) {
    std::string problem;
    std::unique_ptr<Behavior> behavior = make_actor(kind, start, problem);
    if (behavior == nullptr) {
      problems_.push_back("APPLICATION: " + problem + " (node " + std::to_string(node) + ")");
      continue;
    }
    kernel.spawn(now, kind.name, std::move(behavior));
  }
}

void ApplicationActors::check(const Simulator&, std::vector<std::string>& failures) {
  failures.insert(failures.end(), problems_.begin(), problems_.end());
  problems_.clear();
}

const Metrics& ApplicationActors::metrics(std::size_t node) const {
  static const Metrics none;
  return node >= 1 && node <= metrics_.size() ? *metrics_[node - 1] : none;
}

}  // namespace weft::sim
