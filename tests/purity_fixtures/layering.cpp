#include "kernel/kernel.hpp"
#include "io/tcp_driver.hpp"  // expect: layering
#include "sim/simulator.hpp"  // expect: layering
#include "sim_cli/sweep_pool.hpp"  // expect: layering
#include "tools/weftd.cpp"  // expect: layering
#include "app/application.hpp"  // expect: layering
#include "daemon/daemon_main.hpp"  // expect: layering
#include <spdlog/spdlog.h>  // expect: layering
#include <fmt/core.h>  // expect: layering
