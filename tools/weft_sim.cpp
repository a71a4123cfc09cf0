// weft-sim: run, replay and sweep deterministic simulations of a weft
// cluster. Every run prints its seed and options first, then the scenario,
// the membership timeline, the property verdicts and the trace hash; a
// failing run prints the one command that replays it.
//
// Exit codes: 0 pass, 10 safety failure, 20 liveness failure; a kernel
// assertion aborts the process (SIGABRT, 134 from a shell).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <array>
#include <map>
#include <string>

#include "sim/scenario.hpp"

namespace {

struct RunOptions {
  std::uint64_t seed = 42;
  std::size_t nodes = 5;
  std::int64_t chaos_seconds = 30;
  std::string trace_file;
  bool quiet = false;
};

std::string command_line(const RunOptions& o) {
  return "weft-sim replay --seed " + std::to_string(o.seed) + " --nodes " + std::to_string(o.nodes) +
         " --chaos " + std::to_string(o.chaos_seconds);
}

double seconds_since_start(weft::Instant at) {
  return static_cast<double>((at - weft::Instant::from_ns(1'000'000'000)).ns()) / 1e9;
}

int run_one(const RunOptions& o, const char* verb) {
  std::printf("weft-sim %s --seed %llu --nodes %zu --chaos %lld\n", verb,
              static_cast<unsigned long long>(o.seed), o.nodes, static_cast<long long>(o.chaos_seconds));
  const weft::sim::Scenario scenario =
      weft::sim::generate(o.seed, o.nodes, weft::Duration::seconds(o.chaos_seconds));
  std::printf("\nscenario:\n%s", scenario.to_text().c_str());

  std::ofstream trace;
  if (!o.trace_file.empty()) {
    trace.open(o.trace_file);
    if (!trace) {
      std::fprintf(stderr, "weft-sim: cannot write --trace %s\n", o.trace_file.c_str());
      return 2;
    }
  }
  const weft::sim::RunResult result = weft::sim::run(scenario, [&](const weft::sim::TraceLine& line) {
    if (!trace.is_open()) return;
    std::string text;
    for (char c : line.text) {
      if (c == '"' || c == '\\') text += '\\';
      text += c;
    }
    trace << "{\"t_ns\":" << (line.at - weft::Instant::from_ns(1'000'000'000)).ns() << ",\"node\":" << line.node
          << ",\"event\":\"" << text << "\"}\n";
  });

  if (!o.quiet) {
    std::printf("\ntimeline (virtual seconds, node, event):\n");
    for (const weft::sim::TraceLine& line : result.timeline) {
      std::printf("  %9.3f  %s  %s\n", seconds_since_start(line.at),
                  line.node == 0 ? "sim" : ("n" + std::to_string(line.node)).c_str(), line.text.c_str());
    }
  }
  std::printf("\nverdicts:\n");
  std::printf("  safety (M2, M3) during chaos: %s\n",
              result.verdict == weft::sim::Verdict::safety_failure ? "FAIL" : "pass");
  std::printf("  liveness (M4, M5, F1) after heal: %s\n",
              result.verdict == weft::sim::Verdict::liveness_failure ? "FAIL"
              : result.verdict == weft::sim::Verdict::pass         ? "pass"
                                                                   : "not reached");
  for (const std::string& failure : result.failures) std::printf("  %s\n", failure.c_str());
  if (result.verdict != weft::sim::Verdict::pass) {
    std::printf("\nfinal views:\n");
    for (const std::string& view : result.final_views) std::printf("  %s\n", view.c_str());
  }
  std::printf("events: %llu\ntrace hash: %016llx\n", static_cast<unsigned long long>(result.events),
              static_cast<unsigned long long>(result.trace_hash));
  if (result.verdict != weft::sim::Verdict::pass) std::printf("replay: %s\n", command_line(o).c_str());
  return static_cast<int>(result.verdict);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft-sim: deterministic simulation of a weft cluster"};
  app.require_subcommand(1);
  RunOptions options;
  const auto add_run_options = [&](CLI::App* sub) {
    sub->add_option("--seed", options.seed, "root seed; every random choice derives from it")->capture_default_str();
    sub->add_option("--nodes", options.nodes, "cluster size")->check(CLI::Range(2, 1000))->capture_default_str();
    sub->add_option("--chaos", options.chaos_seconds, "seconds of the chaos phase")
        ->check(CLI::Range(10, 3600))
        ->capture_default_str();
    sub->add_option("--trace", options.trace_file, "write every trace event as JSON lines to FILE");
    sub->add_flag("--quiet", options.quiet, "no timeline");
  };
  CLI::App* run = app.add_subcommand("run", "run one seed");
  add_run_options(run);
  CLI::App* replay = app.add_subcommand("replay", "rerun exactly what a failure printed");
  add_run_options(replay);

  std::string range = "1..100";
  CLI::App* sweep = app.add_subcommand("sweep", "run many seeds and summarise failures");
  sweep->add_option("--seeds", range, "A..B, inclusive")->capture_default_str();
  sweep->add_option("--nodes", options.nodes, "cluster size")->check(CLI::Range(2, 1000))->capture_default_str();
  sweep->add_option("--chaos", options.chaos_seconds, "seconds of the chaos phase")
      ->check(CLI::Range(10, 3600))
      ->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  if (*run) return run_one(options, "run");
  if (*replay) return run_one(options, "replay");

  const auto dots = range.find("..");
  if (dots == std::string::npos) {
    std::fprintf(stderr, "weft-sim sweep: --seeds must be A..B, e.g. --seeds 1..1000 (got %s)\n", range.c_str());
    return 2;
  }
  const std::uint64_t first = std::stoull(range.substr(0, dots));
  const std::uint64_t last = std::stoull(range.substr(dots + 2));
  std::printf("weft-sim sweep --seeds %llu..%llu --nodes %zu --chaos %lld\n",
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(last), options.nodes,
              static_cast<long long>(options.chaos_seconds));
  std::uint64_t passed = 0;
  std::uint64_t failed = 0;
  std::array<std::uint64_t, weft::kMarkCount> mark_totals{};
  std::array<std::uint64_t, weft::kMarkCount> mark_seeds{};
  for (std::uint64_t seed = first; seed <= last; ++seed) {
    options.seed = seed;
    const weft::sim::Scenario scenario =
        weft::sim::generate(seed, options.nodes, weft::Duration::seconds(options.chaos_seconds));
    const weft::sim::RunResult result = weft::sim::run(scenario);
    for (std::size_t m = 0; m < weft::kMarkCount; ++m) {
      mark_totals[m] += result.marks[m];
      if (result.marks[m] > 0) ++mark_seeds[m];
    }
    if (result.verdict == weft::sim::Verdict::pass) {
      ++passed;
      continue;
    }
    ++failed;
    std::printf("FAIL seed %llu: %s\n  replay: %s\n", static_cast<unsigned long long>(seed),
                result.failures.empty() ? "?" : result.failures.front().c_str(), command_line(options).c_str());
  }
  std::printf("coverage marks (seeds that hit it, total hits):\n");
  for (std::size_t m = 0; m < weft::kMarkCount; ++m) {
    std::printf("  %-24s %8llu %10llu\n", std::string(weft::to_string(static_cast<weft::Mark>(m))).c_str(),
                static_cast<unsigned long long>(mark_seeds[m]), static_cast<unsigned long long>(mark_totals[m]));
  }
  std::printf("sweep: %llu passed, %llu failed\n", static_cast<unsigned long long>(passed),
              static_cast<unsigned long long>(failed));
  return failed == 0 ? 0 : 1;
}
