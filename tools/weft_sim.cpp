// weft-sim: run, replay and sweep deterministic simulations of a weft
// cluster. Every run prints its seed and options first, then the scenario,
// the membership timeline, the property verdicts and the trace hash; a
// failing run prints the one command that replays it.
//
// Exit codes: 0 pass, 10 safety failure, 20 liveness failure, 30 a required
// coverage mark was not hit, 2 bad arguments; a kernel assertion aborts the
// process (SIGABRT, 134 from a shell). sweep exits 1 if any seed failed.
#include <CLI/CLI.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/scenario.hpp"
#include "tools/sweep_pool.hpp"

namespace {

using weft::Duration;
using weft::sim::Scenario;
using weft::sim::Verdict;

struct Options {
  std::uint64_t seed = 42;
  std::size_t nodes = 5;
  std::int64_t chaos_seconds = 30;
  std::vector<std::string> mutations;
  std::vector<std::string> required_marks;
  std::string scenario_file;
  std::string trace_file;
  bool quiet = false;
  // sweep
  std::string seeds = "1..100";
  unsigned jobs = 1;
  std::string shard = "1/1";
};

std::string flags(const Options& o) {
  std::string text;
  for (const std::string& m : o.mutations) text += " --mutation " + m;
  for (const std::string& m : o.required_marks) text += " --require " + m;
  return text;
}

std::string replay_command(const Options& o, std::uint64_t seed) {
  if (!o.scenario_file.empty()) return "weft-sim replay --scenario " + o.scenario_file;
  return "weft-sim replay --seed " + std::to_string(seed) + " --nodes " + std::to_string(o.nodes) + " --chaos " +
         std::to_string(o.chaos_seconds) + flags(o);
}

// The planted defects sim/ knows, joined by `separator`.
std::string mutation_list(std::string_view separator) {
  std::string names;
  for (std::string_view n : weft::sim::mutation_names()) {
    if (!names.empty()) names += separator;
    names += n;
  }
  return names;
}

// The scenario the options name: a file, or one generated from the seed,
// with the mutations and required marks of the command line added.
std::optional<Scenario> make_scenario(const Options& o, std::uint64_t seed, std::string& error) {
  Scenario scenario;
  if (!o.scenario_file.empty()) {
    std::ifstream in(o.scenario_file);
    if (!in) {
      error = "cannot read --scenario " + o.scenario_file;
      return std::nullopt;
    }
    std::stringstream text;
    text << in.rdbuf();
    weft::sim::ParsedScenario parsed = weft::sim::parse_scenario(text.str());
    if (!parsed.scenario) {
      error = o.scenario_file + ": " + parsed.error;
      return std::nullopt;
    }
    scenario = std::move(*parsed.scenario);
  } else {
    scenario = weft::sim::generate(seed, o.nodes, Duration::seconds(o.chaos_seconds));
  }
  for (const std::string& name : o.mutations) {
    if (!weft::sim::set_mutation(scenario.mutations, name)) {
      error = "--mutation " + name + " is not a mutation; choose one of: " + mutation_list(" ");
      return std::nullopt;
    }
  }
  for (const std::string& name : o.required_marks) {
    const std::optional<weft::Mark> mark = weft::mark_from_string(name);
    if (!mark) {
      std::string names;
      for (std::size_t m = 0; m < weft::kMarkCount; ++m) {
        names += " " + std::string(weft::to_string(static_cast<weft::Mark>(m)));
      }
      error = "--require " + name + " is not a coverage mark; choose one of:" + names;
      return std::nullopt;
    }
    scenario.required_marks.push_back(*mark);
  }
  return scenario;
}

double seconds_since_start(weft::Instant at) {
  return static_cast<double>((at - weft::sim::Simulator::kStart).ns()) / 1e9;
}

const char* verdict_text(Verdict v, Verdict failing) {
  if (v == failing) return "FAIL";
  if (v == Verdict::pass) return "pass";
  return static_cast<int>(v) < static_cast<int>(failing) ? "not reached" : "pass";
}

int run_one(const Options& o, const char* verb) {
  if (o.scenario_file.empty()) {
    std::printf("weft-sim %s --seed %llu --nodes %zu --chaos %lld%s\n", verb,
                static_cast<unsigned long long>(o.seed), o.nodes, static_cast<long long>(o.chaos_seconds),
                flags(o).c_str());
  } else {
    std::printf("weft-sim %s --scenario %s%s\n", verb, o.scenario_file.c_str(), flags(o).c_str());
  }
  std::string error;
  const std::optional<Scenario> scenario = make_scenario(o, o.seed, error);
  if (!scenario) {
    std::fprintf(stderr, "weft-sim: %s\n", error.c_str());
    return 2;
  }
  std::printf("\nscenario:\n%s", scenario->to_text().c_str());

  std::ofstream trace;
  if (!o.trace_file.empty()) {
    trace.open(o.trace_file);
    if (!trace) {
      std::fprintf(stderr, "weft-sim: cannot write --trace %s\n", o.trace_file.c_str());
      return 2;
    }
  }
  const weft::sim::RunResult result = weft::sim::run(*scenario, [&](const weft::sim::TraceLine& line) {
    if (!trace.is_open()) return;
    std::string text;
    for (char c : line.text) {
      if (c == '"' || c == '\\') text += '\\';
      text += c;
    }
    trace << "{\"t_ns\":" << (line.at - weft::sim::Simulator::kStart).ns() << ",\"node\":" << line.node
          << ",\"event\":\"" << text << "\"}\n";
  });

  if (!o.quiet) {
    std::printf("\ntimeline (virtual seconds, node, event):\n");
    for (const weft::sim::TraceLine& line : result.timeline) {
      std::printf("  %9.3f  %s  %s\n", seconds_since_start(line.at),
                  line.node == 0 ? "sim" : ("n" + std::to_string(line.node)).c_str(), line.text.c_str());
    }
  }
  std::printf("\n");
  for (const std::string& summary : result.summaries) std::printf("%s\n", summary.c_str());
  std::printf("\nverdicts:\n");
  std::printf("  safety (M2 M3 F2 F3 F4 F5 S1 S2 S4), checked every 100 ms: %s\n",
              verdict_text(result.verdict, Verdict::safety_failure));
  std::printf("  liveness (M4 M5 F1) after the heal: %s", verdict_text(result.verdict, Verdict::liveness_failure));
  if (result.healed_after) std::printf(" (one view %.3f s after the heal)", static_cast<double>(result.healed_after->ms()) / 1e3);
  std::printf("\n");
  if (!scenario->required_marks.empty()) {
    std::printf("  required coverage marks: %s\n", verdict_text(result.verdict, Verdict::coverage_failure));
  }
  for (const std::string& failure : result.failures) std::printf("  %s\n", failure.c_str());
  if (result.verdict != Verdict::pass) {
    std::printf("\nfinal views:\n");
    for (const std::string& view : result.final_views) std::printf("  %s\n", view.c_str());
  }
  std::printf("events: %llu\ntrace hash: %016llx\n", static_cast<unsigned long long>(result.events),
              static_cast<unsigned long long>(result.trace_hash));
  if (result.verdict != Verdict::pass) std::printf("replay: %s\n", replay_command(o, o.seed).c_str());
  return static_cast<int>(result.verdict);
}

int sweep(const Options& o) {
  const auto range = weft::tools::parse_seed_range(o.seeds);
  if (const auto* error = std::get_if<std::string>(&range)) {
    std::fprintf(stderr, "weft-sim sweep: %s\n", error->c_str());
    return 2;
  }
  const auto shard = weft::tools::parse_shard(o.shard);
  if (const auto* error = std::get_if<std::string>(&shard)) {
    std::fprintf(stderr, "weft-sim sweep: %s\n", error->c_str());
    return 2;
  }
  const auto [first, last] = std::get<weft::tools::SeedRange>(range);
  const weft::tools::Shard part = std::get<weft::tools::Shard>(shard);
  std::string error;
  if (!make_scenario(o, first, error)) {  // check the flags once, before any fork
    std::fprintf(stderr, "weft-sim sweep: %s\n", error.c_str());
    return 2;
  }
  std::printf("weft-sim sweep --seeds %llu..%llu --nodes %zu --chaos %lld%s --jobs %u --shard %u/%u\n",
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(last), o.nodes,
              static_cast<long long>(o.chaos_seconds), flags(o).c_str(), o.jobs, part.index, part.count);
  std::fflush(stdout);
  const std::vector<std::uint64_t> seeds = weft::tools::shard_seeds(first, last, part);
  const std::vector<weft::tools::SeedOutcome> outcomes =
      weft::tools::run_seeds(seeds, o.jobs, [&](std::uint64_t seed) {
        std::string unused;
        const weft::sim::RunResult result = weft::sim::run(*make_scenario(o, seed, unused));
        weft::tools::SeedOutcome outcome;
        outcome.seed = seed;
        outcome.verdict = static_cast<int>(result.verdict);
        if (!result.failures.empty()) outcome.first_failure = result.failures.front();
        outcome.trace_hash = result.trace_hash;
        outcome.events = result.events;
        outcome.marks.assign(result.marks.begin(), result.marks.end());
        return outcome;
      });
  std::uint64_t passed = 0;
  std::uint64_t failed = 0;
  std::uint64_t events = 0;
  std::array<std::uint64_t, weft::kMarkCount> mark_totals{};
  std::array<std::uint64_t, weft::kMarkCount> mark_seeds{};
  for (const weft::tools::SeedOutcome& outcome : outcomes) {
    events += outcome.events;
    for (std::size_t m = 0; m < weft::kMarkCount && m < outcome.marks.size(); ++m) {
      mark_totals[m] += outcome.marks[m];
      if (outcome.marks[m] > 0) ++mark_seeds[m];
    }
    if (outcome.verdict == weft::tools::kVerdictPass) {
      ++passed;
      continue;
    }
    ++failed;
    std::printf("FAIL seed %llu (exit %d): %s\n  replay: %s\n", static_cast<unsigned long long>(outcome.seed),
                outcome.verdict, outcome.first_failure.c_str(), replay_command(o, outcome.seed).c_str());
  }
  std::printf("coverage marks (seeds that hit it, total hits):\n");
  for (std::size_t m = 0; m < weft::kMarkCount; ++m) {
    std::printf("  %-24s %8llu %10llu\n", std::string(weft::to_string(static_cast<weft::Mark>(m))).c_str(),
                static_cast<unsigned long long>(mark_seeds[m]), static_cast<unsigned long long>(mark_totals[m]));
  }
  std::printf("events: %llu\n", static_cast<unsigned long long>(events));
  std::printf("sweep: %llu passed, %llu failed\n", static_cast<unsigned long long>(passed),
              static_cast<unsigned long long>(failed));
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft-sim: deterministic simulation of a weft cluster"};
  app.require_subcommand(1);
  Options options;
  const auto add_common = [&](CLI::App* sub) {
    sub->add_option("--nodes", options.nodes, "cluster size")->check(CLI::Range(2, 1000))->capture_default_str();
    sub->add_option("--chaos,--duration", options.chaos_seconds, "seconds of the chaos phase (the heal follows)")
        ->check(CLI::Range(10, 3600))
        ->capture_default_str();
    sub->add_option("--mutation", options.mutations, "plant a defect in every kernel (" + mutation_list(", ") + ")");
    sub->add_option("--require", options.required_marks, "fail (exit 30) unless this coverage mark is hit");
  };
  const auto add_run_options = [&](CLI::App* sub) {
    sub->add_option("--seed", options.seed, "root seed; every random choice derives from it")->capture_default_str();
    add_common(sub);
    sub->add_option("--scenario", options.scenario_file, "play this scenario file instead of generating one");
    sub->add_option("--trace", options.trace_file, "write every trace event as JSON lines to FILE");
    sub->add_flag("--quiet", options.quiet, "no timeline");
  };
  CLI::App* run = app.add_subcommand("run", "run one seed (or one scenario file)");
  add_run_options(run);
  CLI::App* replay = app.add_subcommand("replay", "rerun exactly what a failure printed");
  add_run_options(replay);

  CLI::App* sweep_command = app.add_subcommand("sweep", "run many seeds and summarise failures");
  sweep_command->add_option("--seeds", options.seeds, "A..B, inclusive")->capture_default_str();
  add_common(sweep_command);
  sweep_command->add_option("--jobs", options.jobs, "worker processes")->check(CLI::Range(1, 256))->capture_default_str();
  sweep_command->add_option("--shard", options.shard, "i/n: run only every n-th seed, starting at the i-th")
      ->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  if (*run) return run_one(options, "run");
  if (*replay) return run_one(options, "replay");
  return sweep(options);
}
