// weft::daemon::ProcessSignals: SIGHUP, SIGINT and SIGTERM as events on
// the io thread, never as handlers.
//
// Model: the three are blocked in every thread of the process and read
// from a signalfd on the io thread. block() runs before the daemon starts
// any thread, and every thread started after inherits the mask (the admin
// endpoint's, the application's, asio's resolver thread), so no thread
// ever runs a handler or the default action of one of the three:
//   - one that arrives while the process tears down (after the io loop has
//     ended) stays pending until the exit instead of killing it there; a
//     death by SIGTERM reads as a crash to a supervisor and skips a
//     sanitized build's leak check;
//   - one that arrives before watch() is armed (a SIGHUP on the line that
//     says the node listens) waits for it instead of ending the process.
// asio::signal_set cannot promise either: it puts SIG_DFL back when a set
// lets go, and a thread asio starts itself (the resolver's) takes a
// process-directed signal in that instant. tests/io's stop_signal_storm
// sends SIGTERM as fast as it can through a leave and a teardown.
//
// Consequence for an application: its threads, and any process it starts
// (the mask survives exec), have the three blocked; a child that wants
// them unblocks them.
#pragma once

#include <asio.hpp>

#include <functional>
#include <string>

namespace weft::daemon {

class ProcessSignals {
 public:
  // Blocks SIGHUP, SIGINT and SIGTERM in the calling thread. Call before
  // the process starts a thread.
  static void block();

  explicit ProcessSignals(asio::io_context& io) : fd_(io) {}

  // Opens the signalfd; false, with the reason in `error`, if the kernel
  // refuses one (RLIMIT_NOFILE).
  bool open(std::string& error);

  // From now on calls on_signal(signal number) on the io thread for every
  // signal of the three that arrives (a signal sent again before it was
  // read is one), until the io loop ends or this is destroyed.
  void watch(std::function<void(int)> on_signal);

 private:
  void arm();

  asio::posix::stream_descriptor fd_;
  std::function<void(int)> on_signal_;
};

}  // namespace weft::daemon
