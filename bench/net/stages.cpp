#include "bench/net/common.hpp"
namespace weft::bench::net {
void run_stages(const Options&) {}
}
