#include "daemon/admin_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>

namespace weft::daemon {
namespace {

// A sample value as Prometheus writes it: +Inf, -Inf and NaN by name (a
// silent peer's phi is infinite); otherwise the shortest text that reads
// back as the same double, so a counter past a million is not rounded to
// six digits (1.23457e+06).
std::string number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[64];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return error == std::errc{} ? std::string(buffer, end) : "NaN";
}

// A label value or HELP text escaped as the text format wants: \\, \n, and
// in label values \".
std::string escaped(std::string_view text, bool quote) {
  std::string out;
  for (const char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '"' && quote) out += "\\\"";
    else out += c;
  }
  return out;
}

// {a="x",b="y"} with `extra` (le="...") last; empty for no labels at all.
std::string label_text(const MetricLabels& labels, const std::string& extra = {}) {
  std::string out;
  for (const auto& [name, value] : labels) out += (out.empty() ? "" : ",") + name + "=\"" + escaped(value, true) + "\"";
  if (!extra.empty()) out += (out.empty() ? "" : ",") + extra;
  return out.empty() ? out : "{" + out + "}";
}

// One metric family: HELP, TYPE, then its samples.
struct Family {
  Family(std::string& out, const char* name, const char* type, const char* help) : out_(out) {
    out_ += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  void sample(const std::string& name_and_labels, double value) { out_ += name_and_labels + " " + number(value) + "\n"; }
  std::string& out_;
};

template <std::size_t N>
void histogram(std::string& out, const char* name, const char* help, const std::array<std::int64_t, N>& bounds,
               double bound_scale, const std::array<std::uint64_t, N + 1>& buckets, double sum_seconds) {
  Family f(out, name, "histogram", help);
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < N; ++i) {
    cumulative += buckets[i];
    f.sample(std::string(name) + "_bucket{le=\"" + number(static_cast<double>(bounds[i]) * bound_scale) + "\"}",
             static_cast<double>(cumulative));
  }
  cumulative += buckets[N];
  f.sample(std::string(name) + "_bucket{le=\"+Inf\"}", static_cast<double>(cumulative));
  f.sample(std::string(name) + "_sum", sum_seconds);
  f.sample(std::string(name) + "_count", static_cast<double>(cumulative));
}

// phi for people: two decimals, never "-0".
std::string fixed2(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value < 0.005 ? 0.0 : value);
  return buffer;
}

// An instant in seconds to the microsecond (number() keeps 6 digits in all).
std::string seconds6(Instant at) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%lld.%06lld", static_cast<long long>(at.ns_since_epoch() / 1000000000),
                static_cast<long long>(at.ns_since_epoch() % 1000000000 / 1000));
  return buffer;
}

// What this node's detector of a member it monitors holds: how long ago it
// last recorded the member alive, and the mean and spread of the intervals
// it has recorded (PhiDetector). Empty for a member it does not monitor.
std::string detector_json(const PhiDetector* detector, Instant now) {
  if (detector == nullptr || !detector->has_heartbeat()) return "";
  const auto ms = [](double ns) { return number(std::round(ns / 1e3) / 1e3); };
  return ",\"detector\":{\"heard_ms_ago\":" + ms(static_cast<double>((now - detector->last_heartbeat()).ns())) +
         ",\"mean_ms\":" + ms(detector->mean_ns()) + ",\"std_ms\":" + ms(detector->std_deviation_ns()) + "}";
}

}  // namespace

void AskLatency::record(Duration rtt) {
  std::size_t bucket = 0;
  while (bucket < kBoundsUs.size() && rtt.ns() > kBoundsUs[bucket] * 1000) ++bucket;
  ++buckets[bucket];
  sum_ns += rtt.ns();
  ++count;
}

