#include "bench/net/common.hpp"
namespace weft::bench::net {
int run_soak(const Options&) { return 0; }
}
