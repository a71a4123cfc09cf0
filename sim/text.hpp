// Report lines for the simulator's checkers and runs.
#pragma once

#include <string>
#include <string_view>

namespace weft::sim {

// Joins text by appending. Not operator+: `"x" + std::string` (prepending
// into the temporary) draws a false -Wrestrict from gcc 12 at -O3 (GCC bug
// 105329), at whichever call the optimiser happens to inline.
template <class... Pieces>
std::string cat(const Pieces&... pieces) {
  std::string out;
  (out.append(std::string_view(pieces)), ...);
  return out;
}

}  // namespace weft::sim
