// The real-IO driver: one asio::io_context on one thread drives one
// unmodified kernel over TCP, through the contract in kernel/kernel.hpp.
//
// Every input (an accepted or connected socket, bytes read, a write done, a
// link gone, the timer) is handed to the kernel stamped with steady time,
// and then the kernel is drained (kernel/drain.hpp): links to dial or
// close, bytes to write, events. Writes go out exactly as the kernel lends
// them, without a copy, one in flight per link (the kernel lends a link
// nothing more until handle_sent). One steady_timer is re-armed to
// next_deadline() only when that moved; how late it fires is measured.
//
// Completions arrive as error values (as_tuple), never as exceptions; each
// handler does one input and one drain, then returns to the io_context, so
// no link and no timer waits behind another for more than one turn.
#pragma once

#include <asio.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernel/kernel.hpp"

namespace weft::io {

struct NodeOptions {
  Config config;                       // config.self is the advertised address
  asio::ip::tcp::endpoint bind;        // where to listen (0.0.0.0 or a local address; port may differ)
  std::uint64_t seed = 1;              // the kernel's PRNG
  // Every event the kernel emits, on the io thread, in order.
  std::function<void(const Event&)> on_event;
  // A timer that fires later than this is logged (through on_warning).
  Duration tick_lag_warning = Duration::milliseconds(100);
  std::function<void(const std::string&)> on_warning;
  // TCP_USER_TIMEOUT: unacknowledged data older than this drops the link.
  Duration tcp_user_timeout = Duration::seconds(10);
};

// Counters the driver keeps beside the kernel's; read on the io thread.
struct DriverStats {
  std::uint64_t accepted = 0;
  std::uint64_t dialed = 0;
  std::uint64_t connect_failures = 0;
  std::uint64_t reads = 0;
  std::uint64_t writes = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t ticks = 0;
  // Tick lag, how late the timer fired: a histogram over these upper bounds
  // (ms), the last bucket unbounded.
  static constexpr std::array<std::int64_t, 8> kLagBoundsMs{1, 2, 5, 10, 25, 50, 100, 250};
  std::array<std::uint64_t, kLagBoundsMs.size() + 1> tick_lag{};
  std::int64_t tick_lag_sum_ns = 0;
  std::int64_t tick_lag_max_ns = 0;
};

class Node {
 public:
  Node(asio::io_context& io, NodeOptions options);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Listens and starts the kernel's timer. False, with `error` set, if the
  // bind address cannot be listened on.
  bool start(std::string& error);
  // Closes every socket and the timer; the kernel stays as it was.
  void stop();

  // The kernel, for user commands (spawn, tell, ask, leave) on the io
  // thread; call drain() after one.
  Kernel& kernel() { return kernel_; }
  void drain();
  Instant now() const;
  const DriverStats& stats() const { return stats_; }
  // The port the listener got (useful when bind's port was 0).
  std::uint16_t listening_port() const;

 private:
  struct Link;
  asio::awaitable<void> accept_loop();
  asio::awaitable<void> read_loop(LinkId id, std::shared_ptr<Link> link);
  asio::awaitable<void> connect(LinkId id, std::shared_ptr<Link> link, NodeAddress address);
  asio::awaitable<void> timer_loop();
  void on_command(LinkCommand&& command);
  void on_transmit(const Transmit& transmit);
  void link_down(LinkId id, LinkDownCause cause);
  void rearm();
  void set_socket_options(asio::ip::tcp::socket& socket);

  asio::io_context& io_;
  NodeOptions options_;
  Kernel kernel_;
  asio::ip::tcp::acceptor acceptor_;
  asio::steady_timer timer_;
  Instant armed_ = Instant::never();
  std::map<LinkId, std::shared_ptr<Link>> links_;
  DriverStats stats_;
  bool stopped_ = false;
  bool draining_ = false;
};

}  // namespace weft::io
