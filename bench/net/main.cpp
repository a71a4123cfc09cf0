// weft_bench_net: docs/benchmarks.md harnesses 2, 3, 5, 6 and 7 on real loopback
// TCP through weft::io::Node, each beside its raw-TCP baseline measured in
// the same run. bench/run drives it; by hand:
//
//   weft_bench_net tell|ask|scaling|stages|all [--quick] [--runs N] [--cpu C] [--json DIR]
//   weft_bench_net soak --seconds S [--interval I]
//   weft_bench_net smoke      # every harness briefly, soak 20 s: numbers, no speed asserted
//
// Tables go to stdout, progress to stderr. Exit 0 when every harness ran
// (and the soak passed), 1 when one failed, 2 on bad arguments, 3 when the
// watchdog fired.
#include <cstring>
#include <iostream>
#include <string>

#include "bench/net/common.hpp"

namespace {

using namespace weft::bench::net;

int usage() {
  std::cerr << "usage: weft_bench_net tell|ask|scaling|stages|all [--quick] [--runs N] [--cpu C] [--json DIR]\n"
               "         [--payload 64|1024|16384]   tell, stages: one payload (for profiling)\n"
               "         [--in-flight 1|4|16|64]     ask: one in-flight row, no latency runs (for profiling)\n"
               "       weft_bench_net soak --seconds S [--interval I] [--cpu C] [--json DIR]\n"
               "       weft_bench_net smoke [--json DIR]\n";
  return 2;
}

// Generous: the longest full harness (ask) takes about a minute.
unsigned watchdog_seconds(const std::string& what, const Options& options) {
  if (what == "soak") return static_cast<unsigned>(options.soak_seconds) + 120;
  return options.quick ? 120 : 900;
}

int run_one(const std::string& what, const Options& options) {
  arm_watchdog(watchdog_seconds(what, options), what.c_str());
  if (what == "tell") {
    run_tell(options);
  } else if (what == "ask") {
    run_ask(options);
  } else if (what == "scaling") {
    run_scaling(options);
  } else if (what == "stages") {
    run_stages(options);
  } else if (what == "soak") {
    return run_soak(options);
  }
  arm_watchdog(0, "");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "scaling-child") == 0) return run_scaling_child(argc, argv);
  if (argc < 2) return usage();
  const std::string what = argv[1];
  Options options;
  options.self_exe = argv[0];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    try {
      if (arg == "--quick") {
        options.quick = true;
      } else if (arg == "--runs") {
        options.runs = std::stoi(value());
      } else if (arg == "--cpu") {
        options.cpu = std::stoi(value());
      } else if (arg == "--payload") {
        options.only_payload = static_cast<std::size_t>(std::stoul(value()));
      } else if (arg == "--in-flight") {
        options.only_window = static_cast<std::uint32_t>(std::stoul(value()));
      } else if (arg == "--json") {
        options.json_dir = value();
      } else if (arg == "--seconds") {
        options.soak_seconds = std::stod(value());
      } else if (arg == "--interval") {
        options.soak_interval_seconds = std::stod(value());
      } else {
        std::cerr << "unknown argument " << arg << "\n";
        return usage();
      }
    } catch (const std::exception& e) {
      std::cerr << e.what() << "\n";
      return usage();
    }
  }
  if (options.runs < 1 || options.soak_seconds <= 0 || options.soak_interval_seconds <= 0) return usage();
  options.second_cpu = (options.cpu + 1) % cpu_count();
  std::vector<std::string> harnesses;
  // Smoke: each harness runs and prints numbers; a soak verdict is a speed
  // claim on a shared machine, so only a harness that errs fails it.
  const bool smoke = what == "smoke";
  if (smoke) {
    options.quick = true;
    options.runs = 1;
    options.soak_seconds = 20;
    options.soak_interval_seconds = 5;
    harnesses = {"tell", "ask", "scaling", "stages", "soak"};
  } else if (what == "all") {
    harnesses = {"tell", "ask", "scaling", "stages"};
  } else if (what == "tell" || what == "ask" || what == "scaling" || what == "stages" || what == "soak") {
    harnesses = {what};
  } else {
    return usage();
  }
  int status = 0;
  for (const auto& h : harnesses) {
    try {
      if (run_one(h, options) != 0 && !smoke) status = 1;
    } catch (const std::exception& e) {
      std::cerr << "weft_bench_net " << h << ": FAILED: " << e.what() << "\n";
      status = 1;
    }
  }
  return status;
}
