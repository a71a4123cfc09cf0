#include "bench/net/common.hpp"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <iostream>
#include <numeric>

namespace weft::bench::net {

std::int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

int cpu_count() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

bool pin_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<std::size_t>(cpu), &set);
  const int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  if (rc != 0) {
    std::cerr << "warning: cannot pin to CPU " << cpu << ": " << std::strerror(rc) << "\n";
    return false;
  }
  return true;
}

void fail(const std::string& what) { throw HarnessError(what); }

namespace {
const char* watchdog_what = "";
void on_alarm(int) {
  // Only async-signal-safe calls here.
  const char head[] = "\nwatchdog: the harness is still running past its limit: ";
  (void)!write(STDERR_FILENO, head, sizeof head - 1);
  (void)!write(STDERR_FILENO, watchdog_what, std::strlen(watchdog_what));
  (void)!write(STDERR_FILENO, "\n", 1);
  _exit(3);
}
}  // namespace

void arm_watchdog(unsigned seconds, const char* what) {
  watchdog_what = what;
  struct sigaction action{};
  action.sa_handler = on_alarm;
  sigaction(SIGALRM, &action, nullptr);
  alarm(seconds);
}

std::uint16_t free_port() {
  asio::io_context io;
  asio::ip::tcp::acceptor a(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return a.local_endpoint().port();
}

void Sink::receive(Context&, const Delivery& message) {
  if (message.kind != DeliveryKind::tell) return;
  ++handled;
  if (on_tell) on_tell();
}

void Echo::receive(Context& context, const Delivery& message) {
  if (message.kind == DeliveryKind::ask) (void)context.reply(message.type_tag, message.body);
}

Config bench_config() {
  Config config;
  config.cluster_name = "bench";
  return config;
}

namespace {
std::unique_ptr<io::Node> make_node(asio::io_context& io, const Config& base, std::uint16_t port,
                                    std::uint16_t seed_port, std::function<void(const Event&)> on_event,
                                    std::uint64_t* late_timers) {
  io::NodeOptions options;
  options.config = base;
  options.config.self = NodeAddress{"127.0.0.1", port};
  options.config.seeds = {NodeAddress{"127.0.0.1", seed_port}};
  options.bind = asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port);
  options.seed = port;
  options.on_event = std::move(on_event);
  options.on_warning = [late_timers](const std::string& text) {
    if (text.rfind("timer fired", 0) == 0) {
      ++*late_timers;
    } else {
      std::cerr << "node warning: " << text << "\n";
    }
  };
  return std::make_unique<io::Node>(io, std::move(options));
}
}  // namespace

NodePair::NodePair(asio::io_context& a_io, asio::io_context& b_io, const Config& base) : io_a(a_io), io_b(b_io) {
  const std::uint16_t pa = free_port();
  const std::uint16_t pb = free_port();
  a = make_node(io_a, base, pa, pa, [this](const Event& e) {
    if (std::holds_alternative<DeadLetter>(e)) unexpected.push_back(e);
    if (on_event_a) on_event_a(e);
  }, &late_timers);
  b = make_node(io_b, base, pb, pa, [this](const Event& e) {
    if (std::holds_alternative<DeadLetter>(e)) unexpected_b.push_back(e);
    if (on_event_b) on_event_b(e);
  }, &late_timers_b);
  auto sink_actor = std::make_unique<Sink>();
  sink = sink_actor.get();
  sink_ref = b->kernel().spawn(b->now(), "sink", std::move(sink_actor));
  echo_ref = b->kernel().spawn(b->now(), "echo", std::make_unique<Echo>());
}

NodePair::~NodePair() {
  a->stop();
  b->stop();
}

void NodePair::start() {
  std::string error;
  if (!a->start(error) || !b->start(error)) fail("node start: " + error);
}

bool NodePair::up_a() const {
  const Member* m = a->kernel().members().find(b->kernel().config().self);
  return m != nullptr && m->status == MemberStatus::up && a->kernel().self_status() == MemberStatus::up;
}

