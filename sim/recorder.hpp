// A picture of a run as data (weft-sim --html draws it): each node's view of
// every member over time, each node's own process state, and the traffic
// rates, on a fixed grid of virtual time.
//
// The recorder is a Workload that only looks: it reads the kernels after
// every check step (at most 100 ms of virtual time apart) and counts the
// events they emit, and never schedules, sends or draws anything, so a run
// with it has the trace hash of a run without it. The grid is coarse enough
// that a long or large run stays small: runs of equal cells merge into one
// span, a row has at most kMaxColumns cells whatever the run's length, and
// all N x N view rows together at most about kCellBudget (fewer columns for
// a large cluster, never below kMinColumns), so even a row that changes in
// every cell keeps the page to a few megabytes; there are at most
// kMaxBuckets rate buckets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/workload.hpp"

namespace weft::sim {

struct RunPicture {
  // A cell's state in a view row: a MemberStatus (0..5), or kAbsent when the
  // observer's table holds no record of the subject; kUnreachable is or'ed in
  // when the observer held the subject unreachable at any time in the cell.
  static constexpr std::uint8_t kAbsent = 6;
  static constexpr std::uint8_t kUnreachable = 8;
  // A node's own process.
  enum Process : std::uint8_t { running = 0, paused = 1, crashed = 2, shut_down = 3 };

  // Cells [from, to) of one row in one state.
  struct Span {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    std::uint8_t state = 0;
  };
  struct Bucket {
    std::uint64_t messages = 0;   // user messages the actors handled (all nodes)
    std::uint64_t frames = 0;     // frames the kernels read (all nodes)
    std::uint64_t asks_replied = 0;
    std::uint64_t asks_failed = 0;  // timeout, target_down or rejected
    std::uint64_t dead_letters = 0;
  };

  std::size_t nodes = 0;
  Duration cell;                // the grid's step
  Duration bucket;              // the rate buckets' width
  Duration chaos;               // where the heal phase starts
  Duration end;                 // the last sample: where the run stopped
  std::uint32_t cells = 0;      // cells up to `end`
  // views[observer - 1][subject - 1]: gaps where the observer had no
  // running kernel (its process track says why).
  std::vector<std::vector<std::vector<Span>>> views;
  std::vector<std::vector<Span>> process;  // [node - 1]
  std::vector<Bucket> rates;
  // When the first failure line appeared (a check step or the end-of-run
  // checks); empty if none appeared while the recorder watched (a liveness
  // verdict or a missed coverage mark is reached at the end of the run).
  std::optional<Duration> first_failure;
};

class RunRecorder final : public Workload {
 public:
  static constexpr std::uint32_t kMaxColumns = 1200;
  static constexpr std::uint32_t kMinColumns = 60;
  static constexpr std::uint64_t kCellBudget = 500'000;
  static constexpr std::uint32_t kMaxBuckets = 240;

  void begin(Simulator& sim, const Scenario& scenario) override;
  void on_start(std::size_t node, Kernel& kernel, Instant now) override;
  void on_event(std::size_t node, const Event& event) override;
  void check(const Simulator& sim, std::vector<std::string>& failures) override;
  void finish(const Simulator& sim, std::vector<std::string>& failures) override;

  const RunPicture& picture() const { return picture_; }

 private:
  void sample(const Simulator& sim);
  std::uint32_t cell_of(Instant at) const;
  RunPicture::Bucket& bucket_at(Instant at);
  static void put(std::vector<RunPicture::Span>& row, std::uint32_t cell, std::uint8_t state, bool contiguous);

  const Simulator* sim_ = nullptr;
  RunPicture picture_;
  // Per node: whether its kernel ran at the previous sample (a view row
  // continues from it), and the counters read then.
  std::vector<bool> was_running_;
  std::vector<std::uint64_t> last_messages_;
  std::vector<std::uint64_t> last_frames_;
  // [observer - 1][subject - 1]: an unreachable mark seen in an event since
  // the last sample (it may have been withdrawn before the sample).
  std::vector<std::vector<bool>> marked_unreachable_;
};

}  // namespace weft::sim
