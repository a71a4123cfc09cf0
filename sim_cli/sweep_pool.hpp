// A process pool for `weft-sim sweep --jobs J --shard i/n`.
//
// Seeds are independent: each one is a pure function of (seed, options), so a
// sweep can spread them over child processes (--jobs) and over machines
// (--shard) and still print exactly what a single process would. Processes,
// not threads: a kernel assertion aborts the whole process, and one bad seed
// must cost only that seed, never the sweep.
//
// POSIX only (fork, pipe, poll, waitpid); no threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace weft::sim_cli {

// Verdicts, as weft-sim's exit codes. kVerdictCrash is what a shell reports
// for a SIGABRT (128 + 6); the pool uses it for every child that died before
// reporting its seed, whatever the signal, and names the signal in
// SeedOutcome::first_failure.
inline constexpr int kVerdictPass = 0;
inline constexpr int kVerdictSafety = 10;
inline constexpr int kVerdictLiveness = 20;
inline constexpr int kVerdictCrash = 134;

struct SeedOutcome {
  std::uint64_t seed = 0;
  int verdict = kVerdictPass;
  std::string first_failure;  // empty when the seed passed
  std::uint64_t trace_hash = 0;
  std::uint64_t events = 0;
  std::uint64_t simulated_ns = 0;  // virtual time the run lasted
  std::vector<std::uint64_t> marks;  // coverage-mark hit counts, indexed by weft::Mark
  std::vector<std::uint64_t> judged;  // what each check judged, indexed by weft::sim::Check

  friend bool operator==(const SeedOutcome&, const SeedOutcome&) = default;
};

// Shard `index` of `count`, 1-based: 1 <= index <= count.
struct Shard {
  std::uint32_t index = 1;
  std::uint32_t count = 1;

  friend bool operator==(const Shard&, const Shard&) = default;
};

// An inclusive seed range, as `--seeds A..B`.
struct SeedRange {
  std::uint64_t first = 1;
  std::uint64_t last = 100;

  friend bool operator==(const SeedRange&, const SeedRange&) = default;
};

// Parses "i/n" with 1 <= i <= n (decimal digits only). On error, a message
// naming the flag, what was given and a correct form, e.g.
//   --shard must be i/n with 1 <= i <= n, e.g. --shard 2/8 (got "0/3": i starts at 1)
std::variant<Shard, std::string> parse_shard(std::string_view text);

// Parses "A..B" with A <= B (decimal digits only); on error, a message naming
// --seeds and the fix.
std::variant<SeedRange, std::string> parse_seed_range(std::string_view text);

// The seeds of [first, last] that belong to `shard`: those with
// (seed - first) % count == index - 1. Interleaved rather than contiguous, so
// every shard gets the same mix of seeds (and about the same run time); the
// shards 1/n .. n/n partition the range exactly. Empty when first > last.
std::vector<std::uint64_t> shard_seeds(std::uint64_t first, std::uint64_t last, Shard shard);

// Runs run_one(seed) for every seed and returns the outcomes sorted by seed
// (stable for repeated seeds), so the result is identical for any `jobs`.
//
// jobs <= 1: in this process, one seed after another, no fork; a run_one that
// aborts takes the caller with it, as a plain loop would.
// jobs >= 2: min(jobs, seeds.size()) child processes, each handed one seed at
// a time over a pipe (dynamic, so slow seeds do not hold up a block of fast
// ones); each child sends its outcome back length-prefixed. A child that dies
// before reporting (a kernel assertion aborts, a segfault, an exit from inside
// run_one) costs only its seed: that seed is reported with kVerdictCrash and
// "process killed by signal 6 (SIGABRT)" (or the exit status), the child is
// reaped and replaced, and the sweep carries on with the remaining seeds.
//
// In both modes an exception escaping run_one becomes kVerdictCrash with
// "uncaught exception: <what>", so the outcome does not depend on `jobs`.
//
// run_one must depend on the seed alone (each child runs many seeds, in no
// fixed order) and should not print: children share the caller's stdout.
// Throws std::system_error if a pipe or the first fork cannot be made; every
// child started is reaped before run_seeds returns or throws.
std::vector<SeedOutcome> run_seeds(const std::vector<std::uint64_t>& seeds, unsigned jobs,
                                   const std::function<SeedOutcome(std::uint64_t)>& run_one);

// Wire form of one outcome (exposed for tests): a little-endian u32 payload
// length, then seed u64, verdict i32, trace_hash u64, events u64, the failure
// as u32 length + bytes, the marks and the judged counts each as u32 count +
// u64 each, then simulated_ns u64 (last, so older offsets hold).
std::string encode_outcome(const SeedOutcome& outcome);
// Decodes one whole frame from the front of `bytes` into `out`.
enum class DecodeStatus { complete, incomplete, malformed };
struct Decoded {
  DecodeStatus status = DecodeStatus::incomplete;
  std::size_t used = 0;  // bytes of the frame, when complete
};
Decoded decode_outcome(std::string_view bytes, SeedOutcome& out);

}  // namespace weft::sim_cli
