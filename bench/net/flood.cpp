#include "bench/net/flood.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <algorithm>
#include <asio/experimental/as_tuple.hpp>

#include "kernel/wire/envelope.hpp"
#include "kernel/wire/frame.hpp"

namespace weft::bench::net {
namespace {
constexpr auto kAsTuple = asio::experimental::as_tuple(asio::use_awaitable);
constexpr std::size_t kReadBufferBytes = 64 * 1024;  // the driver's read buffer
}  // namespace

std::vector<std::uint8_t> tell_frame(const ActorRef& target, std::size_t payload) {
  const std::vector<std::uint8_t> body(payload, 0x5a);
  const wire::Envelope envelope{wire::MessageKind::tell, wire::ActorRefView::of(target), {}, 0, 1, body};
  std::vector<std::uint8_t> frame;
  if (wire::append_frame(frame, envelope) != wire::WireError::none) fail("cannot frame a tell");
  return frame;
}

void driver_socket_options(asio::ip::tcp::socket& socket) {
  std::error_code ignored;
  socket.set_option(asio::ip::tcp::no_delay(true), ignored);
  socket.set_option(asio::socket_base::keep_alive(true), ignored);
  const unsigned timeout_ms = 10'000;
  ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_USER_TIMEOUT, &timeout_ms, sizeof timeout_ms);
}

std::uint64_t count_for(double rate_per_second, double seconds, std::uint64_t at_least, std::uint64_t at_most) {
  const auto wanted = static_cast<std::uint64_t>(rate_per_second * seconds);
  return std::clamp(wanted, at_least, at_most);
}

WeftFlood::WeftFlood(NodePair& pair, std::size_t payload)
    : pair_(pair), body_(payload, 0x5a), frame_bytes_(tell_frame(pair.sink_ref, payload).size()) {
  const Config& config = pair.a->kernel().config();
  window_ = std::min<std::uint64_t>(pair.b->kernel().config().mailbox_capacity,
                                    config.max_outbound_user_bytes / frame_bytes_ / 2);
  pair_.sink->on_tell = [this] { on_tell(); };
}

void WeftFlood::pump() {
  posted_ = false;
  Kernel& kernel = pair_.a->kernel();
  const Instant now = pair_.a->now();
  const std::int64_t start = now_ns();
  while (sent_ < target_ && sent_ - pair_.sink->handled < window_) {
    const SendResult result = kernel.tell(now, pair_.sink_ref, 1, body_);
    if (result != SendResult::sent) fail(std::string("tell refused: ") + std::string(to_string(result)));
    ++sent_;
  }
  tell_ns_ += now_ns() - start;
  ++pumps_;
  pair_.a->drain();
}

void WeftFlood::on_tell() {
  const std::uint64_t handled = pair_.sink->handled;
  if (handled == target_) {
    end_ns_ = now_ns();
    pair_.io_a.stop();
    return;
  }
  // Refill at half the window: one pump tells many, rather than one per message.
  if (!posted_ && sent_ < target_ && sent_ - handled <= window_ / 2) {
    posted_ = true;
    asio::post(pair_.io_a, [this] { pump(); });
  }
}

double WeftFlood::run(std::uint64_t count, double limit_seconds) {
  if (&pair_.io_a != &pair_.io_b) fail("the weft flood runs both nodes on one io_context");
  target_ = sent_ + count;
  end_ns_ = 0;
  const Deadline deadline(limit_seconds);
  const std::int64_t start = now_ns();
  pump();
  while (pair_.sink->handled < target_) {
    if (deadline.passed()) {
      fail("tell flood: " + std::to_string(pair_.sink->handled - (target_ - count)) + " of " + std::to_string(count) +
           " handled within " + fmt_fixed(limit_seconds, 0) + " s");
    }
    pair_.io_a.restart();
    pair_.io_a.run_for(std::chrono::milliseconds(100));
  }
  pair_.io_a.restart();
  if (!pair_.unexpected.empty() || !pair_.unexpected_b.empty()) fail("tell flood: dead letters during the run");
  return static_cast<double>(end_ns_ - start) / 1e9;
}

