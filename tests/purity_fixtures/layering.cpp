#include "kernel/kernel.hpp"
#include "io/tcp_driver.hpp"  // expect: layering
#include "sim/simulator.hpp"  // expect: layering
#include "tools/sweep_pool.hpp"  // expect: layering
#include <spdlog/spdlog.h>  // expect: layering
#include <fmt/core.h>  // expect: layering
