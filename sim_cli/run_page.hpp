// weft-sim --html: one self-contained HTML page that pictures a run. The
// run's data (sim/recorder.hpp's RunPicture, the scenario's faults, the
// failures) sits in the page as JSON; an inline script draws it as SVG: a
// lane per node with its view of every member, the faults as intervals, the
// message and ask rates, and a marker per failure with its replay command.
// No network: no external script, style sheet, font or image.
//
// The page is an output only: it is made after the run from what the run
// recorded, and holds no wall-clock time, so the same run makes the same
// page, byte for byte.
#pragma once

#include <string>

#include "sim/recorder.hpp"
#include "sim/scenario.hpp"

namespace weft::sim_cli {

struct RunPageInput {
  std::string command;  // the command line that made the run
  std::string replay;   // the command that replays it
  const sim::Scenario* scenario = nullptr;
  const sim::RunResult* result = nullptr;
  const sim::RunPicture* picture = nullptr;
};

std::string render_run_page(const RunPageInput& input);

}  // namespace weft::sim_cli
