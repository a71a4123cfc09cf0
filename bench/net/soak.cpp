// Harness 7: soak. Node a floods node b's sink with 1 KB tells (harness 2's
// flood, unbounded) on one pinned thread for S seconds, while a probe asks
// b's echo actor every 10 ms through the same loaded link (one probe in
// flight at most). After a warm-up, a health line every interval: the
// interval's throughput, the probe's p50 and p99, RSS from
// /proc/self/status, membership and reachability events, the highest phi
// either node held for the other, and the detectors' suspicion marks.
//
// Hard criteria, each PASS or FAIL, in two kinds. Correctness holds on any
// machine, however loaded, and every run judges it (smoke too):
//   no suspicion    no member or reachability event after warm-up, phi
//                   below the threshold at every probe, no suspicion mark
//                   (refuted suspicion, indirect probe, early crash
//                   suspicion), every probe answered, each node
//                   monitoring the other
//   memory          RSS at the last interval <= the first interval's + 8 MiB
// Speed moves with what else the machine runs, so only a full soak judges
// it (Options::judge_speed); smoke prints it, marked not judged:
//   throughput      every interval within +-10 % of the median interval
//   ask latency     every interval's probe p50 within 2x of the median
//                   interval's p50 (both ways)
// A run fails (exit code 1) if a judged criterion fails.
//
// The memory bound: everything the soak may rightly hold is bounded and
// full by the end of the warm-up: the flood keeps at most its window (1024
// 1 KB tells) told but not handled, wherever they wait, one probe is in
// flight, and each link lends at most max_write_bytes (256 KiB) to a write;
// about 1.5 MiB in all. Load changes how full those bounds are, not how
// many there are, so 8 MiB (five times that; no soak so far grew more
// than +0.01 MiB) leaves room for allocator noise. Over the 10 s between a smoke's
// first and last interval it catches a leak of 3 bytes a message at 300 k
// msg/s, 8 KiB a probe (100 a second) or 4 MiB an interval, less what the
// leak first takes from freed pages already resident (RSS counts pages,
// not allocations); a smaller leak needs the full soak's minutes.
//
// A machine shared with other work makes msg/s move on its own, so each
// interval ends with a control: the raw-TCP flood of harness 2 (1 KB, its
// own socket pair, same thread) for 5 % of the interval, while the nodes
// wait. weft decaying (a table or queue growing, a leak) moves weft / raw;
// a neighbour taking the CPU moves both. The interval's msg/s counts weft's
// own time only, and the criterion stays on msg/s; the verdict also gives
// how far weft / raw moved, and the CPU share the process got.
#include <time.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "bench/net/common.hpp"
#include "bench/net/flood.hpp"

namespace weft::bench::net {
namespace {

constexpr std::size_t kPayload = 1024;
constexpr std::int64_t kRssSlackKib = 8 * 1024;
constexpr double kThroughputBand = 0.10;
constexpr double kLatencyFactor = 2.0;

std::int64_t rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      std::istringstream in(line.substr(6));
      std::int64_t kib = 0;
      in >> kib;
      return kib;
    }
  }
  return -1;
}

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::uint64_t suspicion_marks(const Kernel& kernel) {
  const auto& marks = kernel.counters().marks;
  return marks[static_cast<std::size_t>(Mark::suspicion_refuted)] +
         marks[static_cast<std::size_t>(Mark::indirect_probe_saved)] +
         marks[static_cast<std::size_t>(Mark::early_crash_suspicion)];
}

struct Interval {
  double seconds_end = 0;
  double rate = 0;
  double cpu_share = 0;     // CPU seconds per wall second
  double raw_rate = 0;      // the control, msg/s
  Percentiles probe;
  std::int64_t rss = 0;
  std::uint64_t member_events = 0;
  std::uint64_t reachability_events = 0;
  double max_phi = 0;
  std::uint64_t marks = 0;
  std::uint64_t probe_failures = 0;
  std::uint64_t unmonitored = 0;
  std::uint64_t late_timers = 0;  // the driver's "timer fired > 100 ms late", both nodes
};

