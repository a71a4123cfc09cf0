// What weftd's admin endpoint serves, rendered on the io thread from the
// kernel and the driver and published as one immutable snapshot: the
// members as a table and as JSON (weftctl and the tests read these), the
// health line, and Prometheus text (format 0.0.4).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "app/metrics.hpp"
#include "io/node.hpp"

namespace weft::daemon {

// Round trips of the asks weftd made for weftctl: a histogram.
struct AskLatency {
  static constexpr std::array<std::int64_t, 10> kBoundsUs{100, 250, 500, 1000, 2500, 5000, 10000, 25000, 100000, 1000000};
  std::array<std::uint64_t, kBoundsUs.size() + 1> buckets{};
  std::int64_t sum_ns = 0;
  std::uint64_t count = 0;
  void record(Duration rtt);
};

struct Snapshot {
  std::string health;  // "ok\n", or why not
  std::string members_text;
  std::string members_json;
  std::string metrics;
};

// An application's metrics (app/metrics.hpp) as Prometheus text, for
// /metrics beside the kernel's: every family with HELP and TYPE, counters
// as exact integers, histograms with cumulative le buckets, _sum, _count.
std::string application_metrics_text(const Metrics& metrics);

Snapshot make_snapshot(const Kernel& kernel, const io::DriverStats& driver, const AskLatency& asks, Instant now,
                       bool leaving);

}  // namespace weft::daemon
