#include "app/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace weft {

namespace {

bool name_char(char c, bool first) {
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  return letter || (!first && c >= '0' && c <= '9');
}

bool valid_name(std::string_view name, bool colons) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (!name_char(name[i], i == 0) || (!colons && name[i] == ':')) return false;
  }
  return true;
}

[[noreturn]] void refuse(std::string_view name, const std::string& why) {
  throw std::invalid_argument("metric \"" + std::string(name) + "\": " + why);
}

}  // namespace

std::string_view to_string(MetricKind kind) {
  switch (kind) {
    case MetricKind::counter: return "counter";
    case MetricKind::gauge: return "gauge";
    case MetricKind::histogram: return "histogram";
  }
  return "?";
}

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  if (std::isnan(value)) {
    ++dropped_;
    return;
  }
  // The first bound >= value: buckets are inclusive upper bounds.
  const auto at = std::lower_bound(bounds_.begin(), bounds_.end(), value);
  ++counts_[static_cast<std::size_t>(at - bounds_.begin())];
  ++count_;
  sum_ += value;
}

Metrics::Family& Metrics::family(std::string_view name, std::string_view help, MetricKind kind,
                                 const std::vector<double>& bounds, MetricLabels& labels, bool weft_own) {
  if (!valid_name(name, true)) refuse(name, "a name is [a-zA-Z_:][a-zA-Z0-9_:]* (Prometheus)");
  if (name.starts_with("weft_") != weft_own) {
    refuse(name, weft_own ? "weft's own metrics start with weft_"
                          : "the prefix weft_ is weft's own (the daemon's metrics); choose another");
  }
  std::sort(labels.begin(), labels.end());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const std::string& label = labels[i].first;
    if (!valid_name(label, false) || label.starts_with("__")) {
      refuse(name, "label \"" + label + "\" is not a label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting __)");
    }
    if (kind == MetricKind::histogram && label == "le") refuse(name, "a histogram's buckets use the label le");
    if (i > 0 && labels[i - 1].first == label) refuse(name, "label \"" + label + "\" is given twice");
  }
  if (kind == MetricKind::histogram) {
    if (bounds.empty()) refuse(name, "a histogram needs at least one bucket bound");
    for (std::size_t i = 0; i < bounds.size(); ++i) {
      if (!std::isfinite(bounds[i])) refuse(name, "bucket bounds must be finite (+Inf is implied)");
      if (i > 0 && !(bounds[i - 1] < bounds[i])) refuse(name, "bucket bounds must increase strictly");
    }
  }
  auto it = families_.find(name);
  if (it == families_.end()) {
    it = families_.emplace(std::string(name), Family{kind, std::string(help), bounds, {}, {}, {}}).first;
    return it->second;
  }
  Family& f = it->second;
  if (f.kind != kind) {
    refuse(name, "registered as a " + std::string(to_string(f.kind)) + ", now as a " + std::string(to_string(kind)));
  }
  if (f.help != help) refuse(name, "registered again with other help text");
  if (f.bounds != bounds) refuse(name, "registered again with other bucket bounds");
  return f;
}

void Metrics::zero_gauges() {
  for (auto& [name, f] : families_) {
    for (auto& [labels, g] : f.gauges) g.set(0);
  }
}

Counter& Metrics::counter(std::string_view name, std::string_view help, MetricLabels labels) {
  return family(name, help, MetricKind::counter, {}, labels, false).counters[labels];
}

Counter& Metrics::weft_counter(std::string_view name, std::string_view help, MetricLabels labels) {
  return family(name, help, MetricKind::counter, {}, labels, true).counters[labels];
}

Gauge& Metrics::gauge(std::string_view name, std::string_view help, MetricLabels labels) {
  return family(name, help, MetricKind::gauge, {}, labels, false).gauges[labels];
}

Histogram& Metrics::histogram(std::string_view name, std::string_view help, std::vector<double> bounds,
                              MetricLabels labels) {
  Family& f = family(name, help, MetricKind::histogram, bounds, labels, false);
  return f.histograms.try_emplace(labels, std::move(bounds)).first->second;
}

}  // namespace weft