std::uint64_t WeftFlood::run_for(double seconds) {
  start();
  const std::uint64_t before = pair_.sink->handled;
  pair_.io_a.run_for(std::chrono::nanoseconds(static_cast<std::int64_t>(seconds * 1e9)));
  const std::uint64_t handled = pair_.sink->handled - before;
  if (!pair_.unexpected.empty() || !pair_.unexpected_b.empty()) fail("tell flood: dead letters during the run");
  return handled;
}

void WeftFlood::start() {
  target_ = UINT64_MAX;
  pump();
}

RawFlood::RawFlood(std::size_t payload) : frame_(tell_frame(ActorRef{{"127.0.0.1", 40000}, "sink"}, payload)) {
  asio::ip::tcp::acceptor acceptor(io_, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  writer_.connect(acceptor.local_endpoint());
  acceptor.accept(reader_);
  driver_socket_options(writer_);
  driver_socket_options(reader_);
  const std::size_t max_write = Config{}.max_write_bytes;
  frames_per_batch_ = std::max<std::size_t>(1, max_write / frame_.size());
  for (std::size_t i = 0; i < frames_per_batch_; ++i) batch_.insert(batch_.end(), frame_.begin(), frame_.end());
  read_buffer_.resize(kReadBufferBytes);
}

RawFlood::~RawFlood() {
  std::error_code ignored;
  writer_.close(ignored);
  reader_.close(ignored);
}

asio::awaitable<void> RawFlood::write(std::uint64_t count) {
  std::uint64_t left = count;
  while (left > 0 && !stop_) {
    const std::uint64_t n = std::min<std::uint64_t>(left, frames_per_batch_);
    auto [ec, written] = co_await asio::async_write(writer_, asio::buffer(batch_.data(), n * frame_.size()), kAsTuple);
    if (ec) co_return;
    left -= n;
  }
}

asio::awaitable<void> RawFlood::read(std::uint64_t count) {
  target_ = received_ + count;
  while (received_ < target_ && !stop_) {
    auto [ec, n] = co_await reader_.async_read_some(asio::buffer(read_buffer_), kAsTuple);
    if (ec) co_return;
    (void)decoder_.feed(wire::Bytes(read_buffer_.data(), n), [&](wire::Bytes) { ++received_; });
  }
  if (received_ >= target_) {
    end_ns_ = now_ns();
    io_.stop();
  }
}

double RawFlood::run(std::uint64_t count, double limit_seconds) {
  if (streaming_) fail("raw flood: run() after run_for()");
  const std::uint64_t first = received_;
  const Deadline deadline(limit_seconds);
  io_.restart();
  const std::int64_t start = now_ns();
  asio::co_spawn(io_, read(count), asio::detached);
  asio::co_spawn(io_, write(count), asio::detached);
  while (received_ < first + count) {
    if (deadline.passed()) fail("raw flood: not done within " + fmt_fixed(limit_seconds, 0) + " s");
    io_.restart();
    io_.run_for(std::chrono::milliseconds(100));
  }
  io_.restart();
  io_.run_for(std::chrono::milliseconds(1));  // lets the writer's coroutine finish
  return static_cast<double>(end_ns_ - start) / 1e9;
}

std::uint64_t RawFlood::run_for(double seconds) {
  io_.restart();  // an io_context that ran out of work stays stopped until restarted
  if (!streaming_) {
    // One unbounded writer and reader, kept across calls: a call only
    // runs the loop for a while (two readers on one socket would split it).
    streaming_ = true;
    asio::co_spawn(io_, read(UINT64_MAX / 2), asio::detached);
    asio::co_spawn(io_, write(UINT64_MAX / 2), asio::detached);
  }
  const std::uint64_t before = received_;
  io_.run_for(std::chrono::nanoseconds(static_cast<std::int64_t>(seconds * 1e9)));
  return received_ - before;
}

}  // namespace weft::bench::net
