// What the real-socket harnesses (docs/benchmarks.md 2, 3, 5, 6, 7) share: the
// run options, CPU pinning, a deadline every loop consults, the two-node
// setup through the real driver, the actors they talk to, percentiles, and
// the Markdown table every harness prints.
//
// Bounds: every loop runs to a count and also to a Deadline; a harness that
// passes its deadline fails with a message instead of hanging, and
// arm_watchdog() ends the whole process (exit 3) if even that does not
// happen, e.g. in a blocking system call.
#pragma once

#include <asio.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/node.hpp"

namespace weft::bench::net {

struct Options {
  bool quick = false;       // smoke mode: small counts, numbers only
  // The soak's speed verdicts (throughput, ask latency) decide its exit
  // code; false in smoke, which still judges its correctness verdicts.
  bool judge_speed = true;
  int runs = 3;             // repetitions; tables show the median
  int cpu = 0;              // the CPU a one-core harness is pinned to
  int second_cpu = 1;       // the other thread's CPU in the two-thread rows
  double soak_seconds = 300;
  double soak_interval_seconds = 10;
  std::string json_dir;     // where each harness writes its rows as JSON ("" = nowhere)
  std::string self_exe;     // for the scaling harness's children
  std::size_t only_payload = 0;  // tell, stages: just this payload (0 = all)
  std::uint32_t only_window = 0;  // ask: just this many in flight, no latency runs (0 = all)
};

// Monotonic nanoseconds (CLOCK_MONOTONIC: comparable across processes).
std::int64_t now_ns();

// Pins the calling thread; false (with a warning on stderr) if refused.
bool pin_thread(int cpu);
int cpu_count();

// A time bound for one harness step.
class Deadline {
 public:
  explicit Deadline(double seconds) : end_ns_(now_ns() + static_cast<std::int64_t>(seconds * 1e9)) {}
  bool passed() const { return now_ns() >= end_ns_; }

 private:
  std::int64_t end_ns_;
};

// A failed harness step: caught in main, printed, exit code 1.
struct HarnessError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void fail(const std::string& what);

// The process ends (exit 3, message on stderr) if it is still running
// `seconds` from now; 0 disarms. Last resort behind the Deadlines.
void arm_watchdog(unsigned seconds, const char* what);

std::uint16_t free_port();

// Counts tells; calls on_tell (if set) after each.
class Sink final : public Behavior {
 public:
  std::uint64_t handled = 0;
  std::function<void()> on_tell;
  void receive(Context&, const Delivery& message) override;
};

// Answers every ask with its own body and type tag.
class Echo final : public Behavior {
 public:
  void receive(Context& context, const Delivery& message) override;
};

// Two nodes through the real driver on loopback: `a` (the sender / asker)
// and `b` (holding "sink" and "echo"). One io_context for both, or one each
// (then the caller runs b's on another thread).
struct NodePair {
  asio::io_context& io_a;
  asio::io_context& io_b;
  std::unique_ptr<io::Node> a;
  std::unique_ptr<io::Node> b;
  Sink* sink = nullptr;
  ActorRef sink_ref;
  ActorRef echo_ref;
  // Dead letters (must stay empty); one list per node, each written on
  // that node's thread.
  std::vector<Event> unexpected;
  std::vector<Event> unexpected_b;
  // "timer fired late" warnings: expected while a harness parks the nodes
  // (a raw baseline runs on its own io_context), so counted, not printed.
  std::uint64_t late_timers = 0;
  std::uint64_t late_timers_b = 0;  // b's, written on b's thread
  std::function<void(const Event&)> on_event_a;  // every event of a, after the checks
  std::function<void(const Event&)> on_event_b;

  NodePair(asio::io_context& io_a, asio::io_context& io_b, const Config& base);
  ~NodePair();
  void start();
  // Runs io_a (and io_b when shared) until both see each other up; io_b on
  // its own thread must already be running. Fails after `seconds`.
  void wait_until_up(double seconds);
  bool up_a() const;
  bool up_b() const;  // call on b's thread
};

// The config both nodes use: weft's defaults, cluster "bench".
Config bench_config();

struct Percentiles {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
  std::size_t samples = 0;
};
Percentiles percentiles(std::vector<std::int64_t> samples_ns);  // results in µs

double median(std::vector<double> values);

// One Markdown table, also written as JSON rows (column -> cell text).
class Table {
 public:
  Table(std::string title, std::vector<std::string> columns);
  void row(std::vector<std::string> cells);
  void note(std::string text);
  void print() const;                                    // to stdout
  void write_json(const std::string& dir, const std::string& name) const;

 private:
  std::string title_;
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::string> notes_;
};

// Number formatting for the tables: 1,234,567; 3.21 M; 12.3.
std::string fmt_count(double value);
std::string fmt_rate(double per_second);
std::string fmt_fixed(double value, int decimals);
std::string fmt_ratio(double value);  // "0.42x"

// Prints one line of progress to stderr (tables go to stdout).
void progress(const std::string& line);

// The harnesses.
void run_tell(const Options& options);
void run_ask(const Options& options);
void run_scaling(const Options& options);
int run_scaling_child(int argc, char** argv);
void run_stages(const Options& options);
// The judged soak criteria that failed, one line each naming the criterion
// and what it measured; empty when the soak passed.
std::vector<std::string> run_soak(const Options& options);

}  // namespace weft::bench::net