class Probe {
 public:
  explicit Probe(NodePair& pair) : pair_(pair), body_(100, 0x5a), timer_(pair.io_a) {}
  void start() { arm(); }
  void on_completed(const AskCompleted& done) {
    if (done.id != in_flight_id_) return;
    in_flight_ = false;
    if (done.outcome == AskOutcome::reply) {
      samples.push_back(now_ns() - issued_ns_);
    } else {
      ++failures;
    }
  }
  std::vector<std::int64_t> samples;
  std::uint64_t failures = 0;
  double max_phi = 0;
  std::uint64_t unmonitored = 0;  // probes that found a node not monitoring the other

 private:
  void arm() {
    timer_.expires_after(std::chrono::milliseconds(10));
    timer_.async_wait([this](const std::error_code& ec) {
      if (ec) return;
      tick();
      arm();
    });
  }
  void tick() {
    const Instant now = pair_.a->now();
    const Member* b = pair_.a->kernel().members().find(pair_.b->kernel().config().self);
    const Member* a = pair_.b->kernel().members().find(pair_.a->kernel().config().self);
    // phi() is 0 for a subject nobody monitors: count those, so a quiet
    // phi cannot pass for a healthy one.
    if (b != nullptr && pair_.a->kernel().detector(b->id) != nullptr) {
      max_phi = std::max(max_phi, pair_.a->kernel().phi(b->id, now));
    } else {
      ++unmonitored;
    }
    if (a != nullptr && pair_.b->kernel().detector(a->id) != nullptr) {
      max_phi = std::max(max_phi, pair_.b->kernel().phi(a->id, now));
    } else {
      ++unmonitored;
    }
    if (in_flight_) return;
    in_flight_ = true;
    issued_ns_ = now_ns();
    in_flight_id_ = pair_.a->kernel().ask(now, pair_.echo_ref, 1, body_, Duration::seconds(5));
    pair_.a->drain();
  }

  NodePair& pair_;
  std::vector<std::uint8_t> body_;
  asio::steady_timer timer_;
  bool in_flight_ = false;
  AskId in_flight_id_ = 0;
  std::int64_t issued_ns_ = 0;
};

std::string pass(bool ok) { return ok ? "PASS" : "FAIL"; }

// What the criteria read from the intervals.
struct Measures {
  double median_rate = 0, median_p50 = 0, median_ratio = 0;
  double worst_rate = 0, worst_raw = 0, worst_ratio = 0, worst_p50 = 1;
  double max_phi = 0;
  std::uint64_t probe_failures = 0, unmonitored = 0, silent_intervals = 0;
  std::int64_t rss_growth_kib = 0;
  bool calm = true;
};

Measures measure(const std::vector<Interval>& rows, double phi_threshold) {
  Measures m;
  std::vector<double> rates, p50s, ratios, raws;
  for (const auto& r : rows) {
    rates.push_back(r.rate);
    p50s.push_back(r.probe.p50);
    ratios.push_back(r.rate / r.raw_rate);
    raws.push_back(r.raw_rate);
  }
  m.median_rate = median(rates);
  m.median_p50 = median(p50s);
  m.median_ratio = median(ratios);
  const double median_raw = median(raws);
  for (const auto& r : rows) {
    m.calm = m.calm && r.member_events == 0 && r.reachability_events == 0 && r.max_phi < phi_threshold &&
             r.marks == 0 && r.probe_failures == 0 && r.probe.samples > 0 && r.unmonitored == 0;
    m.worst_rate = std::max(m.worst_rate, std::abs(r.rate / m.median_rate - 1));
    m.worst_ratio = std::max(m.worst_ratio, std::abs(r.rate / r.raw_rate / m.median_ratio - 1));
    m.worst_raw = std::max(m.worst_raw, std::abs(r.raw_rate / median_raw - 1));
    m.worst_p50 = std::max({m.worst_p50, r.probe.p50 / m.median_p50, m.median_p50 / r.probe.p50});
    m.max_phi = std::max(m.max_phi, r.max_phi);
    m.probe_failures += r.probe_failures;
    m.unmonitored += r.unmonitored;
    m.silent_intervals += r.probe.samples == 0 ? 1 : 0;
  }
  m.rss_growth_kib = rows.back().rss - rows.front().rss;
  return m;
}

