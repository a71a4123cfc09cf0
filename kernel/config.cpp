// Config: validation (one line per problem), key = value printing, and the
// time bounds of docs/properties.md derived from a config.
#include "kernel/config.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "kernel/wire/handshake.hpp"
#include "kernel/wire/refs.hpp"

namespace weft {
namespace {

std::string duration_text(Duration d) {
  if (d.ns() % 1'000'000'000 == 0) return std::to_string(d.ns() / 1'000'000'000) + "s";
  if (d.ns() % 1'000'000 == 0) return std::to_string(d.ms()) + "ms";
  return std::to_string(d.ns()) + "ns";
}

class Problems {
 public:
  void require(bool ok, const char* field, const std::string& what) {
    if (!ok) lines_.push_back(std::string(field) + ": " + what);
  }
  void positive(Duration d, const char* field) {
    require(d > Duration::zero(), field, "must be positive (got " + duration_text(d) + ")");
  }
  void not_negative(Duration d, const char* field) {
    require(d >= Duration::zero(), field, "must not be negative (got " + duration_text(d) + ")");
  }
  std::vector<std::string> take() { return std::move(lines_); }

 private:
  std::vector<std::string> lines_;
};

}  // namespace

PhiParameters Config::phi_parameters() const {
  return PhiParameters{phi_threshold, phi_min_std_deviation, phi_acceptable_pause,
                       phi_max_sample_size, heartbeat_interval};
}

namespace {

// The actor runtime's knobs (mailboxes, dispatch, asks).
void validate_actors(const Config& c, Problems& p) {
  p.require(c.mailbox_capacity >= 1, "mailbox_capacity", "must be at least 1");
  p.require(c.dispatch_batch >= 1, "dispatch_batch", "must be at least 1");
  p.require(c.dispatch_budget >= c.dispatch_batch, "dispatch_budget", "must be at least dispatch_batch");
  p.require(c.max_pending_asks >= 1, "max_pending_asks", "must be at least 1");
}

}  // namespace

std::vector<std::string> Config::validate() const {
  Problems p;
  p.require(!cluster_name.empty() && cluster_name.size() <= wire::kMaxClusterNameBytes,
            "cluster_name", "must be 1..64 bytes; name the cluster, e.g. cluster_name = \"prod-eu\"");
  p.require(!self.host.empty() && self.host.size() <= wire::kMaxHostBytes, "self.host",
            "must be a host name or IP of 1..253 bytes that peers can reach");
  p.require(self.port != 0, "self.port", "must be 1..65535: the port this node listens on");
  p.require(incarnation.value != 0, "incarnation",
            "must be non-zero; use e.g. the start time in milliseconds so a restart gets a larger one");
  for (const NodeAddress& seed : seeds) {
    p.require(!seed.host.empty() && seed.host.size() <= wire::kMaxHostBytes && seed.port != 0, "seeds",
              "each seed needs a host of 1..253 bytes and a non-zero port (got \"" +
                  seed.to_string().substr(0, 80) + "\")");
  }
  p.positive(gossip_interval, "gossip_interval");
  p.require(gossip_fanout >= 1 && gossip_fanout <= 16, "gossip_fanout", "must be 1..16 (3 is typical)");
  p.require(link_idle_timeout >= heartbeat_interval * 2, "link_idle_timeout",
            "must be at least two heartbeat_intervals (60 s is typical), or links that carry only heartbeat "
            "answers would close between them");
  p.positive(join_retry_interval, "join_retry_interval");
  p.positive(heartbeat_interval, "heartbeat_interval");
  p.require(monitored_by >= 1 && monitored_by <= 32, "monitored_by", "must be 1..32 (5 is typical)");
  p.require(phi_threshold >= 1.0 && phi_threshold <= 100.0, "phi_threshold",
            "must be 1..100; 8 suits a LAN, 10-12 a cloud network");
  p.positive(phi_min_std_deviation, "phi_min_std_deviation");
  p.not_negative(phi_acceptable_pause, "phi_acceptable_pause");
  p.require(phi_max_sample_size >= 2 && phi_max_sample_size <= 100'000, "phi_max_sample_size",
            "must be 2..100000 (1000 is typical)");
  p.positive(liveness_window, "liveness_window");
  p.require(liveness_window < heartbeat_interval, "liveness_window",
            "must be shorter than heartbeat_interval, or heartbeats themselves are throttled away");
  p.require(indirect_probes <= 16, "indirect_probes", "must be 0..16 (3 is typical)");
  p.positive(probe_timeout, "probe_timeout");
  p.require(self_pause_threshold > gossip_interval && self_pause_threshold > liveness_window,
            "self_pause_threshold",
            "must exceed gossip_interval and liveness_window, or ordinary tick spacing would look "
            "like a pause");
  p.positive(down_after_unreachable, "down_after_unreachable");
  p.positive(down_after_confirmed, "down_after_confirmed");
  p.positive(silence_slack, "silence_slack");
  p.require(down_after_confirmed <= down_after_unreachable || down_after_unreachable <= Duration::zero(),
            "down_after_confirmed",
            "must not exceed down_after_unreachable: confirmations shorten the wait, never lengthen it");
  p.positive(remove_after_down, "remove_after_down");
  p.require(tombstone_ttl > remove_after_down, "tombstone_ttl",
            "must exceed remove_after_down so a removed member is not revived by late gossip");
  p.require(max_incarnation_jump > 0, "max_incarnation_jump", "must be positive");
  p.require(max_tombstones >= 1, "max_tombstones", "must be at least 1 (10000 is typical)");
  p.not_negative(incarnation_clock_skew, "incarnation_clock_skew");
  p.require(max_frame_bytes >= 4096 && max_frame_bytes <= (1U << 30), "max_frame_bytes",
            "must be 4 KiB..1 GiB; it bounds memory per link and must fit the gossip of a full table");
  p.require(max_outbound_user_bytes >= max_frame_bytes, "max_outbound_user_bytes",
            "must be at least max_frame_bytes, or one large message could never be queued");
  p.require(max_outbound_control_bytes >= max_frame_bytes, "max_outbound_control_bytes",
            "must be at least max_frame_bytes");
  p.require(max_write_bytes >= 4096, "max_write_bytes",
            "must be at least 4 KiB (a write always carries at least one whole frame)");
  p.positive(reconnect_backoff_min, "reconnect_backoff_min");
  p.require(reconnect_backoff_max >= reconnect_backoff_min, "reconnect_backoff_max",
            "must be at least reconnect_backoff_min");
  p.positive(handshake_timeout, "handshake_timeout");
  p.require(max_new_members_per_peer >= 1, "max_new_members_per_peer", "must be at least 1 (1000 is typical)");
  p.require(max_pending_handshakes >= 1 && max_pending_handshakes <= 1'000'000, "max_pending_handshakes",
            "must be 1..1000000 (1024 is typical)");
  p.require(!auth.enabled() || auth.mac != nullptr, "auth.mac",
            "must be set when auth.keys is not empty (drivers pass auth/hmac_sha256.hpp's hmac_sha256)");
  validate_actors(*this, p);
  return p.take();
}

std::string Config::to_string() const {
  std::string seeds_text;
  // Appended piece by piece: `"x" + std::string` (operator+ prepending into the
  // temporary) draws a false -Wrestrict from gcc 12 at -O3 (GCC bug 105329).
  for (const NodeAddress& seed : seeds) {
    if (!seeds_text.empty()) seeds_text += ',';
    seeds_text += seed.to_string();
  }
  // to_chars, not printf: the text must not follow the process's locale. A
  // threshold too large for fixed notation here (never a valid one) falls
  // back to the shortest form, which always fits.
  char phi_buffer[32];
  auto [phi_end, phi_error] =
      std::to_chars(phi_buffer, phi_buffer + sizeof phi_buffer, phi_threshold, std::chars_format::fixed, 3);
  if (phi_error != std::errc{}) phi_end = std::to_chars(phi_buffer, phi_buffer + sizeof phi_buffer, phi_threshold).ptr;
  const std::string phi_text(phi_buffer, phi_end);
  const auto line = [](const char* key, const std::string& value) {
    return std::string(key) + " = " + value + "\n";
  };
  return line("cluster_name", cluster_name) + line("self", self.to_string()) +
         line("incarnation", std::to_string(incarnation.value)) + line("seeds", seeds_text) +
         line("gossip_interval", duration_text(gossip_interval)) +
         line("gossip_fanout", std::to_string(gossip_fanout)) +
         line("link_idle_timeout", duration_text(link_idle_timeout)) +
         line("join_retry_interval", duration_text(join_retry_interval)) +
         line("heartbeat_interval", duration_text(heartbeat_interval)) +
         line("monitored_by", std::to_string(monitored_by)) + line("phi_threshold", phi_text) +
         line("phi_min_std_deviation", duration_text(phi_min_std_deviation)) +
         line("phi_acceptable_pause", duration_text(phi_acceptable_pause)) +
         line("phi_max_sample_size", std::to_string(phi_max_sample_size)) +
         line("liveness_window", duration_text(liveness_window)) +
         line("indirect_probes", std::to_string(indirect_probes)) +
         line("probe_timeout", duration_text(probe_timeout)) +
         line("self_pause_threshold", duration_text(self_pause_threshold)) +
         line("down_after_unreachable", duration_text(down_after_unreachable)) +
         line("down_after_confirmed", duration_text(down_after_confirmed)) +
         line("silence_slack", duration_text(silence_slack)) +
         line("remove_after_down", duration_text(remove_after_down)) +
         line("tombstone_ttl", duration_text(tombstone_ttl)) +
         line("forgotten_lives", std::to_string(forgotten_lives)) +
         line("max_tombstones", std::to_string(max_tombstones)) +
         line("on_downed", on_downed == OnDowned::rejoin ? "rejoin" : "shut_down") +
         line("max_incarnation_jump", std::to_string(max_incarnation_jump)) +
         line("incarnation_clock_skew", duration_text(incarnation_clock_skew)) +
         line("max_new_members_per_peer", std::to_string(max_new_members_per_peer)) +
         line("max_frame_bytes", std::to_string(max_frame_bytes)) +
         line("max_outbound_user_bytes", std::to_string(max_outbound_user_bytes)) +
         line("max_outbound_control_bytes", std::to_string(max_outbound_control_bytes)) +
         line("max_write_bytes", std::to_string(max_write_bytes)) +
         line("reconnect_backoff_min", duration_text(reconnect_backoff_min)) +
         line("reconnect_backoff_max", duration_text(reconnect_backoff_max)) +
         line("handshake_timeout", duration_text(handshake_timeout)) +
         line("max_pending_handshakes", std::to_string(max_pending_handshakes)) +
         line("auth_keys", auth.enabled() ? std::to_string(auth.keys.size()) + " key(s), first signs" : "off") +
         line("mailbox_capacity", std::to_string(mailbox_capacity)) +
         line("mailbox_overflow",
              mailbox_overflow == MailboxOverflow::reject_new ? "reject_new" : "drop_oldest") +
         line("dispatch_batch", std::to_string(dispatch_batch)) +
         line("dispatch_budget", std::to_string(dispatch_budget)) +
         line("max_pending_asks", std::to_string(max_pending_asks)) +
         (mutations.any() ? line("mutations", "ON (test-only defects)") : std::string());
}

std::uint32_t gossip_rounds_to_spread(std::size_t cluster_size, std::uint32_t fanout) {
  WEFT_ASSERT(fanout >= 1);
  std::uint32_t rounds = 0;
  for (std::size_t reached = 1; reached < cluster_size; reached *= (fanout + 1)) ++rounds;
  return 2 * rounds + 3;
}

Duration forgiven_pause(const Config& config) {
  return config.phi_acceptable_pause + config.heartbeat_interval + config.probe_timeout +
         config.down_after_confirmed;
}

Bounds compute_bounds(const Config& config, std::size_t cluster_size) {
  Bounds b;
  // The slowest detector to trip is one that has heard only once: its sigma
  // is the larger of the floor and the bootstrap's spread (heartbeat/4), and
  // a member can fail at any age. It trips where y = (t - mean) / sigma
  // reaches the threshold's y, the same solve PhiDetector makes.
  const double mean = static_cast<double>((config.heartbeat_interval + config.phi_acceptable_pause).ns());
  const double sigma = static_cast<double>(
      std::max(config.phi_min_std_deviation, config.heartbeat_interval / 4).ns());
  const double high = mean + PhiDetector::threshold_y(config.phi_threshold) * sigma;
  b.phi_trip = Duration::nanoseconds(static_cast<std::int64_t>(std::ceil(high)));
  {
    // The same solve as the detector's: one that has heard once has tripped
    // by phi_trip (a nanosecond of slack for the two roundings).
    PhiDetector young(config.phi_parameters());
    young.heartbeat(Instant::epoch());
    WEFT_ASSERT(!young.available(Instant::epoch() + b.phi_trip + Duration::nanoseconds(1)));
  }
  // A threshold of 1 or more means a tail of 10 % or less: past the mean.
  WEFT_ASSERT(config.phi_threshold < 1 || high > mean);
  const std::uint32_t rounds = gossip_rounds_to_spread(cluster_size, config.gossip_fanout);
  b.spread = config.gossip_interval * rounds;
  // Crash -> the observer's last heartbeat is at most one interval (plus a
  // throttle window) old -> phi trips -> indirect probes time out -> the
  // unreachable row spreads.
  b.detect = config.heartbeat_interval + config.liveness_window + b.phi_trip + config.probe_timeout +
             config.gossip_interval + b.spread;
  b.down = b.detect + config.down_after_unreachable + config.gossip_interval + b.spread;
  // The links close at once; the redial (after the shortest backoff) is
  // refused, which starts a probe at once; it times out; the marks spread;
  // every expected observer has marked, so the leader waits
  // down_after_confirmed; the down spreads.
  b.forgiven_pause = forgiven_pause(config);
  b.down_closed = config.reconnect_backoff_min + config.probe_timeout + config.gossip_interval + b.spread +
                  config.down_after_confirmed + config.gossip_interval + b.spread;
  // After the last fault: pending downs complete, removals follow, and the
  // result spreads.
  b.converge = b.down + config.remove_after_down + config.gossip_interval + b.spread;
  // After a partition heals: links redial (worst backoff), then the sides
  // exchange state and nodes downed by the other side rejoin.
  b.heal = config.reconnect_backoff_max + config.join_retry_interval + b.converge;
  b.refute = (config.gossip_interval + b.spread) * 3 + config.gossip_interval;
  b.vouch = config.down_after_unreachable + (config.gossip_interval + b.spread) * 2;
  // A pause that is forgiven must be shorter than a crash takes to be downed,
  // or the two promises of docs/properties.md contradict each other.
  WEFT_ASSERT(b.forgiven_pause < b.down);
  return b;
}

}  // namespace weft
