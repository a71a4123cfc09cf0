// The sweep process pool (sim_cli/sweep_pool.hpp): the same outcomes for any
// number of jobs, shards that partition a seed range, a crashing seed that
// costs only itself, and flag parsing that says what is wrong.
#include "sim_cli/sweep_pool.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <csignal>
#include <cstdlib>
#include <ctime>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace weft::sim_cli {
namespace {

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A stand-in for one simulation: a pure function of the seed, with a sleep
// on some seeds so children finish out of order.
SeedOutcome fake_run(std::uint64_t seed) {
  if (seed % 5 == 0) {
    const timespec pause{0, 2'000'000};
    nanosleep(&pause, nullptr);
  }
  SeedOutcome o;
  o.seed = seed;
  o.verdict = seed % 7 == 0 ? kVerdictSafety : seed % 11 == 0 ? kVerdictLiveness : kVerdictPass;
  if (o.verdict != kVerdictPass) o.first_failure = "M3: n" + std::to_string(seed % 5 + 1) + " holds itself down";
  o.trace_hash = mix(seed);
  o.events = 1000 + seed % 977;
  o.simulated_ns = 40'000'000'000 + mix(seed) % 1'000'000'000;
  o.marks = {seed % 3, seed % 5, 0, mix(seed) % 100};
  o.judged = {seed % 2, 7, mix(seed) % 1000};
  return o;
}

std::vector<std::uint64_t> range(std::uint64_t first, std::uint64_t last) {
  std::vector<std::uint64_t> seeds(last - first + 1);
  std::iota(seeds.begin(), seeds.end(), first);
  return seeds;
}

// Dies the way a failed kernel assertion does, without leaving a core file.
[[noreturn]] void die_by(int sig) {
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  if (sig == SIGABRT) std::abort();
  std::raise(sig);
  std::_Exit(99);
}

// Every child started has been reaped: no zombies, nothing left running.
bool no_children_left() { return waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD; }

TEST(SweepPool, SameOutcomesForOneTwoAndThreeJobs) {
  const std::vector<std::uint64_t> seeds = range(1, 60);
  const std::vector<SeedOutcome> one = run_seeds(seeds, 1, fake_run);
  ASSERT_EQ(one.size(), seeds.size());
  for (std::size_t i = 0; i < seeds.size(); ++i) EXPECT_EQ(one[i], fake_run(seeds[i]));
  EXPECT_EQ(run_seeds(seeds, 2, fake_run), one);
  EXPECT_EQ(run_seeds(seeds, 3, fake_run), one);
  EXPECT_TRUE(no_children_left());
}

TEST(SweepPool, OutcomesAreSortedBySeedWhateverTheInputOrder) {
  const std::vector<std::uint64_t> seeds{9, 3, 14, 1, 22, 5};
  const std::vector<SeedOutcome> out = run_seeds(seeds, 3, fake_run);
  ASSERT_EQ(out.size(), seeds.size());
  for (std::size_t i = 1; i < out.size(); ++i) EXPECT_LT(out[i - 1].seed, out[i].seed);
  EXPECT_EQ(out, run_seeds(seeds, 1, fake_run));
}

TEST(SweepPool, MoreJobsThanSeedsAndNoSeeds) {
  EXPECT_EQ(run_seeds({4, 2}, 8, fake_run), run_seeds({2, 4}, 1, fake_run));
  EXPECT_TRUE(run_seeds({}, 4, fake_run).empty());
}

TEST(SweepPool, AnAbortCostsOnlyItsSeed) {
  const auto run = [](std::uint64_t seed) {
    if (seed == 13) die_by(SIGABRT);
    return fake_run(seed);
  };
  const std::vector<std::uint64_t> seeds = range(1, 30);
  for (unsigned jobs : {2U, 3U}) {
    const std::vector<SeedOutcome> out = run_seeds(seeds, jobs, run);
    ASSERT_EQ(out.size(), seeds.size()) << "jobs " << jobs;
    for (const SeedOutcome& o : out) {
      if (o.seed == 13) {
        EXPECT_EQ(o.verdict, kVerdictCrash);
        EXPECT_EQ(o.first_failure, "process killed by signal 6 (SIGABRT)");
      } else {
        EXPECT_EQ(o, fake_run(o.seed)) << "seed " << o.seed << ", jobs " << jobs;
      }
    }
    EXPECT_TRUE(no_children_left());
  }
}

TEST(SweepPool, EveryWayOfDyingIsReportedAndTheSweepGoesOn) {
  // Several crashes, back to back, in a pool of two: each is replaced.
  const auto run = [](std::uint64_t seed) -> SeedOutcome {
    if (seed == 3) die_by(SIGKILL);
    if (seed == 4) die_by(SIGABRT);
    if (seed == 5) std::_Exit(3);
    if (seed == 6) throw std::runtime_error("no such node");
    return fake_run(seed);
  };
  const std::vector<SeedOutcome> out = run_seeds(range(1, 12), 2, run);
  ASSERT_EQ(out.size(), 12U);
  EXPECT_EQ(out[2].first_failure, "process killed by signal 9 (SIGKILL)");
  EXPECT_EQ(out[3].first_failure, "process killed by signal 6 (SIGABRT)");
  EXPECT_EQ(out[4].first_failure, "process exited with status 3 before reporting");
  EXPECT_EQ(out[5].first_failure, "uncaught exception: no such node");
  for (std::size_t i = 2; i <= 5; ++i) EXPECT_EQ(out[i].verdict, kVerdictCrash) << "seed " << out[i].seed;
  for (std::size_t i : {0U, 1U, 6U, 7U, 8U, 9U, 10U, 11U}) EXPECT_EQ(out[i], fake_run(out[i].seed));
  EXPECT_TRUE(no_children_left());
}

TEST(SweepPool, AnExceptionIsTheSameOutcomeInProcessAndInAChild) {
  const auto run = [](std::uint64_t seed) -> SeedOutcome {
    if (seed == 2) throw std::runtime_error("bad scenario");
    return fake_run(seed);
  };
  EXPECT_EQ(run_seeds(range(1, 4), 1, run), run_seeds(range(1, 4), 2, run));
}

TEST(SweepPool, ShardsPartitionTheRangeExactly) {
  for (const auto& [first, last] : {std::pair<std::uint64_t, std::uint64_t>{1, 100}, {5, 5}, {10, 11}, {7, 1007}}) {
    std::multiset<std::uint64_t> seen;
    std::size_t largest = 0;
    std::size_t smallest = SIZE_MAX;
    for (std::uint32_t i = 1; i <= 3; ++i) {
      const std::vector<std::uint64_t> part = shard_seeds(first, last, Shard{i, 3});
      for (std::uint64_t s : part) EXPECT_EQ((s - first) % 3, i - 1);
      seen.insert(part.begin(), part.end());
      largest = std::max(largest, part.size());
      smallest = std::min(smallest, part.size());
    }
    const std::vector<std::uint64_t> all = range(first, last);
    EXPECT_EQ(seen, std::multiset<std::uint64_t>(all.begin(), all.end())) << first << ".." << last;
    EXPECT_LE(largest - smallest, 1U);
  }
  EXPECT_EQ(shard_seeds(1, 10, Shard{2, 3}), (std::vector<std::uint64_t>{2, 5, 8}));
  EXPECT_EQ(shard_seeds(1, 10, Shard{1, 1}), range(1, 10));
  EXPECT_TRUE(shard_seeds(1, 2, Shard{3, 3}).empty());
  EXPECT_TRUE(shard_seeds(5, 4, Shard{1, 1}).empty());
  // The top of the seed space does not wrap around.
  const std::uint64_t top = UINT64_MAX;
  EXPECT_EQ(shard_seeds(top - 4, top, Shard{2, 2}), (std::vector<std::uint64_t>{top - 3, top - 1}));
  EXPECT_EQ(shard_seeds(top, top, Shard{1, 4}), (std::vector<std::uint64_t>{top}));
}

TEST(ParseShard, AcceptsIOfN) {
  EXPECT_EQ(std::get<Shard>(parse_shard("1/3")), (Shard{1, 3}));
  EXPECT_EQ(std::get<Shard>(parse_shard("3/3")), (Shard{3, 3}));
  EXPECT_EQ(std::get<Shard>(parse_shard("1/1")), (Shard{1, 1}));
  EXPECT_EQ(std::get<Shard>(parse_shard("17/64")), (Shard{17, 64}));
}

TEST(ParseShard, RejectsWithAMessageThatNamesTheFlagAndTheFix) {
  for (const char* bad : {"0/3", "4/3", "a/b", "3", "", "/3", "1/", "1/0", "-1/3", "1/3/5", " 1/3", "+1/3",
                          "99999999999/99999999999"}) {
    const auto result = parse_shard(bad);
    ASSERT_TRUE(std::holds_alternative<std::string>(result)) << '"' << bad << '"';
    const std::string& message = std::get<std::string>(result);
    EXPECT_NE(message.find("--shard"), std::string::npos) << message;
    EXPECT_NE(message.find("1 <= i <= n"), std::string::npos) << message;
    EXPECT_NE(message.find("e.g. --shard 2/8"), std::string::npos) << message;
    EXPECT_NE(message.find(std::string("\"") + bad + "\""), std::string::npos) << message;
  }
  EXPECT_EQ(std::get<std::string>(parse_shard("0/3")),
            "--shard must be i/n with 1 <= i <= n, e.g. --shard 2/8 (got \"0/3\": i starts at 1)");
  EXPECT_EQ(std::get<std::string>(parse_shard("4/3")),
            "--shard must be i/n with 1 <= i <= n, e.g. --shard 2/8 (got \"4/3\": i is larger than n)");
}

TEST(ParseSeedRange, AcceptsAndRejects) {
  EXPECT_EQ(std::get<SeedRange>(parse_seed_range("1..100000")), (SeedRange{1, 100000}));
  EXPECT_EQ(std::get<SeedRange>(parse_seed_range("7..7")), (SeedRange{7, 7}));
  for (const char* bad : {"", "5", "1..", "..5", "9..1", "a..b", "1...5", "1-5", "-1..5"}) {
    const auto result = parse_seed_range(bad);
    ASSERT_TRUE(std::holds_alternative<std::string>(result)) << '"' << bad << '"';
    EXPECT_NE(std::get<std::string>(result).find("--seeds must be A..B"), std::string::npos);
  }
}

TEST(OutcomeWire, RoundTripsAndWaitsForAWholeFrame) {
  SeedOutcome o = fake_run(77);
  o.first_failure = std::string("with a \0 NUL and \xff", 19);
  const std::string frame = encode_outcome(o);
  for (std::size_t cut = 0; cut < frame.size(); ++cut) {
    SeedOutcome partial;
    EXPECT_EQ(decode_outcome(std::string_view(frame).substr(0, cut), partial).status, DecodeStatus::incomplete);
  }
  SeedOutcome back;
  const Decoded d = decode_outcome(frame + "trailing", back);
  EXPECT_EQ(d.status, DecodeStatus::complete);
  EXPECT_EQ(d.used, frame.size());
  EXPECT_EQ(back, o);

  SeedOutcome crash;
  crash.seed = UINT64_MAX;
  crash.verdict = kVerdictCrash;
  ASSERT_EQ(decode_outcome(encode_outcome(crash), back).status, DecodeStatus::complete);
  EXPECT_EQ(back, crash);
}

TEST(OutcomeWire, RejectsMalformedFrames) {
  SeedOutcome out;
  // Seed 3 passes, so no failure text: the mark count sits right after its
  // zero length. Claim 9 marks where 4 are present.
  std::string bad_count = encode_outcome(fake_run(3));
  bad_count[4 + 8 + 4 + 8 + 8 + 4] = '\x09';
  EXPECT_EQ(decode_outcome(bad_count, out).status, DecodeStatus::malformed);
  const std::string huge("\xff\xff\xff\xff", 4);
  EXPECT_EQ(decode_outcome(huge, out).status, DecodeStatus::malformed);
}

}  // namespace
}  // namespace weft::sim_cli
