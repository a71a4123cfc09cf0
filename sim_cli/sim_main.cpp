// The weft-sim command line as a library (sim_cli/sim_main.hpp): run, replay
// and sweep deterministic simulations of a weft cluster, with the workloads a
// program registers. Every run prints its seed and options first, then the scenario,
// the membership timeline, the property verdicts and the trace hash; a
// failing run prints the one command that replays it.
//
// `weft-sim mutations` shows every planted defect caught: per mutation, a
// sweep over the same seeds, which property caught it in how many seeds, and
// a replay of the first seed it caught whose every failure line must name
// that property; an unmutated sweep of the same seeds must pass. A mutation
// whose attack no generated seed plays (MutationTarget::scenario_only), or
// an application defect generated seeds seldom catch (PlantedDefect::
// scenario_only), is listed, not swept: its scenario file's CTest shows it
// caught (or, for one no simulated run is known to reach, PlantedDefect::
// unit_test_only, the unit test named).
//
// Exit codes: 0 pass, 10 safety failure, 20 liveness failure, 30 a required
// coverage mark was not hit, 2 bad arguments; a kernel assertion aborts the
// process (SIGABRT, 134 from a shell). sweep exits 1 if any seed failed;
// mutations exits 1 unless every mutation was caught as its target says.
#include <CLI/CLI.hpp>

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "sim_cli/sim_main.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "sim/application_actors.hpp"
#include "sim/recorder.hpp"
#include "sim/scenario.hpp"
#include "sim_cli/json.hpp"
#include "sim_cli/run_page.hpp"
#include "sim_cli/sweep_pool.hpp"

