// Near misses that check_kernel_purity.sh must not report: std::thread,
// steady_clock::now(), getenv("HOME"), fopen and std::hash<std::string> in
// a comment.
/* A block comment naming std::random_device
 * and system("ls") on its continuation lines. */
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernel/prng.hpp"  // draws come from here, not <random>
#include "kernel/time.hpp"

namespace weft {

std::uint64_t runtime(Instant now, Prng& prng, Link& link, Kernel* kernel, std::vector<int>& v) {
  const Duration time_since_start = now - Instant::epoch();
  const std::uint64_t exit_code = prng.below(10);
  link.connect(now);
  link.close();
  kernel->send(now);
  kernel->time();
  v.erase(std::remove(v.begin(), v.end(), 0), v.end());
  random_walk(prng);
  my_rand(3);
  handle_tick(now);
  return exit_code + static_cast<std::uint64_t>(time_since_start.ns()) + static_cast<std::uint64_t>(std::abs(-1));
}

}  // namespace weft
