#include "io/node.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <asio/experimental/as_tuple.hpp>

#include "io/clock.hpp"
#include "kernel/drain.hpp"

namespace weft::io {
namespace {

constexpr auto kAsTuple = asio::experimental::as_tuple(asio::use_awaitable);
constexpr std::size_t kReadBufferBytes = 64 * 1024;

LinkDownCause cause_of(const std::error_code& ec) {
  if (ec == asio::error::eof || ec == asio::error::connection_reset || ec == asio::error::broken_pipe) {
    return LinkDownCause::closed_by_peer;
  }
  if (ec == asio::error::connection_refused) return LinkDownCause::refused;
  if (ec == asio::error::timed_out || ec == asio::error::host_unreachable || ec == asio::error::network_unreachable ||
      ec == asio::error::host_not_found || ec == asio::error::host_not_found_try_again) {
    return LinkDownCause::unreachable;
  }
  return LinkDownCause::io_error;
}

}  // namespace

// One TCP connection. `closed` is set when the kernel asked for the close:
// the kernel already knows, so a failing read or write reports nothing.
struct Node::Link {
  explicit Link(asio::io_context& io) : socket(io) {}
  asio::ip::tcp::socket socket;
  std::vector<std::uint8_t> buffer;  // reused for every read
  bool connected = false;
  bool closed = false;
  bool reported_down = false;
};

Node::Node(asio::io_context& io, NodeOptions options)
    : io_(io),
      options_(std::move(options)),
      kernel_(options_.config, options_.seed),
      acceptor_(io),
      timer_(io) {}

Node::~Node() { stop(); }

Instant Node::now() const { return steady_now(); }

std::uint16_t Node::listening_port() const {
  std::error_code ec;
  const auto endpoint = acceptor_.local_endpoint(ec);
  return ec ? 0 : endpoint.port();
}

bool Node::start(std::string& error) {
  std::error_code ec;
  acceptor_.open(options_.bind.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(options_.bind, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    error = "cannot listen on " + options_.bind.address().to_string() + ":" + std::to_string(options_.bind.port()) +
            ": " + ec.message();
    return false;
  }
  asio::co_spawn(io_, accept_loop(), asio::detached);
  asio::co_spawn(io_, timer_loop(), asio::detached);
  kernel_.handle_tick(now());  // the first input starts the kernel's membership
  drain();
  return true;
}

void Node::stop() {
  if (stopped_) return;
  stopped_ = true;
  std::error_code ignored;
  acceptor_.close(ignored);
  timer_.cancel();
  for (auto& [id, link] : links_) {
    link->closed = true;
    link->socket.close(ignored);
  }
  links_.clear();
}

void Node::drain() {
  if (draining_ || stopped_) return;  // an event handler's command: the outer drain's next pass takes it
  draining_ = true;
  (void)weft::drain(
      kernel_, [this](LinkCommand&& command) { on_command(std::move(command)); },
      [this](const Transmit& transmit) { on_transmit(transmit); },
      [this](Event&& event) {
        if (options_.on_event) options_.on_event(event);
        return true;
      });
  draining_ = false;
  rearm();
}

void Node::rearm() {
  const Instant next = kernel_.next_deadline();
  if (next == armed_ || stopped_) return;
  armed_ = next;
  timer_.expires_at(to_steady(next));  // cancels the wait in timer_loop, which waits again
}

asio::awaitable<void> Node::timer_loop() {
  while (!stopped_) {
    const Instant due = armed_;
    auto [ec] = co_await timer_.async_wait(kAsTuple);
    if (stopped_) co_return;
    const Instant at = now();
    if (ec == asio::error::operation_aborted || at < due || due == Instant::never()) continue;  // re-armed
    const Duration lag = at - due;
    ++stats_.ticks;
    std::size_t bucket = 0;
    while (bucket < DriverStats::kLagBoundsMs.size() && lag.ns() > DriverStats::kLagBoundsMs[bucket] * 1'000'000) {
      ++bucket;
    }
    ++stats_.tick_lag[bucket];
    stats_.tick_lag_sum_ns += lag.ns();
    stats_.tick_lag_max_ns = std::max(stats_.tick_lag_max_ns, lag.ns());
    if (lag > options_.tick_lag_warning && options_.on_warning) {
      options_.on_warning("timer fired " + std::to_string(lag.ms()) + " ms late (the io thread was busy or paused)");
    }
    armed_ = Instant::never();  // fired: whatever the kernel wants next is armed anew
    kernel_.handle_tick(at);
    drain();
  }
}

void Node::set_socket_options(asio::ip::tcp::socket& socket) {
  std::error_code ignored;
  socket.set_option(asio::ip::tcp::no_delay(true), ignored);
  socket.set_option(asio::socket_base::keep_alive(true), ignored);
  const auto timeout_ms = static_cast<unsigned>(options_.tcp_user_timeout.ms());
  ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_USER_TIMEOUT, &timeout_ms, sizeof timeout_ms);
}

asio::awaitable<void> Node::accept_loop() {
  while (!stopped_) {
    auto [ec, socket] = co_await acceptor_.async_accept(kAsTuple);
    if (stopped_) co_return;
    if (ec) {
      // Out of descriptors and the like: the listener stays; try again
      // after a breath rather than spinning.
      asio::steady_timer pause(io_, std::chrono::milliseconds(50));
      co_await pause.async_wait(kAsTuple);
      continue;
    }
    ++stats_.accepted;
    set_socket_options(socket);
    auto link = std::make_shared<Link>(io_);
    link->socket = std::move(socket);
    link->connected = true;
    const LinkId id = kernel_.handle_link_accepted(now());
    links_[id] = link;
    asio::co_spawn(io_, read_loop(id, link), asio::detached);
    drain();
  }
}

asio::awaitable<void> Node::read_loop(LinkId id, std::shared_ptr<Link> link) {
  link->buffer.resize(kReadBufferBytes);
  while (true) {
    auto [ec, n] = co_await link->socket.async_read_some(asio::buffer(link->buffer), kAsTuple);
    if (link->closed || stopped_) co_return;
    if (ec) {
      link_down(id, cause_of(ec));
      co_return;
    }
    ++stats_.reads;
    stats_.bytes_read += n;
    kernel_.handle_bytes(now(), id, std::span<const std::uint8_t>(link->buffer.data(), n));
    drain();
  }
}

asio::awaitable<void> Node::connect(LinkId id, std::shared_ptr<Link> link, NodeAddress address) {
  // Resolved on every dial, so a seed given by name follows its DNS.
  asio::ip::tcp::resolver resolver(io_);
  auto [resolve_error, endpoints] =
      co_await resolver.async_resolve(address.host, std::to_string(address.port), kAsTuple);
  if (link->closed || stopped_) co_return;
  if (resolve_error) {
    ++stats_.connect_failures;
    link_down(id, cause_of(resolve_error));
    co_return;
  }
  // Each address in turn, from the bind address when it names one, so a
  // multi-homed host (or a loopback address per node) dials from the
  // address its peers know.
  std::error_code connect_error = asio::error::host_not_found;
  for (const auto& entry : endpoints) {
    std::error_code ignored;
    link->socket.close(ignored);
    link->socket.open(entry.endpoint().protocol(), connect_error);
    if (!connect_error && !options_.bind.address().is_unspecified() &&
        options_.bind.address().is_v4() == entry.endpoint().address().is_v4()) {
      link->socket.bind(asio::ip::tcp::endpoint(options_.bind.address(), 0), connect_error);
    }
    if (!connect_error) std::tie(connect_error) = co_await link->socket.async_connect(entry.endpoint(), kAsTuple);
    if (link->closed || stopped_) co_return;
    if (!connect_error) break;
  }
  if (connect_error) {
    ++stats_.connect_failures;
    link_down(id, cause_of(connect_error));
    co_return;
  }
  set_socket_options(link->socket);
  link->connected = true;
  kernel_.handle_link_up(now(), id);
  drain();
  co_await read_loop(id, link);
}

void Node::link_down(LinkId id, LinkDownCause cause) {
  const auto it = links_.find(id);
  if (it == links_.end() || it->second->reported_down) return;
  it->second->reported_down = true;
  std::error_code ignored;
  it->second->socket.close(ignored);
  links_.erase(it);
  kernel_.handle_link_down(now(), id, cause);
  drain();
}

void Node::on_command(LinkCommand&& command) {
  if (auto* connect_command = std::get_if<ConnectCommand>(&command)) {
    auto link = std::make_shared<Link>(io_);
    links_[connect_command->link] = link;
    ++stats_.dialed;
    asio::co_spawn(io_, connect(connect_command->link, link, std::move(connect_command->address)), asio::detached);
    return;
  }
  const auto& close = std::get<CloseCommand>(command);
  const auto it = links_.find(close.link);
  if (it == links_.end()) return;
  it->second->closed = true;
  std::error_code ignored;
  it->second->socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  it->second->socket.close(ignored);
  links_.erase(it);
}

void Node::on_transmit(const Transmit& transmit) {
  const auto it = links_.find(transmit.link);
  if (it == links_.end() || !it->second->connected) return;
  std::shared_ptr<Link> link = it->second;
  const LinkId id = transmit.link;
  const std::size_t size = transmit.bytes.size();
  // The kernel keeps the bytes still until handle_sent: written in place.
  asio::async_write(link->socket, asio::buffer(transmit.bytes.data(), size),
                    [this, link, id, size](const std::error_code& ec, std::size_t) {
                      if (link->closed || stopped_) return;
                      if (ec) {
                        link_down(id, cause_of(ec));
                        return;
                      }
                      ++stats_.writes;
                      stats_.bytes_written += size;
                      kernel_.handle_sent(now(), id);
                      drain();
                    });
}

}  // namespace weft::io