void print_intervals(const std::vector<Interval>& rows, const Measures& m, double total_seconds,
                     const Options& options) {
  Table table("Soak: 1 KB tell flood with an ask probe, " + fmt_fixed(total_seconds, 0) + " s (harness 7)",
              {"t (s)", "msg/s", "vs median", "CPU share", "raw control msg/s", "weft / raw", "vs median",
               "probe p50 us", "probe p99 us", "probes", "RSS MiB", "member ev (total)", "reach ev (total)",
               "max phi", "suspicion marks", "late timers"});
  for (const auto& r : rows) {
    table.row({fmt_fixed(r.seconds_end, 0), fmt_rate(r.rate), fmt_fixed(100 * (r.rate / m.median_rate - 1), 1) + " %",
               fmt_fixed(100 * r.cpu_share, 0) + " %", fmt_rate(r.raw_rate), fmt_ratio(r.rate / r.raw_rate),
               fmt_fixed(100 * (r.rate / r.raw_rate / m.median_ratio - 1), 1) + " %",
               fmt_fixed(r.probe.p50, 1), fmt_fixed(r.probe.p99, 1), std::to_string(r.probe.samples),
               fmt_fixed(static_cast<double>(r.rss) / 1024, 1), std::to_string(r.member_events),
               std::to_string(r.reachability_events), fmt_fixed(r.max_phi, 3), std::to_string(r.marks),
               std::to_string(r.late_timers)});
  }
  table.print();
  table.write_json(options.json_dir, "soak");
}

// What the verdict's note says about the run.
struct SoakSetup {
  double total_seconds = 0;
  double warmup_seconds = 0;
  double phi_threshold = 0;
  std::uint64_t flood_window = 0;
};

