// Goal: Config::validate accepts the defaults (once the one required field,
// self, is set) and names the field of every problem; compute_bounds orders
// its bounds sensibly, trips phi where the detector does, and grows its
// gossip spread like log N.
#include "kernel/config.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace weft {
namespace {

Config valid_config() {
  Config c;
  c.self = NodeAddress{"10.0.0.1", 7000};
  return c;
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

TEST(Config, DefaultsWithSelfValidateClean) {
  const std::vector<std::string> problems = valid_config().validate();
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

TEST(Config, SelfIsTheOneRequiredField) {
  // Config{} leaves self empty on purpose; exactly its two parts are named.
  const std::vector<std::string> problems = Config{}.validate();
  ASSERT_EQ(problems.size(), 2U) << joined(problems);
  EXPECT_TRUE(starts_with(problems[0], "self.host: ")) << problems[0];
  EXPECT_TRUE(starts_with(problems[1], "self.port: ")) << problems[1];
}

TEST(Config, PhiParametersMirrorTheConfig) {
  Config c = valid_config();
  c.phi_threshold = 10.0;
  c.phi_min_std_deviation = Duration::milliseconds(200);
  c.phi_acceptable_pause = Duration::seconds(5);
  c.phi_max_sample_size = 200;
  c.heartbeat_interval = Duration::milliseconds(500);
  const PhiParameters p = c.phi_parameters();
  EXPECT_EQ(p.threshold, 10.0);
  EXPECT_EQ(p.min_std_deviation, Duration::milliseconds(200));
  EXPECT_EQ(p.acceptable_pause, Duration::seconds(5));
  EXPECT_EQ(p.max_sample_size, 200U);
  EXPECT_EQ(p.first_heartbeat_estimate, Duration::milliseconds(500));
}

struct InvalidCase {
  const char* field;  // the name the message must open with
  std::function<void(Config&)> spoil;
};

// One field spoiled at a time; the config must yield exactly one problem,
// and its line must open with "field: " and say something after it.
TEST(Config, EachInvalidFieldIsNamed) {
  const std::vector<InvalidCase> cases = {
      {"cluster_name", [](Config& c) { c.cluster_name.clear(); }},
      {"cluster_name", [](Config& c) { c.cluster_name = std::string(65, 'x'); }},
      {"self.host", [](Config& c) { c.self.host = std::string(254, 'h'); }},
      {"self.port", [](Config& c) { c.self.port = 0; }},
      {"incarnation", [](Config& c) { c.incarnation = Incarnation{0}; }},
      {"seeds", [](Config& c) { c.seeds = {NodeAddress{"10.0.0.2", 7000}, NodeAddress{"", 7000}}; }},
      {"seeds", [](Config& c) { c.seeds = {NodeAddress{"10.0.0.2", 0}}; }},
      {"gossip_interval", [](Config& c) { c.gossip_interval = Duration::zero(); }},
      {"gossip_fanout", [](Config& c) { c.gossip_fanout = 0; }},
      {"gossip_fanout", [](Config& c) { c.gossip_fanout = 17; }},
      {"link_idle_timeout", [](Config& c) { c.link_idle_timeout = Duration::milliseconds(1999); }},
      {"join_retry_interval", [](Config& c) { c.join_retry_interval = Duration::milliseconds(-1); }},
      {"monitored_by", [](Config& c) { c.monitored_by = 0; }},
      {"phi_threshold", [](Config& c) { c.phi_threshold = 0.5; }},
      {"phi_threshold", [](Config& c) { c.phi_threshold = 101.0; }},
      {"phi_threshold", [](Config& c) { c.phi_threshold = std::nan(""); }},
      {"phi_min_std_deviation", [](Config& c) { c.phi_min_std_deviation = Duration::zero(); }},
      {"phi_acceptable_pause", [](Config& c) { c.phi_acceptable_pause = Duration::seconds(-1); }},
      {"phi_max_sample_size", [](Config& c) { c.phi_max_sample_size = 1; }},
      {"phi_max_sample_size", [](Config& c) { c.phi_max_sample_size = 100'001; }},
      {"liveness_window", [](Config& c) { c.liveness_window = Duration::zero(); }},
      // Cross-field: a window as long as the heartbeat interval would throttle heartbeats.
      {"liveness_window", [](Config& c) { c.heartbeat_interval = c.liveness_window; }},
      {"indirect_probes", [](Config& c) { c.indirect_probes = 17; }},
      {"probe_timeout", [](Config& c) { c.probe_timeout = Duration::zero(); }},
      {"self_pause_threshold", [](Config& c) { c.self_pause_threshold = Duration::milliseconds(200); }},
      {"down_after_unreachable", [](Config& c) { c.down_after_unreachable = Duration::zero(); }},
      {"down_after_confirmed", [](Config& c) { c.down_after_confirmed = Duration::zero(); }},
      // Cross-field: confirmations may only shorten the wait.
      {"down_after_confirmed", [](Config& c) { c.down_after_confirmed = c.down_after_unreachable * 2; }},
      {"silence_slack", [](Config& c) { c.silence_slack = Duration::zero(); }},
      {"remove_after_down", [](Config& c) { c.remove_after_down = Duration::seconds(-2); }},
      {"tombstone_ttl", [](Config& c) { c.tombstone_ttl = c.remove_after_down; }},
      {"max_incarnation_jump", [](Config& c) { c.max_incarnation_jump = 0; }},
      {"max_frame_bytes", [](Config& c) { c.max_frame_bytes = 4095; }},
      {"max_outbound_user_bytes", [](Config& c) { c.max_outbound_user_bytes = c.max_frame_bytes - 1; }},
      {"max_outbound_control_bytes", [](Config& c) { c.max_outbound_control_bytes = 0; }},
      {"reconnect_backoff_min", [](Config& c) { c.reconnect_backoff_min = Duration::zero(); }},
      {"reconnect_backoff_max", [](Config& c) { c.reconnect_backoff_max = Duration::milliseconds(99); }},
      {"mailbox_capacity", [](Config& c) { c.mailbox_capacity = 0; }},
      {"dispatch_budget", [](Config& c) { c.dispatch_budget = c.dispatch_batch - 1; }},
      {"max_pending_asks", [](Config& c) { c.max_pending_asks = 0; }},
  };
  for (const InvalidCase& k : cases) {
    Config c = valid_config();
    k.spoil(c);
    const std::vector<std::string> problems = c.validate();
    ASSERT_EQ(problems.size(), 1U) << k.field << ":\n" << joined(problems);
    const std::string prefix = std::string(k.field) + ": ";
    EXPECT_TRUE(starts_with(problems[0], prefix)) << problems[0];
    EXPECT_GT(problems[0].size(), prefix.size() + 10) << "no explanation: " << problems[0];
  }
}

TEST(Config, NegativeDurationMessageShowsTheValue) {
  Config c = valid_config();
  c.gossip_interval = Duration::milliseconds(-5);
  const std::vector<std::string> problems = c.validate();
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_NE(problems[0].find("-5ms"), std::string::npos) << problems[0];
}

TEST(Config, EveryProblemIsReportedAtOnce) {
  Config c;  // self missing: two problems
  c.gossip_fanout = 0;
  c.phi_threshold = 0;
  c.mailbox_capacity = 0;
  const std::vector<std::string> problems = c.validate();
  ASSERT_EQ(problems.size(), 5U) << joined(problems);
  const std::vector<std::string> fields = {"self.host", "self.port", "gossip_fanout", "phi_threshold",
                                           "mailbox_capacity"};
  for (std::size_t i = 0; i < fields.size(); ++i) {
    EXPECT_TRUE(starts_with(problems[i], fields[i] + ": ")) << problems[i];
  }
}

TEST(Config, ToStringHasOneLinePerFieldInOrder) {
  const std::string text = valid_config().to_string();
  EXPECT_NE(text.find("cluster_name = weft\n"), std::string::npos);
  EXPECT_NE(text.find("self = 10.0.0.1:7000\n"), std::string::npos);
  EXPECT_NE(text.find("gossip_interval = 200ms\n"), std::string::npos);
  EXPECT_NE(text.find("phi_threshold = 8.000\n"), std::string::npos);
  EXPECT_NE(text.find("tombstone_ttl = 3600s\n"), std::string::npos);
  EXPECT_LT(text.find("cluster_name"), text.find("max_pending_asks"));
}

// Regression: a seed host no peer could be named by (over 253 bytes) is
// reported by validate(), not found later at dial or encode time.
TEST(Config, OverlongSeedHostIsNamed) {
  Config c = valid_config();
  c.seeds = {NodeAddress{std::string(254, 'h'), 7000}};
  const std::vector<std::string> problems = c.validate();
  ASSERT_EQ(problems.size(), 1U) << joined(problems);
  EXPECT_TRUE(starts_with(problems[0], "seeds: ")) << problems[0];
}

// --- Bounds

TEST(Bounds, PhiTripCoversTheYoungestDetector) {
  // A detector that has heard once has the bootstrap's spread (sigma =
  // heartbeat/4 = 250 ms) and is the slowest to trip: 5.3065 s with the
  // defaults (tests/phi_reference.py, kBootstrapCrossingNs). phi_trip is
  // computed for it, so it bounds every detector with a quieter window.
  const Config c = valid_config();
  const Bounds b = compute_bounds(c, 5);
  EXPECT_GE(b.phi_trip, Duration::milliseconds(5306));
  EXPECT_LE(b.phi_trip, Duration::milliseconds(5307));

  PhiDetector young(c.phi_parameters());
  young.heartbeat(Instant::epoch());
  EXPECT_TRUE(young.available(Instant::epoch() + b.phi_trip - Duration::milliseconds(1)));
  EXPECT_FALSE(young.available(Instant::epoch() + b.phi_trip));

  // A settled detector, fed steady heartbeats, trips earlier (4.5226 s,
  // tests/phi_reference.py: phi >= 8 from 4522598665 ns).
  PhiDetector steady(c.phi_parameters());
  for (std::int64_t s = 0; s <= 20; ++s) steady.heartbeat(Instant::epoch() + Duration::seconds(s));
  const Instant last = steady.last_heartbeat();
  EXPECT_TRUE(steady.available(last + Duration::nanoseconds(4'522'598'664)));
  EXPECT_FALSE(steady.available(last + Duration::nanoseconds(4'522'598'666)));
  EXPECT_FALSE(steady.available(last + b.phi_trip));
}

TEST(Bounds, PhiTripFollowsTheThresholdAndThePause) {
  Config c = valid_config();
  const Duration base = compute_bounds(c, 5).phi_trip;
  c.phi_threshold = 12;
  EXPECT_GT(compute_bounds(c, 5).phi_trip, base);
  c = valid_config();
  c.phi_acceptable_pause = Duration::seconds(10);
  EXPECT_EQ(compute_bounds(c, 5).phi_trip.ms(), base.ms() + 7000);  // shifts one for one
}

TEST(Bounds, AreOrderedDetectDownConvergeHeal) {
  for (const std::size_t n : std::vector<std::size_t>{1, 2, 5, 100, 1000, 100'000}) {
    const Bounds b = compute_bounds(valid_config(), n);
    EXPECT_GT(b.phi_trip, Duration::zero()) << n;
    EXPECT_GT(b.spread, Duration::zero()) << n;
    EXPECT_GT(b.detect, b.phi_trip) << n;
    EXPECT_GT(b.detect, b.spread) << n;
    EXPECT_LT(b.detect, b.down) << n;
    EXPECT_LT(b.down, b.converge) << n;
    EXPECT_LT(b.converge, b.heal) << n;
  }
}

TEST(Bounds, DefaultsAreOfTheExpectedSize) {
  const Bounds b = compute_bounds(valid_config(), 5);
  // Spread: 7 rounds of 200 ms; detect about 1 + 0.05 + 5.31 + 0.5 + 0.2 + 1.4 s.
  EXPECT_EQ(b.spread, Duration::milliseconds(1400));
  EXPECT_GT(b.detect, Duration::seconds(8));
  EXPECT_LT(b.detect, Duration::seconds(9));
  EXPECT_LT(b.heal, Duration::seconds(30));
}

TEST(Bounds, SpreadGrowsLikeLogN) {
  const Config c = valid_config();  // fanout 3: reach x4 per round
  const Duration s5 = compute_bounds(c, 5).spread;
  const Duration s100 = compute_bounds(c, 100).spread;
  const Duration s1000 = compute_bounds(c, 1000).spread;
  EXPECT_LT(s5, s100);
  EXPECT_LT(s100, s1000);
  // rounds = 2 * ceil(log4 N) + 3: 7, 11, 13.
  EXPECT_EQ(s5, c.gossip_interval * 7);
  EXPECT_EQ(s100, c.gossip_interval * 11);
  EXPECT_EQ(s1000, c.gossip_interval * 13);
  // 10x the nodes (100 -> 1000) costs less than 20x (5 -> 100), and far less
  // than linear.
  EXPECT_LT(s1000 - s100, s100 - s5);
  EXPECT_LT(s1000 / s100, 2);
}

TEST(Bounds, GossipRoundsMatchTheLogFormulaForManySizes) {
  for (std::uint32_t fanout : {1U, 2U, 3U, 7U, 16U}) {
    std::uint32_t previous = 0;
    for (std::size_t n = 1; n <= 200'000; n = n * 3 + 1) {
      const std::uint32_t rounds = gossip_rounds_to_spread(n, fanout);
      // Smallest r with (fanout + 1)^r >= n, computed in floating point; the
      // -1e-9 keeps exact powers (n = 1, and n = 4 for fanout 1 and 3) from
      // rounding up a whole round.
      const double r = std::ceil(std::log(static_cast<double>(n)) / std::log(fanout + 1.0) - 1e-9);
      EXPECT_EQ(rounds, 2 * static_cast<std::uint32_t>(r) + 3) << "n " << n << " fanout " << fanout;
      EXPECT_GE(rounds, previous);
      previous = rounds;
    }
  }
}

TEST(Bounds, HigherFanoutSpreadsFaster) {
  Config c = valid_config();
  const Duration fanout3 = compute_bounds(c, 1000).spread;
  c.gossip_fanout = 8;
  EXPECT_LT(compute_bounds(c, 1000).spread, fanout3);
}

}  // namespace
}  // namespace weft
