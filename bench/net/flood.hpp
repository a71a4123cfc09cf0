// A tell flood two ways, on loopback TCP in one io_context: through weft
// (node a tells node b's sink through the real driver) and raw (the same
// framed bytes written in batches to a socket whose reader only finds frame
// boundaries). Harnesses 2 (tell), 5 (scaling) and 7 (soak) use both or one.
//
// The weft flood keeps at most `window` messages told but not yet handled:
// weft has no end-to-end backpressure (a full mailbox drops, a full
// outbound queue refuses), so a producer faster than the receiver loses
// messages. The window is the mailbox's capacity, and at most half the
// outbound byte bound, so neither can overflow; a run that still sees a
// dead letter fails.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/net/common.hpp"

namespace weft::bench::net {

// The bytes of one frame the kernel would send for a tell of `payload`
// bytes to `target` from outside any actor.
std::vector<std::uint8_t> tell_frame(const ActorRef& target, std::size_t payload);

class WeftFlood {
 public:
  WeftFlood(NodePair& pair, std::size_t payload);
  // The sink outlives the flood: it must stop calling back into it.
  ~WeftFlood() { pair_.sink->on_tell = nullptr; }
  WeftFlood(const WeftFlood&) = delete;
  WeftFlood& operator=(const WeftFlood&) = delete;
  // Tells `count` messages; seconds from the first tell until the sink
  // handled the last. Fails past `limit_seconds`.
  double run(std::uint64_t count, double limit_seconds);
  // Floods for `seconds`; messages the sink handled in that time.
  std::uint64_t run_for(double seconds);
  // Unbounded flood, for the soak: start() once, then run the io_context.
  void start();
  std::uint64_t handled() const { return pair_.sink->handled; }
  std::uint64_t window() const { return window_; }
  std::size_t frame_bytes() const { return frame_bytes_; }
  // For the stage breakdown: pumps run, and the time spent in Kernel::tell
  // (read once per pump, not per tell).
  std::uint64_t pumps() const { return pumps_; }
  std::int64_t tell_ns() const { return tell_ns_; }

 private:
  void pump();
  void on_tell();

  NodePair& pair_;
  std::vector<std::uint8_t> body_;
  std::size_t frame_bytes_;
  std::uint64_t window_;
  std::uint64_t sent_ = 0;
  std::uint64_t target_ = 0;  // stop telling at this many sent, and stop the io_context when handled
  bool posted_ = false;
  std::int64_t end_ns_ = 0;
  std::uint64_t pumps_ = 0;
  std::int64_t tell_ns_ = 0;
};

class RawFlood {
 public:
  explicit RawFlood(std::size_t payload);
  ~RawFlood();
  double run(std::uint64_t count, double limit_seconds);
  // Floods for `seconds`; frames received in that time. The flood stays
  // set up between calls (paused while the loop is not run), so run() may
  // not follow.
  std::uint64_t run_for(double seconds);
  std::size_t frame_bytes() const { return frame_.size(); }

 private:
  asio::awaitable<void> write(std::uint64_t count);
  asio::awaitable<void> read(std::uint64_t count);

  asio::io_context io_{1};
  asio::ip::tcp::socket writer_{io_};
  asio::ip::tcp::socket reader_{io_};
  std::vector<std::uint8_t> frame_;
  std::vector<std::uint8_t> batch_;  // whole frames, up to max_write_bytes, as the kernel lends them
  std::size_t frames_per_batch_ = 0;
  std::vector<std::uint8_t> read_buffer_;
  wire::FrameDecoder decoder_;
  std::uint64_t received_ = 0;
  std::uint64_t target_ = 0;
  std::int64_t end_ns_ = 0;
  bool stop_ = false;
  bool streaming_ = false;
};

// The socket options the driver sets (io/node.cpp), so the raw baselines
// run on the same kind of socket.
void driver_socket_options(asio::ip::tcp::socket& socket);

// A count that makes a run take about `seconds`, from a pilot run's rate.
std::uint64_t count_for(double rate_per_second, double seconds, std::uint64_t at_least, std::uint64_t at_most);

}  // namespace weft::bench::net