namespace {

using weft::Duration;
using weft::sim::Scenario;
using weft::sim::Verdict;

struct Options {
  std::string program = "weft-sim";  // as the printed commands name it
  const weft::Application* app = nullptr;  // never null once main() has begun
  std::vector<std::string> workloads;  // --workload: those to run (none given: every one the application has)
  std::vector<std::string> defects;    // --defect: the application's planted defects
  std::uint64_t seed = 42;
  std::size_t nodes = 5;
  std::int64_t chaos_seconds = 30;
  std::vector<std::string> mutations;
  std::vector<std::string> required_marks;
  std::string scenario_file;
  std::string trace_file;
  std::string html_file;
  std::string shrink_out;  // shrink: where the smallest scenario goes
  bool quiet = false;
  bool json = false;
  // sweep
  std::string seeds = "1..100";
  unsigned jobs = 1;
  std::string shard = "1/1";
};

std::string flags(const Options& o) {
  std::string text;
  for (const std::string& w : o.workloads) text += " --workload " + w;
  for (const std::string& d : o.defects) text += " --defect " + d;
  for (const std::string& m : o.mutations) text += " --mutation " + m;
  for (const std::string& m : o.required_marks) text += " --require " + m;
  return text;
}

std::string replay_command(const Options& o, std::uint64_t seed) {
  // The flags go with a scenario file too: a --mutation run replays only
  // with its mutation.
  if (!o.scenario_file.empty()) return o.program + " replay --scenario " + o.scenario_file + flags(o);
  return o.program + " replay --seed " + std::to_string(seed) + " --nodes " + std::to_string(o.nodes) + " --chaos " +
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

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// What a run of the application plays: its actors on every node life
// (sim/application_actors.hpp), first, so its workloads find them, then its
// workloads (every one, or those --workload names), each made fresh, with
// the --defect names planted in both.
struct RunWorkloads {
  std::unique_ptr<weft::sim::ApplicationActors> actors;  // null if the application has none
  std::vector<std::unique_ptr<weft::sim::Workload>> owned;
  std::vector<weft::sim::Workload*> view;
};
RunWorkloads make_workloads(const Options& o, std::uint64_t seed) {
  RunWorkloads w;
  if (!o.app->actors.empty()) {
    w.actors = std::make_unique<weft::sim::ApplicationActors>(*o.app, o.defects);
    w.view.push_back(w.actors.get());
  }
  for (const weft::WorkloadKind& u : o.app->workloads) {
    if (!o.workloads.empty() && !contains(o.workloads, u.name)) continue;
    w.owned.push_back(u.make(seed, o.defects));
    w.view.push_back(w.owned.back().get());
  }
  return w;
}

// Every --workload and --defect is the application's; otherwise the
// problem, naming the choices.
std::string check_workload_names(const Options& o) {
  std::string names;
  std::string defects;
  for (const weft::WorkloadKind& u : o.app->workloads) names += " " + u.name;
  for (const weft::PlantedDefect& d : o.app->defects) defects += " " + d.name;
  for (const std::string& w : o.workloads) {
    if ((names + " ").find(" " + w + " ") == std::string::npos) {
      return "--workload " + w + " is not one of the application's; choose one of:" +
             (names.empty() ? std::string(" (none)") : names);
    }
  }
  for (const std::string& d : o.defects) {
    if ((defects + " ").find(" " + d + " ") == std::string::npos) {
      return "--defect " + d + " is not one of the application's defects; choose one of:" +
             (defects.empty() ? std::string(" (none)") : defects);
    }
  }
  return {};
}

// The application's metrics after a run: per series, every node's value
// (sim/application_actors.hpp keeps one registry per node for the run).
struct SeriesKey {
  std::string name;
  weft::MetricLabels labels;
  auto operator<=>(const SeriesKey&) const = default;
};
std::string series_text(const SeriesKey& key) {
  std::string labels;
  for (const auto& [name, value] : key.labels) labels += (labels.empty() ? "" : ",") + name + "=" + value;
  return key.name + (labels.empty() ? "" : "{" + labels + "}");
}
// The shortest text that reads back as the same double (exact, as the
// daemon's /metrics is); "nan" or "inf" as such in the text, null in JSON.
std::string metric_number(double value) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf";
  char text[32];
  const auto [end, error] = std::to_chars(text, text + sizeof text, value);
  return error == std::errc{} ? std::string(text, end) : "nan";
}
void metric_value(weft::sim_cli::JsonWriter& j, double value) {
  if (std::isfinite(value)) {
    j.raw(metric_number(value));
  } else {
    j.null();
  }
}

// One line per series: its kind, each node's value and the total (a
// histogram: its count and sum).
std::vector<std::string> metrics_lines(const weft::sim::ApplicationActors& actors) {
  // One per series: each node's value as text, and the run's total, kept
  // exact for counters (an integer sum) and histograms (observations).
  struct Line {
    weft::MetricKind kind = weft::MetricKind::counter;
    std::string values;      // " n1=... n2=..."
    std::uint64_t count = 0;  // counters: the sum; histograms: observations
    double sum = 0;           // gauges: the sum; histograms: the sum observed
  };
  std::map<SeriesKey, Line> lines_by_series;
  for (std::size_t node = 1; node <= actors.nodes(); ++node) {
    const std::string n = " n" + std::to_string(node) + "=";
    for (const auto& [name, f] : actors.metrics(node).families()) {
      for (const auto& [labels, c] : f.counters) {
        Line& l = lines_by_series[{name, labels}];
        l.kind = f.kind;
        l.values += n + std::to_string(c.value());
        l.count += c.value();
      }
      for (const auto& [labels, g] : f.gauges) {
        Line& l = lines_by_series[{name, labels}];
        l.kind = f.kind;
        l.values += n + metric_number(g.value());
        l.sum += g.value();
      }
      for (const auto& [labels, h] : f.histograms) {
        Line& l = lines_by_series[{name, labels}];
        l.kind = f.kind;
        l.values += n + std::to_string(h.count());
        l.count += h.count();
        l.sum += h.sum();
      }
    }
  }
  std::vector<std::string> out;
  for (const auto& [key, l] : lines_by_series) {
    std::string text = series_text(key) + " (" + std::string(weft::to_string(l.kind)) + "):" + l.values + "; ";
    switch (l.kind) {
      case weft::MetricKind::counter: text += "total " + std::to_string(l.count); break;
      case weft::MetricKind::gauge: text += "total " + metric_number(l.sum); break;
      case weft::MetricKind::histogram:
        text += std::to_string(l.count) + " observed, sum " + metric_number(l.sum);
        break;
    }
    out.push_back(text);
  }
  return out;
}

// The same as JSON: [{"node": 1, "name": ..., "labels": {...}, "kind": ...,
// "value": v} or, for a histogram, "bounds", "counts", "count", "sum"].
void write_metrics(weft::sim_cli::JsonWriter& j, const weft::sim::ApplicationActors* actors) {
  j.begin_array();
  for (std::size_t node = 1; actors != nullptr && node <= actors->nodes(); ++node) {
    // Not a structured binding: clang 14 cannot capture one in the lambda.
    for (const auto& family : actors->metrics(node).families()) {
      const std::string& name = family.first;
      const weft::Metrics::Family& f = family.second;
      const auto head = [&](const weft::MetricLabels& labels) {
        j.begin_object();
        j.key("node").value(static_cast<std::uint64_t>(node));
        j.key("name").value(name);
        j.key("kind").value(weft::to_string(f.kind));
        j.key("labels").begin_object();
        for (const auto& [label, value] : labels) j.key(label).value(value);
        j.end_object();
      };
      for (const auto& [labels, c] : f.counters) {
        head(labels);
        j.key("value").value(c.value());
        j.end_object();
      }
      for (const auto& [labels, g] : f.gauges) {
        head(labels);
        j.key("value");
        metric_value(j, g.value());
        j.end_object();
      }
      for (const auto& [labels, h] : f.histograms) {
        head(labels);
        j.key("bounds").begin_array();
        for (const double b : h.bounds()) metric_value(j, b);
        j.end_array();
        j.key("counts").begin_array();
        for (const std::uint64_t n : h.counts()) j.value(n);
        j.end_array();
        j.key("count").value(h.count());
        j.key("sum");
        metric_value(j, h.sum());
        j.end_object();
      }
    }
  }
  j.end_array();
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

std::string hash_text(std::uint64_t hash) {
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string_view verdict_name(int exit_code) {
  switch (exit_code) {
    case weft::sim_cli::kVerdictPass: return "pass";
    case weft::sim_cli::kVerdictSafety: return "safety_failure";
    case weft::sim_cli::kVerdictLiveness: return "liveness_failure";
    case static_cast<int>(Verdict::coverage_failure): return "coverage_failure";
    case weft::sim_cli::kVerdictCrash: return "crash";
    default: return "unknown";
  }
}

double seconds_of(Duration d) { return static_cast<double>(d.ns()) / 1e9; }

double wall_seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Marks and checks as {"name": count, ...} objects, indexed by weft::Mark
// and weft::sim::Check.
void write_marks(weft::sim_cli::JsonWriter& j, std::span<const std::uint64_t> counts) {
  j.begin_object();
  for (std::size_t m = 0; m < weft::kMarkCount && m < counts.size(); ++m) {
    j.key(weft::to_string(static_cast<weft::Mark>(m))).value(counts[m]);
  }
  j.end_object();
}
void write_checks(weft::sim_cli::JsonWriter& j, std::span<const std::uint64_t> counts) {
  j.begin_object();
  for (std::size_t c = 0; c < weft::sim::kCheckCount && c < counts.size(); ++c) {
    j.key(weft::sim::to_string(static_cast<weft::sim::Check>(c))).value(counts[c]);
  }
  j.end_object();
}

void write_options(weft::sim_cli::JsonWriter& j, const Options& o) {
  j.key("mutations").begin_array();
  for (const std::string& m : o.mutations) j.value(m);
  j.end_array();
  j.key("required_marks").begin_array();
  for (const std::string& m : o.required_marks) j.value(m);
  j.end_array();
}

int run_one(const Options& o, const char* verb) {
  const auto started = std::chrono::steady_clock::now();
  std::string command;
  if (o.scenario_file.empty()) {
    command = o.program + " " + verb + " --seed " + std::to_string(o.seed) + " --nodes " +
              std::to_string(o.nodes) + " --chaos " + std::to_string(o.chaos_seconds) + flags(o);
  } else {
    command = o.program + " " + verb + " --scenario " + o.scenario_file + flags(o);
  }
  const bool human = !o.json;
  if (human) std::printf("%s\n", command.c_str());
  std::string error;
  const std::optional<Scenario> scenario = make_scenario(o, o.seed, error);
  if (!scenario) {
    std::fprintf(stderr, "%s: %s\n", o.program.c_str(), error.c_str());
    return 2;
  }
  if (human) {
    std::printf("\nscenario%s:\n%s",
                o.scenario_file.empty() ? (" (" + std::string(weft::sim::to_string(weft::sim::family_of(o.seed))) + " family)").c_str() : "",
                scenario->to_text().c_str());
  }

  std::ofstream trace;
  if (!o.trace_file.empty()) {
    trace.open(o.trace_file);
    if (!trace) {
      std::fprintf(stderr, "%s: cannot write --trace %s\n", o.program.c_str(), o.trace_file.c_str());
      return 2;
    }
  }
  std::ofstream html;
  if (!o.html_file.empty()) {
    html.open(o.html_file, std::ios::binary);
    if (!html) {
      std::fprintf(stderr, "%s: cannot write --html %s\n", o.program.c_str(), o.html_file.c_str());
      return 2;
    }
  }
  // The recorder only looks (sim/recorder.hpp): the run's trace hash is the
  // same with and without it.
  weft::sim::RunRecorder recorder;
  RunWorkloads user = make_workloads(o, scenario->seed);
  std::vector<weft::sim::Workload*> workloads = user.view;
  if (html.is_open()) workloads.push_back(&recorder);
  const weft::sim::RunResult result = weft::sim::run(*scenario, [&](const weft::sim::TraceLine& line) {
    if (!trace.is_open()) return;
    std::string text;
    for (char c : line.text) {
      if (c == '"' || c == '\\') text += '\\';
      text += c;
    }
    trace << "{\"t_ns\":" << (line.at - weft::sim::Simulator::kStart).ns() << ",\"node\":" << line.node
          << ",\"event\":\"" << text << "\"}\n";
  }, workloads);
  const std::string replay = replay_command(o, o.seed);

  if (html.is_open()) {
    weft::sim_cli::RunPageInput page;
    page.command = command;
    page.replay = replay;
    page.scenario = &*scenario;
    page.result = &result;
    page.picture = &recorder.picture();
    html << weft::sim_cli::render_run_page(page);
    html.close();
    if (!html) {
      std::fprintf(stderr, "%s: cannot write --html %s\n", o.program.c_str(), o.html_file.c_str());
      return 2;
    }
  }

  if (o.json) {
    weft::sim_cli::JsonWriter j;
    j.begin_object();
    j.key("command").value(verb);
    j.key("invocation").value(command);
    j.key("seed").value(scenario->seed);
    j.key("nodes").value(static_cast<std::uint64_t>(scenario->nodes));
    j.key("chaos_seconds").value(seconds_of(scenario->chaos), 3);
    j.key("heal_seconds").value(seconds_of(scenario->heal), 3);
    if (o.scenario_file.empty()) {
      j.key("scenario_file").null();
      j.key("family").value(weft::sim::to_string(weft::sim::family_of(o.seed)));
    } else {
      j.key("scenario_file").value(o.scenario_file);
      j.key("family").null();
    }
    write_options(j, o);
    j.key("verdict").value(verdict_name(static_cast<int>(result.verdict)));
    j.key("exit_code").value(static_cast<int>(result.verdict));
    j.key("passed").value(result.verdict == Verdict::pass);
    j.key("failures").begin_array();
    for (const std::string& failure : result.failures) j.value(failure);
    j.end_array();
    if (result.verdict != Verdict::pass) {
      j.key("replay").value(replay);
    } else {
      j.key("replay").null();
    }
    j.key("trace_hash").value(hash_text(result.trace_hash));
    j.key("events").value(result.events);
    j.key("simulated_seconds").value(seconds_of(result.simulated), 9);
    if (result.healed_after) {
      j.key("healed_after_seconds").value(seconds_of(*result.healed_after), 9);
    } else {
      j.key("healed_after_seconds").null();
    }
    j.key("wall_seconds").value(wall_seconds_since(started), 3);
    j.key("marks");
    write_marks(j, result.marks);
    j.key("judged");
    write_checks(j, result.judged);
    j.key("summaries").begin_array();
    for (const std::string& summary : result.summaries) j.value(summary);
    j.end_array();
    j.key("final_views").begin_array();
    for (const std::string& view : result.final_views) j.value(view);
    j.end_array();
    j.key("metrics");
    write_metrics(j, user.actors.get());
    if (!o.html_file.empty()) {
      j.key("html").value(o.html_file);
    } else {
      j.key("html").null();
    }
    j.end_object();
    std::printf("%s\n", j.text().c_str());
    return static_cast<int>(result.verdict);
  }

  if (!o.quiet) {
    std::printf("\ntimeline (virtual seconds, node, event):\n");
    for (const weft::sim::TraceLine& line : result.timeline) {
      std::printf("  %9.3f  %s  %s\n", seconds_since_start(line.at),
                  line.node == 0 ? "sim" : ("n" + std::to_string(line.node)).c_str(), line.text.c_str());
    }
  }
  std::printf("\n");
  for (const std::string& summary : result.summaries) std::printf("%s\n", summary.c_str());
  if (user.actors != nullptr) {
    const std::vector<std::string> lines = metrics_lines(*user.actors);
    if (!lines.empty()) std::printf("\nmetrics (%s's, per node):\n", o.app->name.c_str());
    for (const std::string& line : lines) std::printf("  %s\n", line.c_str());
  }
  std::printf("\nverdicts:\n");
  std::printf("  safety (M2 M3 M7 M8 F2 F3 F4 F5 S1 S2 S3 S4 W3) and timed bounds (F1 downs, M5 T_merge, M6 T_boot, W4 T_refute),\n"
              "    checked every 100 ms: %s\n",
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
  if (!o.html_file.empty()) std::printf("html: %s\n", o.html_file.c_str());
  if (result.verdict != Verdict::pass) std::printf("replay: %s\n", replay.c_str());
  return static_cast<int>(result.verdict);
}

weft::sim_cli::SeedOutcome outcome_of(std::uint64_t seed, const weft::sim::RunResult& result) {
  weft::sim_cli::SeedOutcome outcome;
  outcome.seed = seed;
  outcome.verdict = static_cast<int>(result.verdict);
  if (!result.failures.empty()) outcome.first_failure = result.failures.front();
  outcome.trace_hash = result.trace_hash;
  outcome.events = result.events;
  outcome.simulated_ns = static_cast<std::uint64_t>(result.simulated.ns());
  outcome.marks.assign(result.marks.begin(), result.marks.end());
  outcome.judged.assign(result.judged.begin(), result.judged.end());
  return outcome;
}

std::vector<weft::sim_cli::SeedOutcome> run_sweep(const Options& o, const std::vector<std::uint64_t>& seeds) {
  return weft::sim_cli::run_seeds(seeds, o.jobs, [&](std::uint64_t seed) {
    std::string unused;
    const std::optional<Scenario> scenario = make_scenario(o, seed, unused);
    RunWorkloads user = make_workloads(o, scenario->seed);
    return outcome_of(seed, weft::sim::run(*scenario, {}, user.view));
  });
}

// How many of the seeds a planted defect failed `mutations` runs again
// without it.
constexpr std::size_t kControlSeeds = 10;

// The property a failure line names: the text before its first ": ".
std::string_view property_of(std::string_view failure) { return failure.substr(0, failure.find(": ")); }

int mutations(const Options& o) {
  const auto range = weft::sim_cli::parse_seed_range(o.seeds);
  if (const auto* error = std::get_if<std::string>(&range)) {
    std::fprintf(stderr, "%s mutations: %s\n", o.program.c_str(), error->c_str());
    return 2;
  }
  // The kernel's mutations and the registered workloads' defects: those
  // named, or (neither named) every one.
  struct Target {
    std::string name;
    std::string property;
    std::string branch;
    bool user = false;
  };
  std::vector<Target> targets;
  std::vector<weft::sim::MutationTarget> unswept;  // caught by a scenario file only
  const bool every = o.mutations.empty() && o.defects.empty();
  std::size_t kernel_targets = 0;
  for (const weft::sim::MutationTarget& t : weft::sim::mutation_targets()) {
    if (every || std::find(o.mutations.begin(), o.mutations.end(), t.name) != o.mutations.end()) {
      ++kernel_targets;
      if (!t.scenario_only.empty()) {
        unswept.push_back(t);
        continue;
      }
      targets.push_back({std::string(t.name), std::string(t.property), std::string(t.branch), false});
    }
  }
  if (!every && !unswept.empty()) {
    const std::string name(unswept[0].name);
    std::fprintf(stderr,
                 "%s mutations: no generated seed plays the attack %s opens; run it with: "
                 "%s run --mutation %s --scenario tests/sim_scenarios/%s\n",
                 o.program.c_str(), name.c_str(), o.program.c_str(), name.c_str(),
                 std::string(unswept[0].scenario_only).c_str());
    return 2;
  }
  std::vector<const weft::PlantedDefect*> unswept_defects;  // the same, for the application's
  for (const weft::PlantedDefect& d : o.app->defects) {
    if (every && (!d.scenario_only.empty() || !d.unit_test_only.empty())) {
      unswept_defects.push_back(&d);
    } else if (every || contains(o.defects, d.name)) {
      targets.push_back({d.name, d.property, d.branch, true});
    }
  }
  if (kernel_targets < o.mutations.size()) {
    std::fprintf(stderr, "%s mutations: --mutation names one of: %s\n", o.program.c_str(), mutation_list(" ").c_str());
    return 2;
  }
  const auto [first, last] = std::get<weft::sim_cli::SeedRange>(range);
  const std::vector<std::uint64_t> seeds = weft::sim_cli::shard_seeds(first, last, {1, 1});
  std::printf("%s mutations --seeds %llu..%llu --nodes %zu --chaos %lld --jobs %u\n", o.program.c_str(),
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(last), o.nodes,
              static_cast<long long>(o.chaos_seconds), o.jobs);
  std::fflush(stdout);
  bool all_caught = true;
  Options plain = o;
  plain.mutations.clear();
  plain.defects.clear();
  if (every) {  // the checkers must not fire without a defect
    std::uint64_t failed = 0;
    for (const weft::sim_cli::SeedOutcome& outcome : run_sweep(plain, seeds)) {
      if (outcome.verdict == weft::sim_cli::kVerdictPass) continue;
      ++failed;
      std::printf("  unmutated seed %llu fails: %s\n", static_cast<unsigned long long>(outcome.seed),
                  outcome.first_failure.c_str());
    }
    std::printf("%-22s %-4s %llu of %zu seeds fail%s\n", "(none)", "-", static_cast<unsigned long long>(failed),
                seeds.size(), failed == 0 ? "" : "   <- FALSE ALARM");
    all_caught = all_caught && failed == 0;
  }
  std::printf("%-22s %-4s %s\n", "mutation", "prop", "seeds failed, by property; first seed caught, its replay");
  for (const weft::sim::MutationTarget& t : unswept) {
    std::printf("%-22s %-4s not swept: no generated seed plays its attack; tests/sim_scenarios/%s does "
                "(CTest sim_catches_%s)\n", std::string(t.name).c_str(), std::string(t.property).c_str(),
                std::string(t.scenario_only).c_str(), std::string(t.name).c_str());
  }
  for (const weft::PlantedDefect* d : unswept_defects) {
    if (d->scenario_only.empty()) {
      std::printf("%-22s %-4s not swept: no simulated run is known to reach what catches it; %s does\n",
                  d->name.c_str(), d->property.c_str(), d->unit_test_only.c_str());
      continue;
    }
    std::printf("%-22s %-4s not swept: generated seeds seldom play what catches it; tests/sim_scenarios/%s does "
                "(%s run --defect %s --scenario tests/sim_scenarios/%s)\n", d->name.c_str(), d->property.c_str(),
                d->scenario_only.c_str(), o.program.c_str(), d->name.c_str(), d->scenario_only.c_str());
  }
  for (const Target& t : targets) {
    Options m = plain;
    (t.user ? m.defects : m.mutations) = {t.name};
    std::map<std::string, std::uint64_t> by_property;
    std::uint64_t failed = 0;
    std::uint64_t with_branch = 0;
    std::optional<std::uint64_t> first_caught;
    std::vector<std::uint64_t> failed_seeds;
    for (const weft::sim_cli::SeedOutcome& outcome : run_sweep(m, seeds)) {
      if (outcome.verdict == weft::sim_cli::kVerdictPass) continue;
      ++failed;
      failed_seeds.push_back(outcome.seed);
      const std::string_view property = property_of(outcome.first_failure);
      ++by_property[std::string(property)];
      if (property == t.property && outcome.first_failure.find(t.branch) != std::string::npos) {
        ++with_branch;
        if (!first_caught) first_caught = outcome.seed;
      }
    }
    std::string tally;
    for (const auto& [property, n] : by_property) tally += " " + std::to_string(n) + " " + property;
    std::string replay = "never caught by " + std::string(t.property) + " with \"" + std::string(t.branch) + "\"";
    bool caught = false;
    if (first_caught) {
      // The run that caught it, again, whole: every line must name the
      // target property (only that property fails).
      std::string unused;
      const std::optional<Scenario> scenario = make_scenario(m, *first_caught, unused);
      RunWorkloads user = make_workloads(m, scenario->seed);
      const weft::sim::RunResult result = weft::sim::run(*scenario, {}, user.view);
      std::size_t others = 0;
      for (const std::string& line : result.failures) if (property_of(line) != t.property) ++others;
      caught = others == 0 && !result.failures.empty();
      replay = "seed " + std::to_string(*first_caught) + ": " + std::to_string(result.failures.size()) +
               " failure line(s), " + (others == 0 ? "all " + std::string(t.property) : std::to_string(others) + " of other properties");
    }
    // The control: the first seeds the defect failed pass without it, so the
    // defect, not the seed, is what failed (the whole clean sweep runs above
    // when every mutation is swept, and as sim_sweep_smoke). Ten are enough
    // to show it and keep a defect that fails every seed from doubling its
    // sweep.
    if (failed_seeds.size() > kControlSeeds) failed_seeds.resize(kControlSeeds);
    std::uint64_t control_failed = 0;
    for (const weft::sim_cli::SeedOutcome& outcome : run_sweep(plain, failed_seeds)) {
      if (outcome.verdict != weft::sim_cli::kVerdictPass) ++control_failed;
    }
    caught = caught && control_failed == 0;
    std::printf("%-22s %-4s %3llu of %zu:%s; %llu with \"%s\"; %s; without it %llu of %zu fail%s\n",
                std::string(t.name).c_str(), std::string(t.property).c_str(), static_cast<unsigned long long>(failed),
                seeds.size(), tally.c_str(), static_cast<unsigned long long>(with_branch), std::string(t.branch).c_str(),
                replay.c_str(), static_cast<unsigned long long>(control_failed), failed_seeds.size(),
                caught ? "" : control_failed != 0 ? "   <- FAILS WITHOUT THE DEFECT" : "   <- NOT CAUGHT");
    std::fflush(stdout);
    all_caught = all_caught && caught;
  }
  std::printf("mutations: %s\n", all_caught ? "every one caught by its own property" : "FAILED");
  return all_caught ? 0 : 1;
}

// A failing run, made as small as it goes: faults are dropped while the run
// still fails with the same verdict and its first failure names the same
// property; the smallest schedule is written as a scenario file whose
// replay command is printed.
int shrink(const Options& o) {
  std::string error;
  const std::optional<Scenario> start = make_scenario(o, o.seed, error);
  if (!start) {
    std::fprintf(stderr, "%s: %s\n", o.program.c_str(), error.c_str());
    return 2;
  }
  const auto play = [&](const Scenario& s) {
    RunWorkloads user = make_workloads(o, s.seed);
    return weft::sim::run(s, {}, user.view);
  };
  const weft::sim::RunResult first = play(*start);
  if (first.verdict == Verdict::pass) {
    std::printf("%s shrink: %s passes; nothing to shrink\n", o.program.c_str(),
                o.scenario_file.empty() ? ("seed " + std::to_string(o.seed)).c_str() : o.scenario_file.c_str());
    return 1;
  }
  const std::string property(property_of(first.failures.empty() ? std::string_view{} : first.failures.front()));
  const auto same_failure = [&](const weft::sim::RunResult& r) {
    return r.verdict == first.verdict && !r.failures.empty() && property_of(r.failures.front()) == property;
  };
  Scenario best = *start;
  weft::sim::RunResult best_result = first;
  std::uint64_t runs = 1;
  for (bool progress = true; progress && !best.faults.empty();) {
    progress = false;
    for (const Scenario& candidate : weft::sim::smaller_schedules(best)) {
      const weft::sim::RunResult r = play(candidate);
      ++runs;
      if (!same_failure(r)) continue;
      best = candidate;
      best_result = r;
      progress = true;
      break;
    }
  }
  std::string path = o.shrink_out;
  if (path.empty()) {
    std::filesystem::create_directories("sim-failures");
    char name[64];
    std::snprintf(name, sizeof name, "sim-failures/%016llx.scenario",
                  static_cast<unsigned long long>(best_result.trace_hash));
    path = name;
  }
  std::ofstream out(path);
  out << "# shrunk by " << o.program << " shrink from " << start->faults.size() << " faults: "
      << (best_result.failures.empty() ? std::string() : best_result.failures.front()) << "\n"
      << best.to_text();
  if (!out) {
    std::fprintf(stderr, "%s shrink: cannot write %s\n", o.program.c_str(), path.c_str());
    return 2;
  }
  out.close();
  Options replay = o;
  replay.scenario_file = path;
  std::printf("%s shrink: %zu faults -> %zu in %llu runs, still failing %s (exit %d):\n  %s\n%s\nreplay: %s\n",
              o.program.c_str(), start->faults.size(), best.faults.size(), static_cast<unsigned long long>(runs),
              property.c_str(), static_cast<int>(best_result.verdict),
              best_result.failures.empty() ? "" : best_result.failures.front().c_str(), best.to_text().c_str(),
              replay_command(replay, o.seed).c_str());
  return static_cast<int>(best_result.verdict);
}

int sweep(const Options& o) {
  const auto started = std::chrono::steady_clock::now();
  const auto range = weft::sim_cli::parse_seed_range(o.seeds);
  if (const auto* error = std::get_if<std::string>(&range)) {
    std::fprintf(stderr, "%s sweep: %s\n", o.program.c_str(), error->c_str());
    return 2;
  }
  const auto shard = weft::sim_cli::parse_shard(o.shard);
  if (const auto* error = std::get_if<std::string>(&shard)) {
    std::fprintf(stderr, "%s sweep: %s\n", o.program.c_str(), error->c_str());
    return 2;
  }
  const auto [first, last] = std::get<weft::sim_cli::SeedRange>(range);
  const weft::sim_cli::Shard part = std::get<weft::sim_cli::Shard>(shard);
  std::string error;
  if (!make_scenario(o, first, error)) {  // check the flags once, before any fork
    std::fprintf(stderr, "%s sweep: %s\n", o.program.c_str(), error.c_str());
    return 2;
  }
  char header[512];
  std::snprintf(header, sizeof header, "%s sweep --seeds %llu..%llu --nodes %zu --chaos %lld%s --jobs %u --shard %u/%u",
                o.program.c_str(), static_cast<unsigned long long>(first), static_cast<unsigned long long>(last), o.nodes,
                static_cast<long long>(o.chaos_seconds), flags(o).c_str(), o.jobs, part.index, part.count);
  const bool human = !o.json;
  if (human) {
    std::printf("%s\n", header);
    std::fflush(stdout);
  }
  const std::vector<std::uint64_t> seeds = weft::sim_cli::shard_seeds(first, last, part);
  const std::vector<weft::sim_cli::SeedOutcome> outcomes = run_sweep(o, seeds);
  std::uint64_t passed = 0;
  std::uint64_t failed = 0;
  std::uint64_t events = 0;
  std::uint64_t simulated_ns = 0;
  std::array<std::uint64_t, weft::kMarkCount> mark_totals{};
  std::array<std::uint64_t, weft::kMarkCount> mark_seeds{};
  weft::sim::Judged judged_totals{};
  weft::sim::Judged judged_seeds{};
  std::map<weft::sim::Family, std::uint64_t> families;
  for (const weft::sim_cli::SeedOutcome& outcome : outcomes) {
    events += outcome.events;
    simulated_ns += outcome.simulated_ns;
    if (o.scenario_file.empty()) ++families[weft::sim::family_of(outcome.seed)];
    for (std::size_t c = 0; c < weft::sim::kCheckCount && c < outcome.judged.size(); ++c) {
      judged_totals[c] += outcome.judged[c];
      if (outcome.judged[c] > 0) ++judged_seeds[c];
    }
    for (std::size_t m = 0; m < weft::kMarkCount && m < outcome.marks.size(); ++m) {
      mark_totals[m] += outcome.marks[m];
      if (outcome.marks[m] > 0) ++mark_seeds[m];
    }
    if (outcome.verdict == weft::sim_cli::kVerdictPass) {
      ++passed;
      continue;
    }
    ++failed;
    if (human) {
      std::printf("FAIL seed %llu (exit %d): %s\n  replay: %s\n", static_cast<unsigned long long>(outcome.seed),
                  outcome.verdict, outcome.first_failure.c_str(), replay_command(o, outcome.seed).c_str());
    }
  }

  if (o.json) {
    // Everything a scheduler needs to add shards up: per-seed outcomes (the
    // hashes compare machines), and totals that sum across shards.
    weft::sim_cli::JsonWriter j;
    j.begin_object();
    j.key("command").value("sweep");
    j.key("invocation").value(std::string_view(header));
    j.key("seeds").begin_object().key("first").value(first).key("last").value(last).end_object();
    j.key("shard").begin_object().key("index").value(part.index).key("count").value(part.count).end_object();
    j.key("jobs").value(o.jobs);
    j.key("nodes").value(static_cast<std::uint64_t>(o.nodes));
    j.key("chaos_seconds").value(static_cast<std::int64_t>(o.chaos_seconds));
    if (o.scenario_file.empty()) {
      j.key("scenario_file").null();
    } else {
      j.key("scenario_file").value(o.scenario_file);
    }
    write_options(j, o);
    j.key("verdict").value(failed == 0 ? "pass" : "fail");
    j.key("exit_code").value(failed == 0 ? 0 : 1);
    j.key("seeds_run").value(static_cast<std::uint64_t>(outcomes.size()));
    j.key("passed").value(passed);
    j.key("failed").value(failed);
    j.key("runs").begin_array();
    for (const weft::sim_cli::SeedOutcome& outcome : outcomes) {
      j.begin_object();
      j.key("seed").value(outcome.seed);
      j.key("verdict").value(verdict_name(outcome.verdict));
      j.key("exit_code").value(outcome.verdict);
      j.key("trace_hash").value(hash_text(outcome.trace_hash));
      j.key("events").value(outcome.events);
      j.key("simulated_seconds").value(static_cast<double>(outcome.simulated_ns) / 1e9, 9);
      if (outcome.verdict == weft::sim_cli::kVerdictPass) {
        j.key("first_failure").null();
        j.key("replay").null();
      } else {
        j.key("first_failure").value(outcome.first_failure);
        j.key("replay").value(replay_command(o, outcome.seed));
      }
      j.end_object();
    }
    j.end_array();
    j.key("marks").begin_object();
    for (std::size_t m = 0; m < weft::kMarkCount; ++m) {
      j.key(weft::to_string(static_cast<weft::Mark>(m))).begin_object();
      j.key("seeds").value(mark_seeds[m]).key("hits").value(mark_totals[m]);
      j.end_object();
    }
    j.end_object();
    j.key("judged").begin_object();
    for (std::size_t c = 0; c < weft::sim::kCheckCount; ++c) {
      j.key(weft::sim::to_string(static_cast<weft::sim::Check>(c))).begin_object();
      j.key("seeds").value(judged_seeds[c]).key("judgements").value(judged_totals[c]);
      j.end_object();
    }
    j.end_object();
    j.key("families").begin_object();
    for (const auto& [family, n] : families) j.key(weft::sim::to_string(family)).value(n);
    j.end_object();
    j.key("events").value(events);
    j.key("simulated_seconds").value(static_cast<double>(simulated_ns) / 1e9, 9);
    j.key("wall_seconds").value(wall_seconds_since(started), 3);
    j.end_object();
    std::printf("%s\n", j.text().c_str());
    return failed == 0 ? 0 : 1;
  }

  std::printf("coverage marks (seeds that hit it, total hits):\n");
  for (std::size_t m = 0; m < weft::kMarkCount; ++m) {
    std::printf("  %-24s %8llu %10llu\n", std::string(weft::to_string(static_cast<weft::Mark>(m))).c_str(),
                static_cast<unsigned long long>(mark_seeds[m]), static_cast<unsigned long long>(mark_totals[m]));
  }
  // A check that judged nothing proved nothing: each shows how many seeds
  // gave it something to judge.
  std::printf("checks (seeds that judged it, judgements):\n");
  for (std::size_t c = 0; c < weft::sim::kCheckCount; ++c) {
    std::printf("  %-24s %8llu %10llu\n", std::string(weft::sim::to_string(static_cast<weft::sim::Check>(c))).c_str(),
                static_cast<unsigned long long>(judged_seeds[c]), static_cast<unsigned long long>(judged_totals[c]));
  }
  if (!families.empty()) {
    std::printf("families:");
    for (const auto& [family, n] : families) {
      std::printf(" %s %llu", std::string(weft::sim::to_string(family)).c_str(), static_cast<unsigned long long>(n));
    }
    std::printf("\n");
  }
  std::printf("events: %llu\n", static_cast<unsigned long long>(events));
  std::printf("sweep: %llu passed, %llu failed\n", static_cast<unsigned long long>(passed),
              static_cast<unsigned long long>(failed));
  return failed == 0 ? 0 : 1;
}

}  // namespace

int weft::sim::main(int argc, char** argv, const Application& application) {
  Options options;
  options.app = &application;
  if (argc > 0 && argv[0] != nullptr) {
    const std::string_view path(argv[0]);
    options.program = std::string(path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1));
  }
  // A definition no host can run is refused before any flag is read, as
  // weft::daemon::main refuses it (app/application.hpp).
  const bool own = !application.name.empty() || !application.actors.empty() || !application.workloads.empty() ||
                   !application.defects.empty();
  if (own) {
    if (const std::vector<std::string> bad = weft::application_problems(application); !bad.empty()) {
      for (const std::string& p : bad) std::fprintf(stderr, "%s: bad application: %s\n", options.program.c_str(), p.c_str());
      return 2;
    }
  }
  CLI::App app{options.program + ": deterministic simulation of a weft cluster" +
               (application.description.empty() ? std::string() : " running " + application.description)};
  app.require_subcommand(1);
  std::string workload_names;
  std::string defect_names;
  for (const WorkloadKind& u : application.workloads) workload_names += (workload_names.empty() ? "" : ", ") + u.name;
  for (const PlantedDefect& d : application.defects) defect_names += (defect_names.empty() ? "" : ", ") + d.name;
  const auto add_common = [&](CLI::App* sub) {
    sub->add_option("--nodes", options.nodes, "cluster size")->check(CLI::Range(2, 1000))->capture_default_str();
    sub->add_option("--chaos,--duration", options.chaos_seconds, "seconds of the chaos phase (the heal follows)")
        ->check(CLI::Range(10, 3600))
        ->capture_default_str();
    sub->add_option("--mutation", options.mutations, "plant a defect in every kernel (" + mutation_list(", ") + ")");
    sub->add_option("--require", options.required_marks, "fail (exit 30) unless this coverage mark is hit");
    if (!application.workloads.empty()) {
      sub->add_option("--workload", options.workloads, "run only this workload of the application (" + workload_names + ")");
    }
    if (!application.defects.empty()) {
      sub->add_option("--defect", options.defects, "plant this defect in the application (" + defect_names + ")");
    }
  };
  const auto add_run_options = [&](CLI::App* sub) {
    sub->add_option("--seed", options.seed, "root seed; every random choice derives from it")->capture_default_str();
    add_common(sub);
    sub->add_option("--scenario", options.scenario_file, "play this scenario file instead of generating one");
    sub->add_option("--trace", options.trace_file, "write every trace event as JSON lines to FILE");
    sub->add_flag("--quiet", options.quiet, "no timeline");
    sub->add_option("--html", options.html_file,
                    "also write a picture of the run to FILE: one self-contained HTML page (docs/simulation.md)");
    sub->add_flag("--json", options.json, "print one JSON document instead of the text (docs/simulation.md)");
  };
  CLI::App* run = app.add_subcommand("run", "run one seed (or one scenario file)");
  add_run_options(run);
  CLI::App* replay = app.add_subcommand("replay", "rerun exactly what a failure printed");
  add_run_options(replay);

  CLI::App* shrink_command =
      app.add_subcommand("shrink", "drop faults from a failing run while it fails the same way; write the smallest as a scenario file");
  shrink_command->add_option("--seed", options.seed, "the failing seed")->capture_default_str();
  add_common(shrink_command);
  shrink_command->add_option("--scenario", options.scenario_file, "shrink this scenario file instead");
  shrink_command->add_option("--out", options.shrink_out, "where to write it (default: sim-failures/<trace hash>.scenario)");

  CLI::App* sweep_command = app.add_subcommand("sweep", "run many seeds and summarise failures");
  sweep_command->add_option("--seeds", options.seeds, "A..B, inclusive")->capture_default_str();
  add_common(sweep_command);
  sweep_command->add_option("--jobs", options.jobs, "worker processes")->check(CLI::Range(1, 256))->capture_default_str();
  sweep_command->add_option("--shard", options.shard, "i/n: run only every n-th seed, starting at the i-th")
      ->capture_default_str();
  sweep_command->add_flag("--json", options.json, "print one JSON document instead of the text (docs/simulation.md)");

  CLI::App* mutations_command =
      app.add_subcommand("mutations", "sweep every planted defect (or those --mutation names) and show each caught");
  mutations_command->add_option("--seeds", options.seeds, "A..B, inclusive")->capture_default_str();
  add_common(mutations_command);
  mutations_command->add_option("--jobs", options.jobs, "worker processes")->check(CLI::Range(1, 256))->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  if (const std::string problem = check_workload_names(options); !problem.empty()) {
    std::fprintf(stderr, "%s: %s\n", options.program.c_str(), problem.c_str());
    return 2;
  }
  if (*run) return run_one(options, "run");
  if (*replay) return run_one(options, "replay");
  if (*mutations_command) return mutations(options);
  if (*shrink_command) return shrink(options);
  return sweep(options);
}
