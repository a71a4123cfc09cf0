// An application's metrics (app/metrics.hpp): registration is idempotent
// per name and labels, a conflicting registration is refused naming the
// metric, histograms bucket by inclusive upper bounds, and the daemon's
// Prometheus text (daemon/admin_text.hpp) shows each exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include "app/metrics.hpp"
#include "daemon/admin_text.hpp"

namespace weft {
namespace {

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(not refused)";
}

TEST(AppMetrics, TheSameNameAndLabelsAreTheSameSeries) {
  Metrics m;
  Counter& a = m.counter("orders_total", "orders taken", {{"shard", "1"}, {"kind", "new"}});
  Counter& b = m.counter("orders_total", "orders taken", {{"kind", "new"}, {"shard", "1"}});  // label order ignored
  Counter& other = m.counter("orders_total", "orders taken", {{"kind", "new"}, {"shard", "2"}});
  a.add(2);
  b.add();
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(a.value(), 3u);
  EXPECT_EQ(other.value(), 0u);
  EXPECT_EQ(m.families().at("orders_total").counters.size(), 2u);
}

TEST(AppMetrics, AConflictingRegistrationIsRefusedNamingIt) {
  Metrics m;
  m.counter("x_total", "help");
  EXPECT_NE(refusal([&] { m.gauge("x_total", "help"); }).find("metric \"x_total\": registered as a counter, now as a gauge"),
            std::string::npos);
  EXPECT_NE(refusal([&] { m.counter("x_total", "other"); }).find("other help text"), std::string::npos);
  m.histogram("lat_seconds", "h", {0.1, 1});
  EXPECT_NE(refusal([&] { m.histogram("lat_seconds", "h", {0.1, 2}); }).find("other bucket bounds"), std::string::npos);
  EXPECT_NE(refusal([&] { m.counter("weft_members", "h"); }).find("the prefix weft_ is weft's own"), std::string::npos);
  EXPECT_NE(refusal([&] { m.counter("9lives", "h"); }).find("a name is"), std::string::npos);
  EXPECT_NE(refusal([&] { m.counter("y", "h", {{"a-b", "1"}}); }).find("label \"a-b\""), std::string::npos);
  EXPECT_NE(refusal([&] { m.counter("y", "h", {{"a", "1"}, {"a", "2"}}); }).find("given twice"), std::string::npos);
  EXPECT_NE(refusal([&] { m.histogram("h1", "h", {}); }).find("at least one bucket"), std::string::npos);
  EXPECT_NE(refusal([&] { m.histogram("h2", "h", {1, 1}); }).find("increase strictly"), std::string::npos);
  EXPECT_NE(refusal([&] { m.histogram("h3", "h", {1, INFINITY}); }).find("finite"), std::string::npos);
  EXPECT_NE(refusal([&] { m.histogram("h4", "h", {1}, {{"le", "1"}}); }).find("label le"), std::string::npos);
  EXPECT_NE(refusal([&] { m.weft_counter("mine_total", "h"); }).find("start with weft_"), std::string::npos);
  // Refusals leave nothing half-registered.
  EXPECT_EQ(m.families().size(), 2u);
}

TEST(AppMetrics, AHistogramBucketsByInclusiveUpperBounds) {
  Metrics m;
  Histogram& h = m.histogram("size_bytes", "sizes", {10, 100});
  for (const double v : {0.0, 10.0, 10.5, 100.0, 101.0, 1e9}) h.observe(v);
  h.observe(NAN);
  ASSERT_EQ(h.counts().size(), 3u);
  EXPECT_EQ(h.counts()[0], 2u);  // 0, 10
  EXPECT_EQ(h.counts()[1], 2u);  // 10.5, 100
  EXPECT_EQ(h.counts()[2], 2u);  // 101, 1e9
  EXPECT_EQ(h.count(), 6u);
  EXPECT_EQ(h.dropped(), 1u);
  EXPECT_DOUBLE_EQ(h.sum(), 0 + 10 + 10.5 + 100 + 101 + 1e9);
}

TEST(AppMetrics, ZeroGaugesLeavesCountersAndHistograms) {
  Metrics m;
  m.counter("c_total", "c").add(3);
  m.gauge("g", "g").set(7);
  m.histogram("h", "h", {1}).observe(0.5);
  m.zero_gauges();
  EXPECT_EQ(m.counter("c_total", "c").value(), 3u);
  EXPECT_EQ(m.gauge("g", "g").value(), 0.0);
  EXPECT_EQ(m.histogram("h", "h", {1}).count(), 1u);
}

TEST(AppMetrics, ThePrometheusTextIsExact) {
  Metrics m;
  m.counter("orders_total", "orders \\ taken\nper shard", {{"shard", "a\"b"}}).add(12'345'678);
  m.gauge("queue_depth", "depth").set(2.5);
  Histogram& h = m.histogram("wait_seconds", "wait", {0.5, 1});
  h.observe(0.25);
  h.observe(0.75);
  h.observe(3);
  EXPECT_EQ(daemon::application_metrics_text(m),
            "# HELP orders_total orders \\\\ taken\\nper shard\n"
            "# TYPE orders_total counter\n"
            "orders_total{shard=\"a\\\"b\"} 12345678\n"
            "# HELP queue_depth depth\n"
            "# TYPE queue_depth gauge\n"
            "queue_depth 2.5\n"
            "# HELP wait_seconds wait\n"
            "# TYPE wait_seconds histogram\n"
            "wait_seconds_bucket{le=\"0.5\"} 1\n"
            "wait_seconds_bucket{le=\"1\"} 2\n"
            "wait_seconds_bucket{le=\"+Inf\"} 3\n"
            "wait_seconds_sum 4\n"
            "wait_seconds_count 3\n");
}

}  // namespace
}  // namespace weft
