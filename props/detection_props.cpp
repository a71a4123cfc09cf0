// F5 for the LivenessThrottle over random frame arrivals, and properties of
// the PhiDetector over random heartbeat histories: phi never falls as
// silence grows (PHI-MONOTONE), and a peer heartbeating on time is not
// suspected at its heartbeats (PHI-ON-TIME) nor, with Akka's pause, up to one
// interval after them (PHI-ON-TIME-INTERVAL).
//
// The F5 guarantees, for one peer and window w:
//   (a) passed observations are at least w apart (F5a);
//   (b) every frame at t has a passed observation in (t - w, t] (F5b).
// Each property takes the throttle (or the phi function, or the verdict) as
// a parameter, so it is also aimed at broken variants defined here and shown
// to fail as that property (props/catches.hpp).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "catches.hpp"
#include "kernel/detection/liveness_throttle.hpp"
#include "kernel/detection/phi_detector.hpp"

namespace weft::props {
namespace {

constexpr Duration kWindow = Duration::milliseconds(50);

// --- Frame arrivals: sorted instants with gaps mixing bursts (same
// instant, microseconds), the 49/50/51 ms edges to the nanosecond, ordinary
// spacing and long silences.

rc::Gen<std::int64_t> gen_gap_ns() {
  constexpr std::int64_t ms = 1'000'000;
  return rc::gen::weightedOneOf<std::int64_t>({
      {3, rc::gen::just<std::int64_t>(0)},                               // same instant
      {4, rc::gen::inRange<std::int64_t>(1, 1'000'000)},                 // burst: < 1 ms
      {3, rc::gen::inRange<std::int64_t>(49 * ms - 2, 51 * ms + 3)},     // window edges
      {4, rc::gen::inRange<std::int64_t>(1 * ms, 120 * ms)},             // ordinary
      {1, rc::gen::inRange<std::int64_t>(120 * ms, 5'000 * ms)},         // silence
  });
}

std::vector<Instant> gen_arrivals() {
  const std::int64_t start_ns = *rc::gen::inRange<std::int64_t>(0, 1'000'000'000'000);
  const auto gaps = *rc::gen::container<std::vector<std::int64_t>>(gen_gap_ns());
  std::vector<Instant> frames;
  Instant t = Instant::from_ns(start_ns);
  frames.push_back(t);
  for (const std::int64_t gap : gaps) {
    t += Duration::nanoseconds(gap);
    frames.push_back(t);
  }
  return frames;
}

// A throttle under test: given the arrivals, which frames pass.
using Throttle = std::function<std::vector<bool>(const std::vector<Instant>&)>;

std::vector<bool> real_throttle(const std::vector<Instant>& frames) {
  LivenessThrottle throttle(kWindow);
  std::vector<bool> passed;
  for (const Instant t : frames) passed.push_back(throttle.observe(t));
  return passed;
}

// Broken on purpose: no throttle at all.
std::vector<bool> pass_everything(const std::vector<Instant>& frames) {
  return std::vector<bool>(frames.size(), true);
}

// Broken on purpose: epoch-aligned 50 ms buckets, passing the first frame of
// each bucket and dropping the rest of that bucket. Two frames either side
// of a bucket boundary both pass, however close: breaks (a).
std::vector<bool> aligned_buckets(const std::vector<Instant>& frames) {
  std::vector<bool> passed;
  bool any = false;
  std::int64_t last_bucket = 0;
  for (const Instant t : frames) {
    const std::int64_t bucket = t.ns_since_epoch() / kWindow.ns();
    passed.push_back(!any || bucket != last_bucket);
    any = true;
    last_bucket = bucket;
  }
  return passed;
}

// Broken on purpose: at most one observation per 100 ms. Keeps (a), but a
// frame 60 ms after a passed one has no observation in its 50 ms: breaks (b).
std::vector<bool> one_per_hundred_ms(const std::vector<Instant>& frames) {
  LivenessThrottle throttle(Duration::milliseconds(100));
  std::vector<bool> passed;
  for (const Instant t : frames) passed.push_back(throttle.observe(t));
  return passed;
}

std::vector<Instant> passed_observations(const std::vector<Instant>& frames,
                                         const std::vector<bool>& passed) {
  std::vector<Instant> out;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (passed[i]) out.push_back(frames[i]);
  }
  return out;
}

// (a) passed observations are at least a window apart.
void observations_are_a_window_apart(const Throttle& throttle) {
  const std::vector<Instant> frames = gen_arrivals();
  const std::vector<bool> passed = throttle(frames);
  RC_ASSERT(passed.size() == frames.size());
  const std::vector<Instant> observations = passed_observations(frames, passed);
  for (std::size_t i = 1; i < observations.size(); ++i) {
    PROP_ASSERT("F5a", observations[i] - observations[i - 1] >= kWindow);
  }
}

// (b) every frame at t has a passed observation in (t - window, t].
void every_frame_is_covered_within_a_window(const Throttle& throttle) {
  const std::vector<Instant> frames = gen_arrivals();
  const std::vector<bool> passed = throttle(frames);
  RC_ASSERT(passed.size() == frames.size());
  const std::vector<Instant> observations = passed_observations(frames, passed);
  std::size_t next = 0;  // both lists are sorted: walk them together
  bool have_latest = false;
  Instant latest;  // the latest observation at or before the frame
  for (const Instant t : frames) {
    while (next < observations.size() && observations[next] <= t) {
      latest = observations[next++];
      have_latest = true;
    }
    PROP_ASSERT("F5b", have_latest);
    PROP_ASSERT("F5b", t - latest < kWindow);
  }
}

RC_GTEST_PROP(F5LivenessThrottle, ObservationsAreAWindowApart, ()) {
  observations_are_a_window_apart(real_throttle);
}

RC_GTEST_PROP(F5LivenessThrottle, EveryFrameHasAnObservationWithinAWindow, ()) {
  every_frame_is_covered_within_a_window(real_throttle);
}

// The rule itself, for any window: pass iff the last passed observation is
// at or before now - window.
RC_GTEST_PROP(F5LivenessThrottle, PassesExactlyByTheRuleForAnyWindow, ()) {
  const Duration window = Duration::microseconds(*rc::gen::inRange<std::int64_t>(1, 200'000));
  LivenessThrottle throttle(window);
  bool any = false;
  Instant last;
  for (const Instant t : gen_arrivals()) {
    const bool expected = !any || last <= t - window;
    PROP_ASSERT("F5-RULE", throttle.observe(t) == expected);
    if (expected) {
      any = true;
      last = t;
    }
    PROP_ASSERT("F5-RULE", throttle.has_passed());
    PROP_ASSERT("F5-RULE", throttle.last_passed() == last);
  }
}

TEST(F5Catches, PassEverythingBreaksTheSpacing) {
  EXPECT_TRUE(fails_as("F5a", "(a) for a throttle that passes everything",
                       [] { observations_are_a_window_apart(pass_everything); }));
}

TEST(F5Catches, AlignedBucketsBreakTheSpacing) {
  EXPECT_TRUE(fails_as("F5a", "(a) for epoch-aligned 50 ms buckets",
                       [] { observations_are_a_window_apart(aligned_buckets); }));
}

// Why the buckets are caught by (a) and not (b): the first frame of a
// bucket passes, so every later frame of that bucket is within 50 ms of it.
TEST(F5Catches, AlignedBucketsStillCoverEveryFrame) {
  EXPECT_TRUE(rc::check("(b) for epoch-aligned 50 ms buckets",
                        [] { every_frame_is_covered_within_a_window(aligned_buckets); }));
}

TEST(F5Catches, OnePerHundredMillisecondsBreaksTheCoverage) {
  EXPECT_TRUE(fails_as("F5b", "(b) for a throttle passing one per 100 ms",
                       [] { every_frame_is_covered_within_a_window(one_per_hundred_ms); }));
}

TEST(F5Catches, OnePerHundredMillisecondsStillKeepsTheSpacing) {
  EXPECT_TRUE(rc::check("(a) for a throttle passing one per 100 ms",
                        [] { observations_are_a_window_apart(one_per_hundred_ms); }));
}

// --- PhiDetector

// Parameters anywhere in Config::validate's accepted ranges (threshold kept
// to 1..16, where it is meaningful).
PhiParameters gen_parameters() {
  PhiParameters p;
  p.threshold = static_cast<double>(*rc::gen::inRange(10, 161)) / 10.0;
  p.min_std_deviation = Duration::milliseconds(*rc::gen::inRange<std::int64_t>(1, 1000));
  p.acceptable_pause = Duration::milliseconds(*rc::gen::inRange<std::int64_t>(0, 10'000));
  p.max_sample_size = *rc::gen::inRange<std::uint32_t>(2, 60);
  p.first_heartbeat_estimate = Duration::milliseconds(*rc::gen::inRange<std::int64_t>(1, 5000));
  return p;
}

// Heartbeats at random intervals up to `max_interval` (some past the
// threshold, so not learnt), fed to `d`. Returns the last heartbeat.
Instant feed_history(PhiDetector& d, Duration max_interval) {
  Instant t = Instant::from_ns(*rc::gen::inRange<std::int64_t>(0, 1'000'000'000'000));
  d.heartbeat(t);
  const auto intervals = *rc::gen::container<std::vector<std::int64_t>>(
      rc::gen::inRange<std::int64_t>(0, max_interval.ns() + 1));
  for (const std::int64_t ns : intervals) {
    t += Duration::nanoseconds(ns);
    d.heartbeat(t);
  }
  return t;
}

// A phi function under test: the detector's own, or a broken one computed
// from the detector's public state.
using PhiFunction = double (*)(const PhiDetector&, const PhiParameters&, Instant);

double real_phi(const PhiDetector& d, const PhiParameters&, Instant now) { return d.phi(now); }

// Broken on purpose: a two-sided tail, |y| instead of y: an early heartbeat
// looks as suspicious as a late one.
double two_sided_phi(const PhiDetector& d, const PhiParameters& p, Instant now) {
  const double elapsed = static_cast<double>((now - d.last_heartbeat()).ns());
  const double mean = d.mean_ns() + static_cast<double>(p.acceptable_pause.ns());
  const double sigma = std::max(d.std_deviation_ns(), static_cast<double>(p.min_std_deviation.ns()));
  const double y = std::fabs(elapsed - mean) / sigma;
  return PhiDetector::phi_of(mean + y * sigma, mean, sigma);
}

void phi_is_monotone_in_elapsed_time(PhiFunction phi) {
  const PhiParameters p = gen_parameters();
  PhiDetector d(p);
  const Instant last = feed_history(d, Duration::seconds(20));
  auto elapsed = *rc::gen::container<std::vector<std::int64_t>>(
      rc::gen::inRange<std::int64_t>(0, 60'000'000'000));
  elapsed.push_back(0);
  std::sort(elapsed.begin(), elapsed.end());
  double previous = phi(d, p, last);
  for (const std::int64_t ns : elapsed) {
    const double now = phi(d, p, last + Duration::nanoseconds(ns));
    PROP_ASSERT("PHI-MONOTONE", !std::isnan(now));
    PROP_ASSERT("PHI-MONOTONE", now >= previous);
    previous = now;
  }
}

// Right after a heartbeat, from a peer whose intervals never exceeded the
// heartbeat interval, phi is below the threshold.
void on_time_peer_is_not_suspected_at_its_heartbeat(PhiFunction phi) {
  const PhiParameters p = gen_parameters();
  const Duration heartbeat_interval = p.first_heartbeat_estimate;  // the bootstrap estimate
  PhiDetector d(p);
  Instant t = Instant::from_ns(*rc::gen::inRange<std::int64_t>(0, 1'000'000'000'000));
  const auto intervals = *rc::gen::container<std::vector<std::int64_t>>(
      rc::gen::inRange<std::int64_t>(0, heartbeat_interval.ns() + 1));
  d.heartbeat(t);
  PROP_ASSERT("PHI-ON-TIME", phi(d, p, t) < p.threshold);
  for (const std::int64_t ns : intervals) {
    t += Duration::nanoseconds(ns);
    d.heartbeat(t);
    PROP_ASSERT("PHI-ON-TIME", phi(d, p, t) < p.threshold);
  }
}

RC_GTEST_PROP(PhiDetectorProps, PhiIsMonotoneInElapsedTime, ()) { phi_is_monotone_in_elapsed_time(real_phi); }

RC_GTEST_PROP(PhiDetectorProps, OnTimePeerIsBelowThresholdRightAfterItsHeartbeat, ()) {
  on_time_peer_is_not_suspected_at_its_heartbeat(real_phi);
}

// Whether a peer is judged available at `now`: the detector's own verdict,
// or a broken one computed from the detector's public state. The detector
// itself still learns by its own verdict, so a broken verdict is caught by
// what it says, not by what the window learns.
using Verdict = bool (*)(const PhiDetector&, const PhiParameters&, Instant);

bool real_verdict(const PhiDetector& d, const PhiParameters&, Instant now) { return d.available(now); }

// Broken on purpose: phi without acceptable_pause in the mean, so a peer
// is judged against its bare intervals. Right after a heartbeat it is as
// unsuspected as ever (PHI-ON-TIME holds); a peer whose recent intervals
// were short is suspected before its next on-time heartbeat.
double pause_blind_phi(const PhiDetector& d, const PhiParameters& p, Instant now) {
  const double elapsed = static_cast<double>((now - d.last_heartbeat()).ns());
  const double sigma = std::max(d.std_deviation_ns(), static_cast<double>(p.min_std_deviation.ns()));
  return PhiDetector::phi_of(elapsed, d.mean_ns(), sigma);
}

bool pause_blind_verdict(const PhiDetector& d, const PhiParameters& p, Instant now) {
  return pause_blind_phi(d, p, now) < p.threshold;
}

bool two_sided_verdict(const PhiDetector& d, const PhiParameters& p, Instant now) {
  return two_sided_phi(d, p, now) < p.threshold;
}

// Stronger, with Akka's shape (acceptable pause >= heartbeat interval): an
// on-time peer is not suspected at any point up to one interval after its
// last heartbeat, so every on-time interval is learnt. Checking one interval
// after each heartbeat suffices for the real detector, whose phi only grows
// with silence (PHI-MONOTONE).
void on_time_peer_is_not_suspected_within_one_interval(Verdict available) {
  PhiParameters p = gen_parameters();
  const Duration heartbeat_interval = p.first_heartbeat_estimate;
  if (p.acceptable_pause < heartbeat_interval) p.acceptable_pause = heartbeat_interval;
  PhiDetector d(p);
  Instant t = Instant::from_ns(0);
  d.heartbeat(t);
  const auto intervals = *rc::gen::container<std::vector<std::int64_t>>(
      rc::gen::inRange<std::int64_t>(0, heartbeat_interval.ns() + 1));
  std::uint32_t expected_samples = 2;
  for (const std::int64_t ns : intervals) {
    PROP_ASSERT("PHI-ON-TIME-INTERVAL", available(d, p, t + heartbeat_interval));
    t += Duration::nanoseconds(ns);
    d.heartbeat(t);
    expected_samples = std::min(expected_samples + 1, p.max_sample_size);
    PROP_ASSERT("PHI-ON-TIME-INTERVAL", d.sample_count() == expected_samples);
  }
  PROP_ASSERT("PHI-ON-TIME-INTERVAL", available(d, p, t + heartbeat_interval));
}

RC_GTEST_PROP(PhiDetectorProps, OnTimePeerIsNotSuspectedWithinOneInterval, ()) {
  on_time_peer_is_not_suspected_within_one_interval(real_verdict);
}

TEST(PhiDetectorPropsCatch, TwoSidedTailIsNotMonotone) {
  EXPECT_TRUE(fails_as("PHI-MONOTONE", "monotonicity of a two-sided phi",
                       [] { phi_is_monotone_in_elapsed_time(two_sided_phi); }));
}

TEST(PhiDetectorPropsCatch, TwoSidedTailSuspectsAnOnTimePeer) {
  EXPECT_TRUE(fails_as("PHI-ON-TIME", "an on-time peer under a two-sided phi",
                       [] { on_time_peer_is_not_suspected_at_its_heartbeat(two_sided_phi); }));
}

TEST(PhiDetectorPropsCatch, PauseBlindPhiSuspectsAnOnTimePeerWithinOneInterval) {
  EXPECT_TRUE(fails_as("PHI-ON-TIME-INTERVAL", "an on-time peer under a phi that ignores acceptable_pause",
                       [] { on_time_peer_is_not_suspected_within_one_interval(pause_blind_verdict); }));
}

// Why the interval property exists: judged only at its heartbeats, the
// pause-blind phi looks fine (elapsed 0 is below any mean, phi <= log10 2).
TEST(PhiDetectorPropsCatch, PauseBlindPhiStillPassesAtTheHeartbeat) {
  EXPECT_TRUE(rc::check("an on-time peer at its heartbeats under a phi that ignores acceptable_pause",
                        [] { on_time_peer_is_not_suspected_at_its_heartbeat(pause_blind_phi); }));
}

TEST(PhiDetectorPropsCatch, TwoSidedTailSuspectsAnOnTimePeerWithinOneInterval) {
  EXPECT_TRUE(fails_as("PHI-ON-TIME-INTERVAL", "an on-time peer within one interval under a two-sided phi",
                       [] { on_time_peer_is_not_suspected_within_one_interval(two_sided_verdict); }));
}

}  // namespace
}  // namespace weft::props