// Prints the intervals and the criteria; returns the judged criteria that
// failed, one line each (speed ones only when options.judge_speed).
std::vector<std::string> judge(const std::vector<Interval>& rows, const SoakSetup& setup, const Options& options) {
  const Measures m = measure(rows, setup.phi_threshold);
  print_intervals(rows, m, setup.total_seconds, options);
  const bool flat = m.rss_growth_kib <= kRssSlackKib;
  const bool steady = m.worst_rate <= kThroughputBand;
  const bool latency_ok = m.worst_p50 <= kLatencyFactor;
  // Events and marks are counted from the warm-up's end: the last row holds the totals.
  const std::string calm_measured =
      std::to_string(rows.back().member_events) + " member and " + std::to_string(rows.back().reachability_events) +
      " reachability events, max phi " + fmt_fixed(m.max_phi, 2) + ", " + std::to_string(rows.back().marks) +
      " suspicion marks, " + std::to_string(m.probe_failures) + " probes unanswered, " +
      std::to_string(m.silent_intervals) + " intervals without a probe, " + std::to_string(m.unmonitored) +
      " probes finding a node unmonitored";
  const std::string rss_measured = (m.rss_growth_kib >= 0 ? "+" : "") +
                                   fmt_fixed(static_cast<double>(m.rss_growth_kib) / 1024, 2) + " MiB (" +
                                   fmt_fixed(static_cast<double>(rows.front().rss) / 1024, 1) + " -> " +
                                   fmt_fixed(static_cast<double>(rows.back().rss) / 1024, 1) + " MiB)";
  const std::string rate_measured = "worst " + fmt_fixed(100 * m.worst_rate, 1) + " % (the raw control: worst " +
                                    fmt_fixed(100 * m.worst_raw, 1) + " %; weft / raw: worst " +
                                    fmt_fixed(100 * m.worst_ratio, 1) + " %)";
  const std::string p50_measured = "worst " + fmt_ratio(m.worst_p50);
  const std::string speed_kind = options.judge_speed ? "speed" : "speed (not judged: smoke)";
  const auto speed_verdict = [&](bool ok) { return options.judge_speed ? pass(ok) : pass(ok) + ", not judged"; };

  Table verdict("Soak criteria", {"criterion", "kind", "bound", "measured", "verdict"});
  verdict.row({"no suspicion", "correctness",
               "0 member/reachability events, phi < " + fmt_fixed(setup.phi_threshold, 1) +
                   ", 0 suspicion marks, every probe answered, each node monitoring the other",
               calm_measured, pass(m.calm)});
  verdict.row({"memory", "correctness", "last interval RSS <= first + 8 MiB", rss_measured, pass(flat)});
  verdict.row({"throughput", speed_kind,
               "every interval within +-10 % of the median (" + fmt_rate(m.median_rate) + " msg/s)", rate_measured,
               speed_verdict(steady)});
  verdict.row({"ask latency", speed_kind,
               "every interval's probe p50 within 2x of the median (" + fmt_fixed(m.median_p50, 1) + " us)",
               p50_measured, speed_verdict(latency_ok)});
  std::vector<std::string> failed;
  if (!m.calm) failed.push_back("no suspicion: " + calm_measured);
  if (!flat) failed.push_back("memory: RSS grew " + rss_measured + " from the first interval to the last, bound +8 MiB");
  if (options.judge_speed && !steady) failed.push_back("throughput: " + rate_measured + ", bound +-10 %");
  if (options.judge_speed && !latency_ok) failed.push_back("ask latency: probe p50 " + p50_measured + ", bound 2x");
  verdict.note("overall " + pass(failed.empty()) +
               (options.judge_speed ? "" : " on correctness (speed not judged in smoke)") + "; one thread pinned to CPU " +
               std::to_string(options.cpu) + "; " + fmt_fixed(setup.warmup_seconds, 1) +
               " s warm-up not judged; a probe every 10 ms, at most one in flight, 100 B ask to b's echo on the "
               "flooded a -> b link; flood window " + std::to_string(setup.flood_window) +
               " messages; the last 5 % of each interval runs the raw control instead (nodes waiting); reproduce: "
               "bench/run soak --seconds " + fmt_fixed(setup.total_seconds, 0));
  verdict.print();
  verdict.write_json(options.json_dir, "soak_verdict");
  for (const auto& f : failed) progress("soak: FAIL: " + f);
  if (failed.empty()) progress("soak: PASS");
  if (!options.judge_speed) {
    progress(std::string("soak: not judged (smoke): throughput ") + pass(steady) + ", ask latency " + pass(latency_ok));
  }
  return failed;
}

}  // namespace