std::string application_metrics_text(const Metrics& metrics) {
  std::string out;
  for (const auto& [name, f] : metrics.families()) {
    out += "# HELP " + name + " " + escaped(f.help, false) + "\n# TYPE " + name + " " + std::string(to_string(f.kind)) + "\n";
    for (const auto& [labels, c] : f.counters) out += name + label_text(labels) + " " + std::to_string(c.value()) + "\n";
    for (const auto& [labels, g] : f.gauges) out += name + label_text(labels) + " " + number(g.value()) + "\n";
    for (const auto& [labels, h] : f.histograms) {
      std::uint64_t cumulative = 0;
      for (std::size_t i = 0; i < h.counts().size(); ++i) {
        cumulative += h.counts()[i];
        const std::string le = i < h.bounds().size() ? number(h.bounds()[i]) : "+Inf";
        out += name + "_bucket" + label_text(labels, "le=\"" + le + "\"") + " " + std::to_string(cumulative) + "\n";
      }
      out += name + "_sum" + label_text(labels) + " " + number(h.sum()) + "\n";
      out += name + "_count" + label_text(labels) + " " + std::to_string(h.count()) + "\n";
    }
  }
  return out;
}

Snapshot make_snapshot(const Kernel& k, const io::DriverStats& driver, const AskLatency& asks, Instant now,
                       bool leaving) {
  Snapshot s;
  const MemberStatus self_status = k.self_status();
  s.health = k.is_shut_down() ? "shut down\n"
             : leaving        ? "leaving\n"
             : self_status == MemberStatus::up ? "ok\n"
                                               : std::string(to_string(self_status)) + "\n";
  const std::optional<NodeAddress> leader = k.leader();
  s.members_text = "self " + k.self().to_string() + " (" + std::string(to_string(self_status)) + "), leader " +
                   (leader ? leader->to_string() : std::string("none")) +
                   (k.converged() ? ", converged\n" : ", not converged\n");
  // monotonic_s: the instant of this snapshot on the host's monotonic clock
  // (CLOCK_MONOTONIC, the driver's clock), so a program on the same host can
  // place "heard_ms_ago" in its own time (tests/io's io_pause does).
  s.members_json = "{\"self\":\"" + k.self().to_string() + "\",\"status\":\"" + std::string(to_string(self_status)) +
                   "\",\"leader\":\"" + (leader ? leader->to_string() : std::string()) +
                   "\",\"converged\":" + (k.converged() ? "true" : "false") +
                   ",\"monotonic_s\":" + seconds6(now) + ",\"members\":[";
  char line[256];
  std::snprintf(line, sizeof line, "%-24s %-14s %-8s %-11s %s\n", "address", "incarnation", "status", "reachable", "phi");
  s.members_text += line;
  std::map<std::string, std::uint64_t> by_status;
  std::uint64_t unreachable = 0;
  bool first = true;
  for (const Member& m : k.members().members()) {
    ++by_status[std::string(to_string(m.status))];
    const bool is_unreachable = k.is_unreachable(m.id);
    unreachable += is_unreachable ? 1 : 0;
    const double phi = k.phi(m.id, now);
    std::snprintf(line, sizeof line, "%-24s %-14llu %-8s %-11s %s\n", m.address().to_string().c_str(),
                  static_cast<unsigned long long>(m.incarnation().value), std::string(to_string(m.status)).c_str(),
                  is_unreachable ? "no" : "yes", k.detector(m.id) ? fixed2(phi).c_str() : "-");
    s.members_text += line;
    s.members_json += std::string(first ? "" : ",") + "{\"address\":\"" + m.address().to_string() +
                      "\",\"incarnation\":" + std::to_string(m.incarnation().value) + ",\"status\":\"" +
                      std::string(to_string(m.status)) + "\",\"unreachable\":" + (is_unreachable ? "true" : "false") +
                      ",\"phi\":" + (std::isfinite(phi) ? number(phi < 0 ? 0.0 : phi) : std::string("null")) +
                      detector_json(k.detector(m.id), now) + "}";
    first = false;
  }
  s.members_json += "]}\n";

  std::string& out = s.metrics;
  {
    Family f(out, "weft_members", "gauge", "Members in this node's view, by status.");
    for (const MemberStatus status : {MemberStatus::joining, MemberStatus::up, MemberStatus::leaving,
                                      MemberStatus::exiting, MemberStatus::down, MemberStatus::removed}) {
      const std::string name(to_string(status));
      f.sample("weft_members{status=\"" + name + "\"}", static_cast<double>(by_status[name]));
    }
  }
  Family(out, "weft_unreachable_members", "gauge", "Members some observer holds unreachable.")
      .sample("weft_unreachable_members", static_cast<double>(unreachable));
  {
    Family f(out, "weft_phi", "gauge", "Suspicion level of each peer this node monitors.");
    for (const MemberId& subject : k.monitored_subjects()) {
      f.sample("weft_phi{peer=\"" + subject.address.to_string() + "\"}", k.phi(subject, now));
    }
  }
  const KernelCounters& c = k.counters();
  const auto counter = [&](const char* name, const char* help, std::uint64_t value) {
    Family(out, name, "counter", help).sample(name, static_cast<double>(value));
  };
  counter("weft_frames_in_total", "Frames received.", c.frames_in);
  counter("weft_frames_out_total", "Frames queued for sending.", c.frames_out);
  counter("weft_bytes_in_total", "Bytes the kernel read.", c.bytes_in);
  counter("weft_bytes_out_total", "Bytes the kernel lent for writing.", c.bytes_out);
  counter("weft_suspicions_refuted_total", "Unreachable marks withdrawn when the peer was heard again.",
          c.marks[static_cast<std::size_t>(Mark::suspicion_refuted)]);
  counter("weft_observations_passed_total", "Frames the liveness throttle let through to the detectors.",
          c.observations_passed);
  counter("weft_observations_throttled_total", "Frames the liveness throttle kept from the detectors.",
          c.observations_throttled);
  Family(out, "weft_mailbox_high_water", "gauge", "The deepest any actor's mailbox has been.")
      .sample("weft_mailbox_high_water", static_cast<double>(c.mailbox_high_water));
  counter("weft_ingest_rejected_total", "Gossip records refused by the ingest guard.", c.ingest_rejected);
  counter("weft_forgotten_lives_refused_total",
          "Of those, records of a life whose tombstone this node pruned: a peer still holding it, or a forger.",
          c.forgotten_lives_refused);
  counter("weft_rows_refuted_total",
          "Reachability rows under this node's name that it never wrote: refuted by rewriting its own above them.",
          c.rows_refuted);
  counter("weft_downs_held_total",
          "Downs of a member this node holds live, heard with no reachability row behind them: held for the "
          "member to refute, and sent to it.",
          c.downs_held);
  counter("weft_downs_refuted_total",
          "Downs of this node's own life with no evidence that it was cut off: refuted with a new life, under "
          "on_downed = shut_down too.",
          c.downs_refuted);
  counter("weft_lives_above_clock_total",
          "Gossiped lives more than incarnation_clock_skew above this node's estimate of the wall clock: refused, "
          "never refuted.",
          c.lives_above_clock);
  counter("weft_new_members_deferred_total",
          "Records of addresses new to this node past the max_new_members_per_peer its sender may bring in a "
          "gossip_interval: left for the sender's next gossip.",
          c.new_members_deferred);
  counter("weft_stranger_frames_unanswered_total",
          "Without a key: frames from a dialer whose address is no member, dropped until that address answered "
          "this node's dial as the life its hello named.",
          c.stranger_frames_unanswered);
  counter("weft_dial_backs_full_total",
          "Of those, frames that found max_pending_handshakes dials back waiting: nothing was dialed.",
          c.dial_backs_full);
  counter("weft_refutations_total", "New lives taken to refute a claim about this node only it may make.",
          c.refutations);
  counter("weft_held_lives_heard_total",
          "Hellos whose dialer held a life of this node's address above its own (a restart below a life it took "
          "to refute a claim): refuted as claims.",
          c.held_lives_heard);
  counter("weft_gossip_replies_withheld_total", "Gossip answers not sent: they would only repeat a refused record.",
          c.gossip_replies_withheld);
  counter("weft_gossip_states_sent_total", "Whole gossip states sent (answers to joins and to differing digests).",
          c.gossip_states_sent);
  counter("weft_gossip_deltas_sent_total", "Gossip deltas sent (answers to a whole state, and seen sets alone).",
          c.gossip_deltas_sent);
  counter("weft_control_too_large_total",
          "Control frames (gossip states) not sent because they exceed max_frame_bytes: raise max_frame_bytes.",
          c.control_too_large);
  counter("weft_handshakes_abandoned_total",
          "Authenticated links a dialer dropped after this node's proof, before its own (a dialer without our keys).",
          c.handshakes_abandoned);
  {
    Family f(out, "weft_links_closed_total", "counter", "Links this node closed, by reason.");
    for (std::size_t i = 0; i < kAllCloseReasons.size(); ++i) {
      f.sample("weft_links_closed_total{reason=\"" + std::string(to_string(kAllCloseReasons[i])) + "\"}",
               static_cast<double>(c.links_closed[i]));
    }
  }
  {
    Family f(out, "weft_wire_errors_total", "counter", "Malformed input by reason (each closed its link).");
    for (std::size_t i = 0; i < wire::kAllWireErrors.size(); ++i) {
      f.sample("weft_wire_errors_total{reason=\"" + std::string(wire::to_string(wire::kAllWireErrors[i])) + "\"}",
               static_cast<double>(c.wire_errors[i]));
    }
  }
  {
    Family f(out, "weft_dead_letters_total", "counter", "Messages that could not be delivered, by reason.");
    for (std::size_t i = 0; i < kDeadLetterReasonCount; ++i) {
      f.sample("weft_dead_letters_total{reason=\"" + std::string(to_string(static_cast<DeadLetterReason>(i))) + "\"}",
               static_cast<double>(c.dead_letters[i]));
    }
  }
  {
    Family f(out, "weft_outbound_queued_bytes", "gauge", "Bytes queued for each peer, control and user.");
    for (const Member& m : k.members().members()) {
      if (m.address() == k.self().address) continue;
      f.sample("weft_outbound_queued_bytes{peer=\"" + m.address().to_string() + "\"}",
               static_cast<double>(k.outbound_bytes_queued(m.address())));
    }
  }
  counter("weft_driver_accepted_total", "Connections accepted.", driver.accepted);
  counter("weft_driver_accept_failures_total",
          "Accepts that failed (out of descriptors: raise the open-file limit).", driver.accept_failures);
  counter("weft_driver_dialed_total", "Connections dialed.", driver.dialed);
  counter("weft_driver_connect_failures_total", "Dials that failed.", driver.connect_failures);
  counter("weft_driver_reads_total", "Socket reads.", driver.reads);
  counter("weft_driver_writes_total", "Socket writes completed.", driver.writes);
  counter("weft_driver_tls_handshakes_total", "TLS handshakes completed (0 without TLS).", driver.tls_handshakes);
  counter("weft_driver_tls_handshakes_evicted_total",
          "TLS handshakes closed unfinished for a newer one, max_pending_handshakes being in progress.",
          driver.tls_handshakes_evicted);
  {
    Family f(out, "weft_driver_tls_handshake_failures_total", "counter",
             "TLS handshakes that failed, by reason; each closed its connection before the kernel saw it.");
    for (const io::TlsFailure failure : io::kAllTlsFailures) {
      f.sample("weft_driver_tls_handshake_failures_total{reason=\"" + std::string(io::to_string(failure)) + "\"}",
               static_cast<double>(driver.tls_handshake_failures[static_cast<std::size_t>(failure)]));
    }
  }
  histogram(out, "weft_tick_lag_seconds", "How late the kernel's timer fired.", io::DriverStats::kLagBoundsMs, 1e-3,
            driver.tick_lag, static_cast<double>(driver.tick_lag_sum_ns) / 1e9);
  histogram(out, "weft_ask_seconds", "Round trips of the asks made through the admin endpoint.", AskLatency::kBoundsUs,
            1e-6, asks.buckets, static_cast<double>(asks.sum_ns) / 1e9);
  return s;
}

}  // namespace weft::daemon
