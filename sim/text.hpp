// Report lines for the simulator's checkers and runs.
#pragma once

#include <cstddef>
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

// "n3": how reports name node 3. Appended piece by piece, as cat() does.
inline std::string node_name(std::size_t node) {
  std::string name = "n";
  name += std::to_string(node);
  return name;
}

}  // namespace weft::sim
