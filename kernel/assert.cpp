// Where a failed WEFT_ASSERT ends: the expression and its place on stderr,
// then abort().
#include "kernel/assert.hpp"

#include <cstdio>
#include <cstdlib>

namespace weft {

void assert_failed(const char* expression, const char* file, int line) noexcept {
  std::fprintf(stderr, "weft: assertion failed: %s (%s:%d)\n", expression, file, line);
  std::fflush(stderr);
  std::abort();
}

}  // namespace weft
