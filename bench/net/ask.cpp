// Harness 3: ask round trip. Node a asks node b's echo actor (100 B body,
// the reply carries it back) through the real driver: one ask in flight for
// the latency distribution, then 1, 4, 16 and 64 in flight for asks/s.
// Beside each, in the same run: raw TCP ping-pong of the same bytes (the
// ask frame one way, the reply frame back, each read parsed for frame
// boundaries), pipelined the same way for the in-flight rows. Latency runs
// twice: both ends on one pinned thread, and each end on its own thread
// and CPU (the two-thread rows), weft and raw alike.
#include <thread>

#include <asio/experimental/as_tuple.hpp>

#include "bench/alloc_counter.hpp"
#include "bench/net/common.hpp"
#include "bench/net/flood.hpp"
#include "kernel/wire/envelope.hpp"
#include "kernel/wire/frame.hpp"

namespace weft::bench::net {
namespace {

constexpr auto kAsTuple = asio::experimental::as_tuple(asio::use_awaitable);
constexpr std::size_t kBody = 100;
constexpr std::uint32_t kWindows[] = {1, 4, 16, 64};

class WeftAsks {
 public:
  explicit WeftAsks(NodePair& pair) : pair_(pair), body_(kBody, 0x5a) {
    pair_.on_event_a = [this](const Event& e) {
      if (const auto* done = std::get_if<AskCompleted>(&e)) on_completed(*done);
    };
  }
  ~WeftAsks() { pair_.on_event_a = nullptr; }

  // `count` asks, `window` in flight; seconds from the first ask to the
  // last completion. With window 1, each round trip goes to `samples`.
  double run(std::uint64_t count, std::uint32_t window, std::vector<std::int64_t>* samples, double limit) {
    samples_ = samples;
    target_ = completed_ + count;
    const Deadline deadline(limit);
    const std::int64_t start = now_ns();
    for (std::uint32_t i = 0; i < window && issued_ < target_; ++i) issue();
    pair_.a->drain();
    while (completed_ < target_) {
      if (deadline.passed()) fail("weft asks: not done within " + fmt_fixed(limit, 0) + " s");
      pair_.io_a.restart();
      pair_.io_a.run_for(std::chrono::milliseconds(100));
    }
    pair_.io_a.restart();
    if (!pair_.unexpected.empty()) fail("weft asks: dead letters");
    return static_cast<double>(end_ns_ - start) / 1e9;
  }

 private:
  void issue() {
    issue_ns_ = now_ns();
    (void)pair_.a->kernel().ask(pair_.a->now(), pair_.echo_ref, 1, body_, Duration::seconds(10));
    ++issued_;
  }
  // On a's io thread, inside its drain: the drain sends the next ask.
  void on_completed(const AskCompleted& done) {
    const std::int64_t t = now_ns();
    if (done.outcome != AskOutcome::reply || done.body.size() != kBody) {
      fail("ask completed with " + std::string(to_string(done.outcome)));
    }
    ++completed_;
    if (samples_ != nullptr) samples_->push_back(t - issue_ns_);
    if (issued_ < target_) issue();
    if (completed_ == target_) {
      end_ns_ = t;
      pair_.io_a.stop();
    }
  }

