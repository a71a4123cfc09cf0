// Properties over generated simulator scenarios (docs/properties.md M, F, S
// and W groups at once: every checker of sim::run). rapidcheck draws a scenario
// from a seed, as `weft-sim sweep` does, and on failure shrinks its fault
// schedule: first halves of the faults, then single faults, are dropped
// while the run still fails. The failure message is the replay command of a
// scenario file holding the smallest failing schedule, plus its text. It
// starts with the first failure line, so it names the property that failed
// ("F5: n3's detectors ..."), which is what the catch tests check.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "catches.hpp"
#include "sim/scenario.hpp"

namespace weft::props {
namespace {

using sim::Scenario;

rc::Gen<Scenario> scenarios(Mutations mutations) {
  return rc::Gen<Scenario>([mutations](const rc::Random& random, int) {
    rc::Random r = random;
    const std::uint64_t seed = r.next() % 1'000'000 + 1;
    Scenario s = sim::generate(seed, 5, Duration::seconds(30));
    s.mutations = mutations;
    return rc::shrinkable::shrinkRecur(std::move(s), [](const Scenario& x) { return rc::seq::fromContainer(sim::smaller_schedules(x)); });
  });
}

struct Failure {
  Scenario scenario;
  std::string message;
  std::uint64_t trace_hash = 0;
};

// The last failure seen; after rapidcheck's shrinking, the smallest.
std::optional<Failure> last_failure;

std::optional<std::string> check(const Scenario& s) {
  const sim::RunResult result = sim::run(s);
  if (result.verdict == sim::Verdict::pass) return std::nullopt;
  std::filesystem::create_directories("sim-failures");
  char name[64];
  std::snprintf(name, sizeof name, "sim-failures/%016llx.scenario", static_cast<unsigned long long>(result.trace_hash));
  const std::filesystem::path path = std::filesystem::absolute(name);
  std::ofstream(path) << s.to_text();
  std::string message = result.failures.front() + "\nreplay: weft-sim replay --scenario " + path.string() +
                        "\nscenario (" + std::to_string(s.faults.size()) + " faults):\n" + s.to_text();
  last_failure = Failure{s, message, result.trace_hash};
  return message;
}

RC_GTEST_PROP(SimProps, GeneratedScenariosKeepEveryProperty, ()) {
  const Scenario s = *scenarios(Mutations{});
  if (const auto failure = check(s)) prop_fail(*failure);
}

// The planted defect is found by the checker `property` (the shrunk run's
// first failure line starts "property: "), shrunk to a smaller schedule, and
// the shrunk scenario replays to the same failure and the same trace hash
// (D2). Another checker failing first, or sim::run throwing, is not a catch.
void expect_found_and_shrunk(Mutations mutations, const std::string& property) {
  last_failure.reset();
  std::optional<Scenario> first;
  ASSERT_TRUE(fails_as(property, "a defective kernel keeps every property", [&] {
    const Scenario s = *scenarios(mutations);
    const auto failure = check(s);
    if (failure && !first) first = s;
    if (failure) prop_fail(*failure);
  }));
  ASSERT_TRUE(last_failure.has_value() && first.has_value());
  EXPECT_LE(last_failure->scenario.faults.size(), first->faults.size());
  if (first->faults.size() > 1) {
    EXPECT_LT(last_failure->scenario.faults.size(), first->faults.size()) << "the schedule was not shrunk";
  }
  const sim::RunResult again = sim::run(last_failure->scenario);
  EXPECT_EQ(again.trace_hash, last_failure->trace_hash);
  ASSERT_FALSE(again.failures.empty());
  EXPECT_EQ(again.failures.front().rfind(property + ": ", 0), 0u) << again.failures.front();
  EXPECT_EQ(again.failures.front() + "\n", last_failure->message.substr(0, again.failures.front().size() + 1));
  std::printf("shrunk from %zu faults to %zu:\n%s\n", first->faults.size(), last_failure->scenario.faults.size(),
              last_failure->message.c_str());
}

TEST(SimProps, ThrottleOffIsFoundShrunkAndReplayed) {
  Mutations m;
  m.throttle_off = true;
  expect_found_and_shrunk(m, "F5");
}

TEST(SimProps, RefutationOffIsFoundShrunkAndReplayed) {
  Mutations m;
  m.refutation_off = true;
  expect_found_and_shrunk(m, "F3");
}

TEST(SimProps, RepliesCompletingTwiceAreFoundShrunkAndReplayed) {
  Mutations m;
  m.replies_complete_twice = true;
  expect_found_and_shrunk(m, "S2");
}

}  // namespace
}  // namespace weft::props
