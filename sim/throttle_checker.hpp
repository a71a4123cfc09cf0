// F5a, spacing (docs/properties.md): the liveness throttle passes at most one
// observation per monitored peer per liveness_window, however much arrives.
// Judged from each detector's own sample history: every interval it
// recorded is at least liveness_window long (the first observation of
// monitoring passes the throttle too, and an interval starting at a
// forgiven silence is not recorded). No counter kept beside the throttle is
// trusted. F5b, coverage (every frame has a passed observation within the
// window), is judged by props/detection_props.cpp, on the throttle alone.
//
// Judged: "F5 intervals" (detector intervals checked against the window).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/checkers.hpp"

namespace weft::sim {

class ThrottleSpacing {
 public:
  explicit ThrottleSpacing(std::size_t nodes, Judged* judged = nullptr);
  // One live node's detectors of the subjects it monitors; the first
  // interval too short is reported.
  void check(std::size_t node, const Kernel& kernel, std::span<const MemberId> monitored,
             std::vector<std::string>& failures);

 private:
  Judged* judged_;
  // Per (node, life, subject): the detector's intervals_recorded() when last
  // checked; only the intervals recorded since are checked again.
  std::vector<std::map<std::pair<std::uint64_t, MemberId>, std::uint64_t>> intervals_seen_;  // [node][(life, subject)]
};

}  // namespace weft::sim
