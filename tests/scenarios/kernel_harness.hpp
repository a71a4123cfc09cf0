// A small scripted harness that wires kernels together by hand: links are
// in-memory byte pipes delivered at once, time is advanced explicitly, and
// faults are a few switches (crash, pause, cut a link). It is the
// simulator's little sibling, for step-by-step scenarios in unit tests.
//
// Failing expectations report the scenario line that made them, through
// __builtin_FILE and __builtin_LINE as default arguments (the caller's
// location, as std::source_location gives): clang 14 cannot compile
// libstdc++ 12's <source_location>, which needs a builtin clang added in 15.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kernel/kernel.hpp"

namespace weft::testing {

class Harness {
 public:
  // Nodes n1..nN at 10.0.0.i:7000; n1 is the seed.
  explicit Harness(std::size_t nodes, const std::function<void(Config&)>& tune = {});

  Kernel& node(std::size_t i) { return *nodes_.at(i - 1).kernel; }
  const NodeAddress& address(std::size_t i) const { return nodes_.at(i - 1).address; }
  Instant now() const { return now_; }

  // Runs every kernel's timers and delivers every byte until `duration`
  // has passed, in steps no longer than `step`.
  void advance(Duration duration, Duration step = Duration::milliseconds(10));
  // Advances until `done` holds, at most `limit`; returns the time it took.
  std::optional<Duration> advance_until(const std::function<bool()>& done, Duration limit,
                                        Duration step = Duration::milliseconds(10));

  // Faults.
  void crash(std::size_t i);          // the process dies: its links close at once
  void pause(std::size_t i);          // the process stops; its links stay open, silent
  void resume(std::size_t i);
  void cut(std::size_t a, std::size_t b);    // bytes between a and b are held back
  void restore(std::size_t a, std::size_t b);

  // Views.
  std::optional<MemberStatus> status_seen_by(std::size_t observer, std::size_t subject) const;
  bool all_see_status(const std::vector<std::size_t>& observers, std::size_t subject, MemberStatus status) const;
  bool unreachable_seen_by(std::size_t observer, std::size_t subject) const;
  std::uint64_t count_events(std::size_t i, const std::function<bool(const Event&)>& match) const;

  void expect(bool condition, const std::string& what, const char* file = __builtin_FILE(),
              int line = __builtin_LINE()) const;

 private:
  struct Node {
    NodeAddress address;
    std::unique_ptr<Kernel> kernel;
    bool crashed = false;
    bool paused = false;
    std::vector<Event> events;
  };
  // One TCP connection: dialer's link id and acceptor's link id.
  struct Pipe {
    std::size_t dialer;
    LinkId dialer_link;
    std::size_t acceptor;
    LinkId acceptor_link;
    std::vector<std::uint8_t> to_acceptor;  // held while cut or paused
    std::vector<std::uint8_t> to_dialer;
    bool open = true;
  };

  std::size_t index_of(const NodeAddress& address) const;
  bool blocked(std::size_t from, std::size_t to) const;
  void drain(std::size_t i);
  bool flush();
  void close_pipe(Pipe& pipe, std::size_t closer);

  std::vector<Node> nodes_;
  std::vector<Pipe> pipes_;
  std::set<std::pair<std::size_t, std::size_t>> cuts_;
  Instant now_ = Instant::from_ns(1'000'000'000);
};

}  // namespace weft::testing
