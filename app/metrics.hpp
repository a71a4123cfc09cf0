// An application's own metrics: counters, gauges and histograms with fixed
// buckets, registered by name on one node's registry and updated by its
// actors. Pure state, like the kernel: no clock, no thread, no I/O. The
// hosts read it: weft::daemon::main exports every registry entry on
// /metrics beside the kernel's (Prometheus text), and weft::sim::main
// records each simulated node's registry per run (its --json reports them).
//
// Model. A metric is a family (name, help, kind, and for a histogram its
// bucket bounds) and one series per label set. Registering is idempotent:
// the same name and labels give back the same series, so an actor that is
// made again (a restarted node in the simulator) keeps counting where the
// last life stopped. A name registered again as another kind, with other
// help or other bounds is a programming error, refused with
// std::invalid_argument naming the metric, at registration, not at export.
// Names follow Prometheus ([a-zA-Z_:][a-zA-Z0-9_:]*); the prefix weft_ is
// weft's own (the daemon's metrics, and typed/'s dead letters through
// weft_counter), so an application cannot shadow one of them.
//
// References to series stay valid for the registry's lifetime: an actor
// keeps a Counter& and adds to it on its hot path without a lookup.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft {

// Label name -> value; kept sorted by name, so {a,b} and {b,a} are one series.
using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  void add(std::uint64_t n = 1) { value_ += n; }
  std::uint64_t value() const { return value_; }

 private:
  std::uint64_t value_ = 0;
};

class Gauge {
 public:
  void set(double value) { value_ = value; }
  void add(double delta) { value_ += delta; }
  double value() const { return value_; }

 private:
  double value_ = 0;
};

class Histogram {
 public:
  // `bounds`: the buckets' inclusive upper bounds, finite and strictly
  // increasing (checked by Metrics::histogram); a last +Inf bucket is implied.
  explicit Histogram(std::vector<double> bounds);
  // A NaN is not a measurement: it is dropped (and counted in dropped()).
  void observe(double value);
  std::span<const double> bounds() const { return bounds_; }
  // Per bucket, not cumulative: counts()[i] is the observations in
  // (bounds[i-1], bounds[i]]; the last entry is those above every bound.
  std::span<const std::uint64_t> counts() const { return counts_; }
  std::uint64_t count() const { return count_; }
  double sum() const { return sum_; }
  std::uint64_t dropped() const { return dropped_; }

 private:
  std::vector<double> bounds_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  double sum_ = 0;
  std::uint64_t dropped_ = 0;
};

enum class MetricKind : std::uint8_t { counter, gauge, histogram };
std::string_view to_string(MetricKind kind);

class Metrics {
 public:
  struct Family {
    MetricKind kind = MetricKind::counter;
    std::string help;
    std::vector<double> bounds;  // histograms only
    // std::map: series never move, so references handed out stay valid.
    std::map<MetricLabels, Counter> counters;
    std::map<MetricLabels, Gauge> gauges;
    std::map<MetricLabels, Histogram> histograms;
  };

  Counter& counter(std::string_view name, std::string_view help, MetricLabels labels = {});
  Gauge& gauge(std::string_view name, std::string_view help, MetricLabels labels = {});
  Histogram& histogram(std::string_view name, std::string_view help, std::vector<double> bounds,
                       MetricLabels labels = {});
  // A counter under weft's own prefix (name must start with weft_): for
  // weft's layers that count on an application's behalf (typed/'s dead
  // letters). An application registers through counter().
  Counter& weft_counter(std::string_view name, std::string_view help, MetricLabels labels = {});

  // Every gauge back to 0: for a host whose node starts a new life with the
  // registry it had (the simulator's restarts).
  void zero_gauges();

  // Every family, by name (sorted: an export is in a stable order).
  const std::map<std::string, Family, std::less<>>& families() const { return families_; }
  bool empty() const { return families_.empty(); }

 private:
  Family& family(std::string_view name, std::string_view help, MetricKind kind, const std::vector<double>& bounds,
                 MetricLabels& labels, bool weft_own);

  std::map<std::string, Family, std::less<>> families_;
};

// A behavior that counts things on the host's behalf implements this too:
// the host (daemon or simulator) calls it once, right after making the
// actor, with its node's registry and the actor's name. typed/'s
// TypedBehavior does, for its dead letters.
class ExportsMetrics {
 public:
  virtual ~ExportsMetrics() = default;
  virtual void export_metrics(Metrics& metrics, std::string_view actor) = 0;
};

}  // namespace weft