bool NodePair::up_b() const {
  const Member* m = b->kernel().members().find(a->kernel().config().self);
  return m != nullptr && m->status == MemberStatus::up && b->kernel().self_status() == MemberStatus::up;
}

void NodePair::wait_until_up(double seconds) {
  const Deadline deadline(seconds);
  const bool shared = &io_a == &io_b;
  const auto b_up = [&] {
    if (shared) return up_b();
    std::promise<bool> answer;
    auto future = answer.get_future();
    asio::post(io_b, [&] { answer.set_value(up_b()); });
    return future.get();
  };
  while (!(up_a() && b_up())) {
    if (deadline.passed()) fail("the two nodes did not see each other up within " + fmt_fixed(seconds, 0) + " s");
    io_a.run_for(std::chrono::milliseconds(5));
  }
}

Percentiles percentiles(std::vector<std::int64_t> samples_ns) {
  Percentiles p;
  if (samples_ns.empty()) return p;
  std::sort(samples_ns.begin(), samples_ns.end());
  const auto at = [&](double q) {
    auto i = static_cast<std::size_t>(q * static_cast<double>(samples_ns.size()));
    i = std::min(i, samples_ns.size() - 1);
    return static_cast<double>(samples_ns[i]) / 1e3;
  };
  p.samples = samples_ns.size();
  p.mean = std::accumulate(samples_ns.begin(), samples_ns.end(), 0.0) / static_cast<double>(samples_ns.size()) / 1e3;
  p.p50 = at(0.50);
  p.p90 = at(0.90);
  p.p99 = at(0.99);
  p.p999 = at(0.999);
  p.max = static_cast<double>(samples_ns.back()) / 1e3;
  return p;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Table::Table(std::string title, std::vector<std::string> columns)
    : title_(std::move(title)), columns_(std::move(columns)) {}

void Table::row(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

void Table::note(std::string text) { notes_.push_back(std::move(text)); }

void Table::print() const {
  std::cout << "### " << title_ << "\n\n|";
  for (const auto& c : columns_) std::cout << ' ' << c << " |";
  std::cout << "\n|";
  for (std::size_t i = 0; i < columns_.size(); ++i) std::cout << (i == 0 ? "---|" : "---:|");
  std::cout << "\n";
  for (const auto& r : rows_) {
    std::cout << "|";
    for (const auto& c : r) std::cout << ' ' << c << " |";
    std::cout << "\n";
  }
  if (!notes_.empty()) {
    std::cout << "\n_";
    for (std::size_t i = 0; i < notes_.size(); ++i) std::cout << (i == 0 ? "" : "; ") << notes_[i];
    std::cout << "._\n";
  }
  std::cout << "\n" << std::flush;
}

namespace {
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}
}  // namespace

void Table::write_json(const std::string& dir, const std::string& name) const {
  if (dir.empty()) return;
  std::ofstream out(dir + "/net_" + name + ".json");
  out << "{\"title\": " << json_string(title_) << ", \"rows\": [";
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    out << (r == 0 ? "\n  {" : ",\n  {");
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      out << (c == 0 ? "" : ", ") << json_string(columns_[c]) << ": " << json_string(rows_[r][c]);
    }
    out << "}";
  }
  out << "\n], \"notes\": [";
  for (std::size_t i = 0; i < notes_.size(); ++i) out << (i == 0 ? "" : ", ") << json_string(notes_[i]);
  out << "]}\n";
}

std::string fmt_count(double value) {
  auto n = static_cast<long long>(std::llround(value));
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string fmt_fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string fmt_rate(double per_second) {
  if (per_second >= 1e6) return fmt_fixed(per_second / 1e6, 2) + " M";
  if (per_second >= 1e3) return fmt_fixed(per_second / 1e3, 1) + " k";
  return fmt_fixed(per_second, 0);
}

std::string fmt_ratio(double value) { return fmt_fixed(value, value < 0.1 ? 3 : 2) + "x"; }

void progress(const std::string& line) { std::cerr << line << "\n" << std::flush; }

}  // namespace weft::bench::net
