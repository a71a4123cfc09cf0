// weft_bench_net: docs/benchmarks.md harnesses 2, 3, 5, 6 and 7 on real loopback
// TCP through weft::io::Node, each beside its raw-TCP baseline measured in
// the same run. bench/run drives it; by hand:
//
//   weft_bench_net tell|ask|scaling|stages|all [--quick] [--runs N] [--cpu C] [--json DIR]
//   weft_bench_net soak --seconds S [--interval I]
//   weft_bench_net smoke      # every harness briefly, soak 20 s: correctness judged, no speed
//
// Tables go to stdout, progress to stderr, and last a verdict line naming
// each failure: `weft_bench_net WHAT: PASS|FAIL ...`. Exit 0 when every
// harness ran and the soak passed its judged criteria (smoke judges only
// its correctness ones: no suspicion, flat memory), 1 when one failed, 2 on
// bad arguments, 3 when the watchdog fired.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

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

// The harness's failures, one line each; a harness other than the soak
// fails only by throwing.
std::vector<std::string> run_one(const std::string& what, const Options& options) {
  arm_watchdog(watchdog_seconds(what, options), what.c_str());
  std::vector<std::string> failures;
  if (what == "tell") {
    run_tell(options);
  } else if (what == "ask") {
    run_ask(options);
  } else if (what == "scaling") {
    run_scaling(options);
  } else if (what == "stages") {
    run_stages(options);
  } else if (what == "soak") {
    failures = run_soak(options);
  }
  arm_watchdog(0, "");
  return failures;
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
  // Smoke: each harness runs and prints numbers. It fails if one errs, or
  // if the soak sees a suspicion or growing memory, which no machine's load
  // excuses; the soak's throughput and latency are speed claims on a shared
  // machine, reported and not judged (docs/benchmarks.md).
  if (what == "smoke") {
    options.quick = true;
    options.judge_speed = false;
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
  const std::int64_t start = now_ns();
  std::vector<std::string> failures;
  for (const auto& h : harnesses) {
    try {
      for (const auto& f : run_one(h, options)) failures.push_back(h + " " + f);
    } catch (const std::exception& e) {
      std::cerr << "weft_bench_net " << h << ": FAILED: " << e.what() << "\n";
      failures.push_back(h + " erred: " + e.what());
    }
  }
  std::string line = "weft_bench_net " + what + ": " + (failures.empty() ? "PASS" : "FAIL") + " in " +
                     fmt_fixed(static_cast<double>(now_ns() - start) / 1e9, 1) + " s";
  if (failures.empty()) {
    line += ", ran";
    for (const auto& h : harnesses) line += " " + h;
    if (!options.judge_speed) line += "; the soak's correctness held (speed reported above, not judged)";
  }
  for (const auto& f : failures) line += "; " + f;
  progress(line);
  return failures.empty() ? 0 : 1;
}