  NodePair& pair_;
  std::vector<std::uint8_t> body_;
  std::vector<std::int64_t>* samples_ = nullptr;
  std::uint64_t issued_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t target_ = 0;
  std::int64_t issue_ns_ = 0;
  std::int64_t end_ns_ = 0;
};

std::vector<std::uint8_t> frame_of(const wire::Envelope& envelope) {
  std::vector<std::uint8_t> out;
  if (wire::append_frame(out, envelope) != wire::WireError::none) fail("cannot frame");
  return out;
}

// The bytes weft's ask and reply put on the wire (a's "$ask" asking b's echo).
std::vector<std::uint8_t> ask_frame(const std::vector<std::uint8_t>& body) {
  const ActorRef echo{{"127.0.0.1", 40001}, "echo"};
  const ActorRef asker{{"127.0.0.1", 40000}, "$ask"};
  return frame_of({wire::MessageKind::ask, wire::ActorRefView::of(echo), wire::ActorRefView::of(asker), 100'000, 1,
                   body});
}
std::vector<std::uint8_t> reply_frame(const std::vector<std::uint8_t>& body) {
  const ActorRef echo{{"127.0.0.1", 40001}, "echo"};
  const ActorRef asker{{"127.0.0.1", 40000}, "$ask"};
  return frame_of({wire::MessageKind::reply, wire::ActorRefView::of(asker), wire::ActorRefView::of(echo), 100'000,
                   1, body});
}

// Raw ping-pong: a client writing ask frames and a server answering each
// complete one with a reply frame, both batching per read.
class RawAsks {
 public:
  RawAsks(asio::io_context& client_io, asio::io_context& server_io)
      : client_io_(client_io), client_(client_io), server_(server_io) {
    const std::vector<std::uint8_t> body(kBody, 0x5a);
    ask_ = ask_frame(body);
    reply_ = reply_frame(body);
    asio::ip::tcp::acceptor acceptor(server_io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    client_.connect(acceptor.local_endpoint());
    acceptor.accept(server_);
    driver_socket_options(client_);
    driver_socket_options(server_);
    for (std::uint32_t i = 0; i < 64; ++i) {
      asks_.insert(asks_.end(), ask_.begin(), ask_.end());
    }
    asio::co_spawn(server_io, serve(), asio::detached);
  }
  void close() {
    std::error_code ignored;
    client_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    client_.close(ignored);
  }

  double run(std::uint64_t count, std::uint32_t window, std::vector<std::int64_t>* samples, double limit) {
    done_ = false;
    const Deadline deadline(limit);
    const std::int64_t start = now_ns();
    asio::co_spawn(client_io_, ask(count, window, samples), asio::detached);
    while (!done_) {
      if (deadline.passed()) fail("raw asks: not done within " + fmt_fixed(limit, 0) + " s");
      client_io_.restart();
      client_io_.run_for(std::chrono::milliseconds(100));
    }
    client_io_.restart();
    return static_cast<double>(end_ns_ - start) / 1e9;
  }

 private:
  asio::awaitable<void> serve() {
    std::vector<std::uint8_t> buffer(64 * 1024);
    std::vector<std::uint8_t> replies;
    wire::FrameDecoder decoder;
    for (;;) {
      auto [ec, n] = co_await server_.async_read_some(asio::buffer(buffer), kAsTuple);
      if (ec) co_return;
      std::size_t frames = 0;
      (void)decoder.feed(wire::Bytes(buffer.data(), n), [&](wire::Bytes) { ++frames; });
      while (replies.size() < frames * reply_.size()) replies.insert(replies.end(), reply_.begin(), reply_.end());
      if (frames == 0) continue;
      auto [write_error, written] =
          co_await asio::async_write(server_, asio::buffer(replies.data(), frames * reply_.size()), kAsTuple);
      if (write_error) co_return;
    }
  }

  asio::awaitable<void> ask(std::uint64_t count, std::uint32_t window, std::vector<std::int64_t>* samples) {
    std::vector<std::uint8_t> buffer(64 * 1024);
    std::uint64_t issued = std::min<std::uint64_t>(window, count);
    std::uint64_t completed = 0;
    std::int64_t issue_ns = now_ns();
    auto [ec, written] = co_await asio::async_write(client_, asio::buffer(asks_.data(), issued * ask_.size()), kAsTuple);
    while (!ec && completed < count) {
      auto [read_error, n] = co_await client_.async_read_some(asio::buffer(buffer), kAsTuple);
      if (read_error) break;
      std::uint64_t replies = 0;
      (void)decoder_.feed(wire::Bytes(buffer.data(), n), [&](wire::Bytes) { ++replies; });
      if (replies == 0) continue;
      const std::int64_t t = now_ns();
      if (samples != nullptr) samples->push_back(t - issue_ns);
      completed += replies;
      const std::uint64_t more = std::min(replies, count - issued);
      if (more > 0) {
        issue_ns = t;
        issued += more;
        std::tie(ec, written) = co_await asio::async_write(client_, asio::buffer(asks_.data(), more * ask_.size()), kAsTuple);
      }
    }
    end_ns_ = now_ns();
    done_ = true;
    client_io_.stop();
  }

  asio::io_context& client_io_;
  asio::ip::tcp::socket client_;
  asio::ip::tcp::socket server_;
  std::vector<std::uint8_t> ask_;
  std::vector<std::uint8_t> reply_;
  std::vector<std::uint8_t> asks_;
  wire::FrameDecoder decoder_;
  bool done_ = false;
  std::int64_t end_ns_ = 0;
};

struct Latency {
  std::vector<Percentiles> runs;
  Percentiles median() const {
    const auto med = [&](double Percentiles::*field) {
      std::vector<double> v;
      for (const auto& p : runs) v.push_back(p.*field);
      return net::median(v);
    };
    Percentiles m;
    m.mean = med(&Percentiles::mean);
    m.p50 = med(&Percentiles::p50);
    m.p90 = med(&Percentiles::p90);
    m.p99 = med(&Percentiles::p99);
    m.p999 = med(&Percentiles::p999);
    m.max = med(&Percentiles::max);
    m.samples = runs.empty() ? 0 : runs.front().samples;
    return m;
  }
};

struct Counts {
  std::uint64_t warm;
  std::uint64_t samples;
};
Counts counts(const Options& options) {
  return options.quick ? Counts{2'000, 10'000} : Counts{10'000, 100'000};
}

template <class Asks>
void latency_runs(Asks& asks, const Options& options, Latency& into, const std::string& label) {
  const Counts c = counts(options);
  (void)asks.run(c.warm, 1, nullptr, 60);
  for (int r = 0; r < options.runs; ++r) {
    std::vector<std::int64_t> samples;
    samples.reserve(c.samples);
    (void)asks.run(c.samples, 1, &samples, 120);
    into.runs.push_back(percentiles(std::move(samples)));
    progress("ask latency " + label + " run " + std::to_string(r + 1) + ": p50 " +
             fmt_fixed(into.runs.back().p50, 1) + " us, p99 " + fmt_fixed(into.runs.back().p99, 1) + " us");
  }
}

struct Results {
  Latency weft_one, raw_one, weft_two, raw_two;
  std::vector<std::vector<double>> weft_rate{std::size(kWindows)}, raw_rate{std::size(kWindows)};
  std::vector<std::vector<double>> weft_allocs{std::size(kWindows)};  // per ask, both nodes and the driver
};

void one_thread(const Options& options, Results& results) {
  asio::io_context io{1};
  NodePair pair(io, io, bench_config());
  pair.start();
  pair.wait_until_up(10);
  WeftAsks weft(pair);
  RawAsks raw(io, io);
  if (options.only_window == 0) {
    latency_runs(weft, options, results.weft_one, "weft, one thread");
    latency_runs(raw, options, results.raw_one, "raw, one thread");
  }
  const double seconds = options.quick ? 0.1 : 1.0;
  for (std::size_t w = 0; w < std::size(kWindows); ++w) {
    const std::uint32_t window = kWindows[w];
    if (options.only_window != 0 && options.only_window != window) continue;
    const std::uint64_t pilot = 5'000;
    const auto weft_count = count_for(static_cast<double>(pilot) / weft.run(pilot, window, nullptr, 60), seconds,
                                      pilot, 20'000'000);
    const auto raw_count = count_for(static_cast<double>(pilot) / raw.run(pilot, window, nullptr, 60), seconds,
                                     pilot, 50'000'000);
    for (int r = 0; r < options.runs; ++r) {
      const std::uint64_t allocs = allocations();
      results.weft_rate[w].push_back(static_cast<double>(weft_count) / weft.run(weft_count, window, nullptr, 120));
      results.weft_allocs[w].push_back(static_cast<double>(allocations() - allocs) / static_cast<double>(weft_count));
      results.raw_rate[w].push_back(static_cast<double>(raw_count) / raw.run(raw_count, window, nullptr, 120));
    }
    progress("asks in flight " + std::to_string(window) + ": weft " + fmt_rate(median(results.weft_rate[w])) +
             "/s, raw " + fmt_rate(median(results.raw_rate[w])) + "/s");
  }
  raw.close();
  io.restart();
  io.run_for(std::chrono::milliseconds(10));
}

void two_threads(const Options& options, Results& results) {
  {
    asio::io_context io_a{1};
    asio::io_context io_b{1};
    NodePair pair(io_a, io_b, bench_config());
    pair.start();
    auto guard = asio::make_work_guard(io_b);
    std::thread b([&] {
      pin_thread(options.second_cpu);
      io_b.run();
    });
    try {
      pair.wait_until_up(10);
      WeftAsks weft(pair);
      latency_runs(weft, options, results.weft_two, "weft, two threads");
    } catch (...) {
      asio::post(io_b, [&] { pair.b->stop(); });
      guard.reset();
      io_b.stop();
      b.join();
      throw;
    }
    asio::post(io_b, [&] { pair.b->stop(); });
    guard.reset();
    b.join();
    if (!pair.unexpected_b.empty()) fail("weft asks: dead letters on b");
  }
  asio::io_context client_io{1};
  asio::io_context server_io{1};
  RawAsks raw(client_io, server_io);
  std::thread server([&] {
    pin_thread(options.second_cpu);
    server_io.run();
  });
  try {
    latency_runs(raw, options, results.raw_two, "raw, two threads");
  } catch (...) {
    raw.close();
    server_io.stop();
    server.join();
    throw;
  }
  raw.close();
  server.join();
}

std::string us(double v) { return fmt_fixed(v, v < 100 ? 1 : 0); }

void latency_row(Table& table, const std::string& what, const Percentiles& p) {
  table.row({what, fmt_count(static_cast<double>(p.samples)), us(p.mean), us(p.p50), us(p.p90), us(p.p99),
             us(p.p999), us(p.max)});
}
void ratio_row(Table& table, const std::string& what, const Percentiles& w, const Percentiles& r) {
  table.row({what, "", fmt_ratio(w.mean / r.mean), fmt_ratio(w.p50 / r.p50), fmt_ratio(w.p90 / r.p90),
             fmt_ratio(w.p99 / r.p99), fmt_ratio(w.p999 / r.p999), fmt_ratio(w.max / r.max)});
}

}  // namespace

void run_ask(const Options& options) {
  pin_thread(options.cpu);
  Results results;
  one_thread(options, results);
  if (options.only_window != 0) {
    for (std::size_t w = 0; w < std::size(kWindows); ++w) {
      if (kWindows[w] == options.only_window) {
        progress("weft " + fmt_rate(median(results.weft_rate[w])) + " asks/s, raw " +
                 fmt_rate(median(results.raw_rate[w])) + " asks/s");
      }
    }
    return;
  }
  two_threads(options, results);

  Table latency("Ask round trip, one in flight, 100 B, real loopback TCP (harness 3)",
                {"path", "samples/run", "mean us", "p50 us", "p90 us", "p99 us", "p99.9 us", "max us"});
  const Percentiles w1 = results.weft_one.median(), r1 = results.raw_one.median();
  const Percentiles w2 = results.weft_two.median(), r2 = results.raw_two.median();
  latency_row(latency, "weft ask, one thread", w1);
  latency_row(latency, "raw TCP ping-pong, one thread", r1);
  ratio_row(latency, "weft / raw, one thread", w1, r1);
  latency_row(latency, "weft ask, two threads", w2);
  latency_row(latency, "raw TCP ping-pong, two threads", r2);
  ratio_row(latency, "weft / raw, two threads", w2, r2);
  const auto verdict = [](double ratio, double goal) {
    return fmt_ratio(ratio) + " (goal <= " + fmt_ratio(goal) + ": " + (ratio <= goal ? "met" : "missed") + ")";
  };
  latency.note("goals, one thread: p50 " + verdict(w1.p50 / r1.p50, 1.25) + ", p99 " + verdict(w1.p99 / r1.p99, 2.0));
  latency.note("two threads: p50 " + verdict(w2.p50 / r2.p50, 1.25) + ", p99 " + verdict(w2.p99 / r2.p99, 2.0));
  latency.note("each statistic is the median over " + std::to_string(options.runs) + " runs of " +
               fmt_count(static_cast<double>(counts(options).samples)) + " samples after " +
               fmt_count(static_cast<double>(counts(options).warm)) +
               " warm-up asks; weft: node a's Kernel::ask to node b's echo actor, clock from the ask call to the " +
               "AskCompleted event; raw: the same ask and reply frame bytes over one TCP connection, the server " +
               "answering each parsed frame; one thread = both ends on CPU " + std::to_string(options.cpu) +
               ", two threads = the answering end on CPU " + std::to_string(options.second_cpu));
  // Smoke runs write the same files; the note lets a reader of the JSON
  // (bench/peers/weft_io.py) tell their counts from a measurement's.
  if (options.quick) latency.note("quick: small counts, a smoke test, not a measurement");
  latency.print();
  latency.write_json(options.json_dir, "ask_latency");

  Table rate("Asks in flight, 100 B, one thread (harness 3)",
             {"in flight", "weft asks/s", "raw TCP asks/s", "weft / raw", "goal", "weft allocs/ask"});
  for (std::size_t w = 0; w < std::size(kWindows); ++w) {
    const double weft = median(results.weft_rate[w]);
    const double raw = median(results.raw_rate[w]);
    std::string goal;
    if (kWindows[w] == 64) goal = std::string(">= 1 M asks/s: ") + (weft >= 1e6 ? "met" : "missed");
    rate.row({std::to_string(kWindows[w]), fmt_rate(weft), fmt_rate(raw), fmt_ratio(weft / raw), goal,
              fmt_fixed(median(results.weft_allocs[w]), 2)});
  }
  rate.note("median of " + std::to_string(options.runs) + " runs of about " + (options.quick ? "0.1" : "1") +
            " s each; raw keeps the same number of ask frames in flight, the server answering per read in one " +
            "write, the client sending one new ask per reply, batched per read");
  if (options.quick) rate.note("quick: small counts, a smoke test, not a measurement");
  rate.print();
  rate.write_json(options.json_dir, "ask_rate");
}

}  // namespace weft::bench::net