std::vector<std::string> run_soak(const Options& options) {
  pin_thread(options.cpu);
  const double total = options.soak_seconds;
  const double interval = options.soak_interval_seconds;
  const double warmup = std::min(5.0, total * 0.2);
  const int intervals = std::max(1, static_cast<int>((total - warmup) / interval));
  asio::io_context io{1};
  NodePair pair(io, io, bench_config());
  std::uint64_t member_events = 0, reachability_events = 0;
  Probe probe(pair);
  pair.on_event_a = [&](const Event& e) {
    if (std::holds_alternative<MemberEvent>(e)) ++member_events;
    if (std::holds_alternative<ReachabilityEvent>(e)) ++reachability_events;
    if (const auto* done = std::get_if<AskCompleted>(&e)) probe.on_completed(*done);
  };
  pair.on_event_b = [&](const Event& e) {
    if (std::holds_alternative<MemberEvent>(e)) ++member_events;
    if (std::holds_alternative<ReachabilityEvent>(e)) ++reachability_events;
  };
  pair.start();
  pair.wait_until_up(10);
  WeftFlood flood(pair, kPayload);
  RawFlood control(kPayload);
  const double control_seconds = interval * 0.05;
  (void)control.run(100'000, 30);  // warm
  flood.start();
  probe.start();
  progress("soak: " + fmt_fixed(total, 0) + " s of 1 KB tells, " + fmt_fixed(warmup, 1) + " s warm-up, then " +
           std::to_string(intervals) + " intervals of " + fmt_fixed(interval, 0) + " s");
  io.run_for(std::chrono::nanoseconds(static_cast<std::int64_t>(warmup * 1e9)));
  const std::int64_t start = now_ns();
  std::vector<Interval> rows;
  std::uint64_t handled = flood.handled();
  member_events = reachability_events = 0;
  probe.samples.clear();
  probe.max_phi = 0;
  probe.unmonitored = 0;
  std::uint64_t failures = probe.failures;
  std::uint64_t late0 = pair.late_timers + pair.late_timers_b;
  const std::uint64_t marks0 = suspicion_marks(pair.a->kernel()) + suspicion_marks(pair.b->kernel());
  for (int i = 1; i <= intervals; ++i) {
    const std::int64_t due = start + static_cast<std::int64_t>(i * interval * 1e9);
    const std::int64_t before = now_ns();
    const double cpu_before = cpu_seconds();
    const std::int64_t weft_due = due - static_cast<std::int64_t>(control_seconds * 1e9);
    while (now_ns() < weft_due) io.run_for(std::chrono::nanoseconds(weft_due - now_ns()));
    Interval row;
    const std::uint64_t now_handled = flood.handled();
    const double span = static_cast<double>(now_ns() - before) / 1e9;
    row.seconds_end = warmup + i * interval;
    row.rate = static_cast<double>(now_handled - handled) / span;
    row.cpu_share = (cpu_seconds() - cpu_before) / span;
    row.late_timers = pair.late_timers + pair.late_timers_b - late0;
    row.raw_rate = static_cast<double>(control.run_for(std::max(0.0, static_cast<double>(due - now_ns()) / 1e9))) /
                   control_seconds;
    // The timers the control held back fire late by design: let them, and
    // count late timers and messages afresh from here.
    // (run_for, not poll: under a flood there is always another ready
    // handler, and poll would never return.)
    io.restart();
    io.run_for(std::chrono::milliseconds(2));
    late0 = pair.late_timers + pair.late_timers_b;
    handled = flood.handled();
    row.probe = percentiles(std::move(probe.samples));
    probe.samples.clear();
    row.rss = rss_kib();
    row.member_events = member_events;
    row.reachability_events = reachability_events;
    row.max_phi = probe.max_phi;
    probe.max_phi = 0;
    row.marks = suspicion_marks(pair.a->kernel()) + suspicion_marks(pair.b->kernel()) - marks0;
    row.probe_failures = probe.failures - failures;
    row.unmonitored = probe.unmonitored;
    probe.unmonitored = 0;
    failures = probe.failures;
    rows.push_back(row);
    progress("soak t=" + fmt_fixed(row.seconds_end, 0) + " s: " + fmt_rate(row.rate) + " msg/s (CPU " +
             fmt_fixed(100 * row.cpu_share, 0) + " %; raw control " + fmt_rate(row.raw_rate) + " msg/s, weft / raw " +
             fmt_ratio(row.rate / row.raw_rate) + "), probe p50 " +
             fmt_fixed(row.probe.p50, 1) + " us p99 " + fmt_fixed(row.probe.p99, 1) + " us (" +
             std::to_string(row.probe.samples) + " probes), RSS " + fmt_fixed(static_cast<double>(row.rss) / 1024, 1) +
             " MiB, member events " + std::to_string(row.member_events) + ", reachability events " +
             std::to_string(row.reachability_events) + ", max phi " + fmt_fixed(row.max_phi, 2) +
             ", suspicion marks " + std::to_string(row.marks) + ", late timers " + std::to_string(row.late_timers));
  }
  if (!pair.unexpected.empty() || !pair.unexpected_b.empty()) fail("soak: dead letters during the flood");
  return judge(rows, SoakSetup{total, warmup, pair.a->kernel().config().phi_threshold, flood.window()}, options);
}

}  // namespace weft::bench::net
