// weft::daemon::main: one weft node on real TCP (io/) hosting an
// application's actors (app/application.hpp), configured from a TOML
// file and flags, logging membership and reachability changes, and serving
// its admin endpoint (weftctl's transport and the Prometheus metrics) on
// loopback by default. weftd is this with the demo application.
//
//   PROGRAM --config node.toml [--set key=value ...] [--seed host:port ...]
//   PROGRAM --check-config node.toml      # the effective config and every problem
//
// Threads: the io thread runs the kernel and every socket; the admin
// endpoint (daemon/admin_server.hpp: cpp-httplib, bounded, control behind a
// token) runs on its own threads and only reads a snapshot the io thread
// publishes, or posts a command to the io thread and waits.
//
// Built twice from this file: the daemon library, and weft_daemon_bench
// (WEFT_LOAD_ROUTES), which adds POST /flood, a load generator no
// production node serves (weftd-bench).
// SIGTERM/SIGINT: leave (leaving, exiting, removed), then exit once removed
// or after --leave-timeout; a second signal exits at once. SIGHUP: read the
// key file and the TLS files again (rotation without a restart). All three
// are read on the io thread (daemon/process_signals.hpp): none ever kills
// the process, in its start or its teardown either.
#include <CLI/CLI.hpp>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include <asio.hpp>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <fstream>
#include <future>
#include <malloc.h>
#include <mutex>
#include <sys/resource.h>
#include <random>
#include <sstream>
#include <system_error>
#include <set>
#include <thread>

#include "io/clock.hpp"
#include "auth/key_file.hpp"
#include "io/node.hpp"
#include "daemon/admin_server.hpp"
#include "daemon/admin_text.hpp"
#include "daemon/daemon_config.hpp"
#include "daemon/daemon_main.hpp"
#include "daemon/process_signals.hpp"
#include "kernel/wire/refs.hpp"

namespace {

using weft::Duration;
using weft::Instant;

// Waits for `result` until `limit` has passed or `give_up()` holds, in 50 ms
// slices: a wait on the io thread must end once it, or the admin server,
// has stopped, not run out its whole limit.
template <class T>
bool wait_ready(const std::future<T>& result, std::chrono::milliseconds limit, const std::function<bool()>& give_up) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (result.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
    if (give_up() || std::chrono::steady_clock::now() >= until) return false;
  }
  return true;
}

struct AskReply {
  std::string outcome;
  std::string body;
  std::int64_t rtt_us = 0;
  std::uint32_t type_tag = 0;  // the reply's tag (X-Weft-Tag): a client tells answers of several types apart
};

struct Daemon;
void reload(Daemon& d);

// An io_context whose handlers can be destroyed before it is, while what
// they point into still lives. Its destructor calls shutdown() again,
// which finds nothing left to destroy (asio's execution_context: shutdown,
// then destroy).
class IoContext : public asio::io_context {
 public:
  using asio::io_context::io_context;
  using asio::execution_context::shutdown;
};

struct Daemon {
  IoContext io{1};
  // SIGHUP (reload), SIGINT and SIGTERM (leave), read on the io thread;
  // blocked in every thread from before the node starts, so one sent while
  // it starts waits for serve() and one sent while it exits changes nothing.
  weft::daemon::ProcessSignals signals{io};
  // The application's metrics: before `node`, so the actors holding
  // references into it are gone before it is.
  weft::Metrics metrics;
  std::unique_ptr<weft::io::Node> node;
  weft::daemon::DaemonConfig config;
  std::mutex snapshot_mutex;
  std::shared_ptr<const weft::daemon::Snapshot> snapshot;
  std::map<weft::AskId, std::pair<Instant, std::shared_ptr<std::promise<AskReply>>>> asks;
  weft::daemon::AskLatency ask_latency;
  bool leaving = false;
  bool shut_down = false;

  // io.stop() leaves handlers queued (a posted tick, the reads and waits
  // the node's stop aborted), some allocated in memory the Node owns.
  // ~io_context destroys them, but it runs after ~Node: they were freed
  // into a destroyed Node (ASan: heap-use-after-free in
  // scheduler::shutdown, seen under load). So they are destroyed here,
  // while the Node lives, and none is run: one may be an admin request's
  // work or a signal's callback whose frame is gone (running them was
  // tried: a SIGSEGV at teardown).
  ~Daemon() {
    if (node != nullptr) node->stop();
    io.shutdown();
  }
#ifdef WEFT_LOAD_ROUTES
  // A load generator (POST /flood): every 5 ms, tells until the link's
  // outbound bound refuses one, so the link stays saturated.
  struct Flood {
    weft::ActorRef target;
    std::vector<std::uint8_t> body;
    Instant until;
    std::uint64_t sent = 0;
    std::uint64_t refused = 0;
  };
  std::optional<Flood> flood;
  std::unique_ptr<asio::steady_timer> flood_timer;

  void flood_tick() {
    if (!flood) return;
    const Instant now = node->now();
    if (now >= flood->until) {
      spdlog::info("flood to {} done: {} sent, {} refused by the outbound bound", flood->target.to_string(),
                   flood->sent, flood->refused);
      return;
    }
    for (int i = 0; i < 10'000; ++i) {
      if (node->kernel().tell(now, flood->target, 1, flood->body) != weft::SendResult::sent) {
        ++flood->refused;
        break;
      }
      ++flood->sent;
    }
    node->drain();
    flood_timer->expires_after(std::chrono::milliseconds(5));
    flood_timer->async_wait([this](const std::error_code& e) {
      if (!e) flood_tick();
    });
  }
#endif

  // Links refused at the handshake or for bad input, one log line at most
  // every 10 s: a port scanner or a node with the wrong key must not flood
  // the log (every refusal is also counted in /metrics).
  std::array<std::uint64_t, weft::kAllCloseReasons.size()> refusals_logged{};
  std::uint64_t abandoned_logged = 0;
  std::uint64_t accept_failures_logged = 0;
  Instant next_refusal_log;
  void log_refusals() {
    const Instant now = node->now();
    if (now < next_refusal_log) return;
    const weft::KernelCounters& c = node->kernel().counters();
    std::string text;
    for (std::size_t i = 0; i < weft::kAllCloseReasons.size(); ++i) {
      switch (weft::kAllCloseReasons[i]) {
        case weft::CloseReason::wire_error:
        case weft::CloseReason::handshake_required:
        case weft::CloseReason::wrong_cluster:
        case weft::CloseReason::wrong_version:
        case weft::CloseReason::stale_incarnation:
        case weft::CloseReason::implausible_incarnation:
        case weft::CloseReason::handshake_timeout:
        case weft::CloseReason::bad_proof:
        case weft::CloseReason::unauthenticated:
        case weft::CloseReason::wrong_peer:
        case weft::CloseReason::handshake_capacity:
        case weft::CloseReason::wrong_name: break;
        case weft::CloseReason::self_connection:
        case weft::CloseReason::unexpected_frame:
        case weft::CloseReason::peer_gone:
        case weft::CloseReason::control_overflow:
        case weft::CloseReason::rejoining:
        case weft::CloseReason::shutting_down:
        case weft::CloseReason::idle: continue;
      }
      if (c.links_closed[i] == refusals_logged[i]) continue;
      text += fmt::format(" {} {}", weft::to_string(weft::kAllCloseReasons[i]), c.links_closed[i] - refusals_logged[i]);
      refusals_logged[i] = c.links_closed[i];
    }
    if (c.handshakes_abandoned != abandoned_logged) {
      text += fmt::format(" handshakes_abandoned {}", c.handshakes_abandoned - abandoned_logged);
      abandoned_logged = c.handshakes_abandoned;
    }
    const weft::io::DriverStats& driver = node->stats();
    if (driver.accept_failures != accept_failures_logged) {
      const int error = driver.last_accept_error;
      // Appended, not fmt::format: under UBSan a std::string argument formed
      // here tripped fmt's vptr check (io_strangers, asan preset).
      text += " accept_failed " + std::to_string(driver.accept_failures - accept_failures_logged) + " (last: ";
      text += std::error_code(error, std::generic_category()).message();
      if (error == EMFILE || error == ENFILE) text += "; raise the open-file limit: ulimit -n, or LimitNOFILE= under systemd";
      text += ")";
      accept_failures_logged = driver.accept_failures;
    }
    if (text.empty()) return;
    const bool key_trouble = text.find("bad_proof") != std::string::npos ||
                             text.find("handshakes_abandoned") != std::string::npos;
    spdlog::warn("links refused since the last report:{}{}", text,
                 key_trouble ? " (bad_proof or handshakes_abandoned: a peer without this node's keys)" : "");
    next_refusal_log = now + weft::Duration::seconds(10);
  }

  void publish() {
    log_refusals();
    auto next = std::make_shared<weft::daemon::Snapshot>(
        weft::daemon::make_snapshot(node->kernel(), node->stats(), ask_latency, node->now(), leaving));
    next->metrics += weft::daemon::application_metrics_text(metrics);
    const std::lock_guard lock(snapshot_mutex);
    snapshot = std::move(next);
  }
  std::shared_ptr<const weft::daemon::Snapshot> read() {
    const std::lock_guard lock(snapshot_mutex);
    return snapshot;
  }

  void on_event(const weft::Event& event) {
    if (const auto* m = std::get_if<weft::MemberEvent>(&event)) {
      spdlog::info("member {} {}{}", m->member.id.to_string(), weft::to_string(m->member.status),
                   m->from_known ? " (was " + std::string(weft::to_string(m->from)) + ")" : std::string());
    } else if (const auto* r = std::get_if<weft::ReachabilityEvent>(&event)) {
      if (r->unreachable) {
        spdlog::warn("{} unreachable", r->subject.to_string());
      } else {
        spdlog::info("{} reachable again", r->subject.to_string());
      }
    } else if (const auto* done = std::get_if<weft::AskCompleted>(&event)) {
      const auto it = asks.find(done->id);
      if (it == asks.end()) return;
      const Duration rtt = node->now() - it->second.first;
      ask_latency.record(rtt);
      it->second.second->set_value(AskReply{std::string(weft::to_string(done->outcome)),
                                            std::string(done->body.begin(), done->body.end()), rtt.ns() / 1000,
                                            done->type_tag});
      asks.erase(it);
    } else if (const auto* s = std::get_if<weft::ShutdownEvent>(&event)) {
      spdlog::info(s->downed ? "shut down: the cluster downed this node" : "left the cluster");
      shut_down = true;
      // A moment for the last gossip to leave, then stop.
      auto flush = std::make_shared<asio::steady_timer>(io, std::chrono::milliseconds(300));
      flush->async_wait([this, flush](const std::error_code&) { io.stop(); });
    }
  }

  // Runs `work` on the io thread and waits for its result.
  template <class T>
  std::optional<T> on_io(std::function<T()> work, std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
    auto promise = std::make_shared<std::promise<T>>();
    std::future<T> result = promise->get_future();
    asio::post(io, [promise, work = std::move(work)] { promise->set_value(work()); });
    if (!wait_ready(result, limit, [this] { return io.stopped(); })) return std::nullopt;  // the work never ran
    return result.get();
  }
};

bool parse_ref(const std::string& text, weft::ActorRef& out, std::string& error) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos || slash + 1 == text.size()) {
    error = "a target is host:port/actor, e.g. 127.0.0.1:7001/echo";
    return false;
  }
  if (!weft::daemon::parse_address(std::string_view(text).substr(0, slash), out.node, error)) return false;
  out.name = text.substr(slash + 1);
  return true;
}

std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// The request's `to` as an actor ref; otherwise a 400 naming the form.
bool target_of(const httplib::Request& req, httplib::Response& res, weft::ActorRef& target) {
  std::string error;
  if (parse_ref(req.get_param_value("to"), target, error)) return true;
  res.status = 400;
  res.set_content(error + "\n", "text/plain");
  return false;
}

// The request's `tag` (the message's type tag, default 1), a decimal
// 0..4294967295; otherwise a 400 naming the range.
bool tag_of(const httplib::Request& req, httplib::Response& res, std::uint32_t& tag) {
  tag = 1;
  if (!req.has_param("tag")) return true;
  const std::string text = req.get_param_value("tag");
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), tag);
  if (error == std::errc{} && end == text.data() + text.size() && !text.empty()) return true;
  res.status = 400;
  res.set_content("tag must be a decimal 0..4294967295 (the message's type tag; default 1)\n", "text/plain");
  return false;
}

// POST /ask: one ask on the io thread, the reply awaited here (on the admin
// thread) for its timeout and 2 s more, or until the server stops.
void ask_route(Daemon& d, weft::daemon::AdminServer& server, const httplib::Request& req, httplib::Response& res) {
  weft::ActorRef target;
  std::uint32_t tag = 1;
  if (!target_of(req, res, target) || !tag_of(req, res, tag)) return;
  std::int64_t timeout_ms = 1000;
  if (req.has_param("timeout_ms")) {
    const std::string text = req.get_param_value("timeout_ms");
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), timeout_ms);
    if (error != std::errc{} || end != text.data() + text.size()) timeout_ms = 0;
  }
  if (timeout_ms <= 0 || timeout_ms > 600'000) {
    res.status = 400;
    res.set_content("timeout_ms must be 1..600000\n", "text/plain");
    return;
  }
  const std::string body = req.body;
  const auto future = d.on_io<std::shared_ptr<std::promise<AskReply>>>([&d, target, tag, body, timeout_ms] {
    auto promise = std::make_shared<std::promise<AskReply>>();
    const Instant now = d.node->now();
    d.asks[d.node->kernel().ask(now, target, tag, bytes_of(body), Duration::milliseconds(timeout_ms))] = {now, promise};
    d.node->drain();
    return promise;
  });
  if (!future) {
    res.status = 503;
    return;
  }
  std::future<AskReply> reply = (*future)->get_future();
  if (!wait_ready(reply, std::chrono::milliseconds(timeout_ms + 2000), [&] { return server.stopping(); })) {
    res.status = 504;
    res.set_content("no completion\n", "text/plain");
    return;
  }
  const AskReply r = reply.get();
  res.set_header("X-Weft-Outcome", r.outcome);
  res.set_header("X-Weft-Rtt-Us", std::to_string(r.rtt_us));
  if (r.outcome == "reply") res.set_header("X-Weft-Tag", std::to_string(r.type_tag));
  res.set_content(r.body, "application/octet-stream");
  if (r.outcome != "reply") res.status = 502;
}

#ifdef WEFT_LOAD_ROUTES
// POST /flood and GET /flood: weftd-bench's load generator.
void serve_load_routes(Daemon& d, weft::daemon::AdminServer& server) {
  server.control("/flood", [&](const httplib::Request& req, httplib::Response& res) {
    weft::ActorRef target;
    if (!target_of(req, res, target)) return;
    std::int64_t bytes = 1024;
    std::int64_t seconds = 10;
    for (auto [name, value] : {std::pair{"bytes", &bytes}, std::pair{"seconds", &seconds}}) {
      if (!req.has_param(name)) continue;
      const std::string text = req.get_param_value(name);
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
      if (error != std::errc{} || end != text.data() + text.size()) *value = -1;
    }
    if (bytes < 0 || bytes > 1'000'000 || seconds <= 0 || seconds > 600) {
      res.status = 400;
      res.set_content("bytes must be 0..1000000 and seconds 1..600\n", "text/plain");
      return;
    }
    (void)d.on_io<bool>([&d, target, bytes, seconds] {
      d.flood = Daemon::Flood{target, std::vector<std::uint8_t>(static_cast<std::size_t>(bytes), 0x5a),
                              d.node->now() + Duration::seconds(seconds)};
      if (!d.flood_timer) d.flood_timer = std::make_unique<asio::steady_timer>(d.io);
      spdlog::info("flooding {} with {} B tells for {} s", target.to_string(), bytes, seconds);
      d.flood_tick();
      return true;
    });
    res.set_content("flooding\n", "text/plain");
  });
  server.read_only("/flood", [&](const httplib::Request&, httplib::Response& res) {
    const auto text = d.on_io<std::string>([&d] {
      if (!d.flood) return std::string("none\n");
      return std::to_string(d.flood->sent) + " sent, " + std::to_string(d.flood->refused) + " refused\n";
    });
    res.set_content(text ? *text : "io thread did not answer\n", "text/plain");
  });
}
#endif

void serve_admin(Daemon& d, weft::daemon::AdminServer& server) {
  server.read_only("/health", [&](const httplib::Request&, httplib::Response& res) {
    const auto s = d.read();
    res.set_content(s ? s->health : "starting\n", "text/plain");
    if (!s || s->health != "ok\n") res.status = 503;
  });
  server.read_only("/members", [&](const httplib::Request&, httplib::Response& res) {
    const auto s = d.read();
    res.set_content(s ? s->members_text : "", "text/plain");
  });
  server.read_only("/members.json", [&](const httplib::Request&, httplib::Response& res) {
    const auto s = d.read();
    res.set_content(s ? s->members_json : "{}", "application/json");
  });
  server.read_only("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    const auto s = d.read();
    res.set_content((s ? s->metrics : "") + server.metrics_text(), "text/plain; version=0.0.4");
  });
  server.control("/tell", [&](const httplib::Request& req, httplib::Response& res) {
    weft::ActorRef target;
    std::uint32_t tag = 1;
    if (!target_of(req, res, target) || !tag_of(req, res, tag)) return;
    const std::string body = req.body;
    const auto result = d.on_io<std::string>([&d, target, tag, body] {
      const weft::SendResult r = d.node->kernel().tell(d.node->now(), target, tag, bytes_of(body));
      d.node->drain();
      return std::string(weft::to_string(r));
    });
    res.set_content((result ? *result : std::string("io thread did not answer")) + "\n", "text/plain");
    if (!result || *result != "sent") res.status = 409;
  });
  server.control("/ask", [&](const httplib::Request& req, httplib::Response& res) { ask_route(d, server, req, res); });
#ifdef WEFT_LOAD_ROUTES
  serve_load_routes(d, server);
#endif
  server.control("/leave", [&](const httplib::Request&, httplib::Response& res) {
    (void)d.on_io<bool>([&d] {
      d.leaving = true;
      d.node->kernel().leave(d.node->now());
      d.node->drain();
      return true;
    });
    res.set_content("leaving\n", "text/plain");
  });
}

// SIGHUP: the key file and the TLS files, read again; what does not load
// is reported and the files in use stay (a typo must not lock the node out).
void reload(Daemon& d) {
  std::string done;
  if (!d.config.auth_key_file.empty()) {
    weft::auth::KeyFile file = weft::auth::read_key_file(d.config.auth_key_file);
    std::string error;
    if (!file.problems.empty()) {
      for (const std::string& p : file.problems) spdlog::error("SIGHUP: auth_key_file: {}; the keys in use stay", p);
    } else if (const std::size_t count = file.keys.size();
               !d.node->kernel().replace_auth_keys(std::move(file.keys), error)) {
      spdlog::error("SIGHUP: auth_key_file: {}; the keys in use stay", error);
    } else {
      done += std::to_string(count) + " key(s) from " + d.config.auth_key_file + " (the first signs)";
    }
  }
  if (d.config.tls()) {
    std::string error;
    if (!d.node->reload_tls(error)) {
      spdlog::error("SIGHUP: {}; the TLS files in use stay", error);
    } else {
      done += std::string(done.empty() ? "" : ", ") + "TLS files " + d.config.tls_cert + ", " + d.config.tls_ca;
    }
  }
  if (!done.empty()) spdlog::info("SIGHUP: reloaded {}; links already up keep theirs", done);
  if (d.config.auth_key_file.empty() && !d.config.tls()) spdlog::info("SIGHUP: no key file or TLS files to reload");
}

// Every link, admin connection and handshake holds a descriptor; the soft
// limit a shell hands down (often 1024) is raised to the hard one, and both
// are logged so an operator sees what the node can hold.
void raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t before = limit.rlim_cur;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) limit.rlim_cur = before;
  }
  spdlog::info("open-file limit {} (was {}, hard limit {})", static_cast<std::uint64_t>(limit.rlim_cur),
               static_cast<std::uint64_t>(before), static_cast<std::uint64_t>(limit.rlim_max));
}

}  // namespace

namespace weft::daemon {

namespace {

// Flags over the TOML file: the node's configuration, or the exit code
// when there is no node to run (--help, --check-config, a problem).
std::optional<int> read_config(int argc, char** argv, const std::string& program, const Application& application,
                               DaemonConfig& config, double& leave_timeout_s) {
  CLI::App app{program + ": " + (application.description.empty() ? "a weft cluster node" : application.description)};
  std::string config_file;
  std::string check_file;
  std::vector<std::string> settings;
  std::vector<std::string> seeds;
  std::string bind, advertise, admin, cluster;
  app.add_option("--config", config_file, "TOML file; every key is a Config knob (docs/deploy.md)");
  app.add_option("--check-config", check_file, "print the effective configuration of FILE and every problem, then exit");
  app.add_option("--set", settings, "key=value, overriding the file (repeatable)");
  app.add_option("--seed", seeds, "a seed host:port (repeatable; overrides the file's seeds)");
  app.add_option("--bind", bind, "listen on host:port");
  app.add_option("--advertise", advertise, "the host:port peers dial");
  app.add_option("--admin", admin, "the admin endpoint's host:port (default: 127.0.0.1, node port + 1000)");
  app.add_option("--cluster", cluster, "the cluster name");
  app.add_option("--leave-timeout", leave_timeout_s, "seconds to wait for a graceful leave")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  config = default_config();
  std::vector<std::string> problems;
  const std::string file = check_file.empty() ? config_file : check_file;
  if (!file.empty()) {
    std::ifstream in(file);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read %s\n", program.c_str(), file.c_str());
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    weft::daemon::apply_toml(config, text.str(), file, problems);
  }
  std::string joined_seeds;
  for (const std::string& s : seeds) joined_seeds += (joined_seeds.empty() ? "" : ",") + s;
  if (!seeds.empty()) settings.push_back("seeds=" + joined_seeds);
  if (!bind.empty()) settings.push_back("bind=" + bind);
  if (!advertise.empty()) settings.push_back("advertise=" + advertise);
  if (!admin.empty()) settings.push_back("admin=" + admin);
  if (!cluster.empty()) settings.push_back("cluster_name=" + cluster);
  for (const std::string& s : settings) weft::daemon::apply_setting(config, s, problems);
  weft::daemon::finish(config, problems);
  if (!check_file.empty()) {
    std::printf("%s", weft::daemon::to_text(config).c_str());
    for (const std::string& p : problems) std::printf("problem: %s\n", p.c_str());
    std::printf("%s\n", problems.empty() ? "config ok" : "config has problems");
    return problems.empty() ? 0 : 2;
  }
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "%s: %s\n", program.c_str(), p.c_str());
    return 2;
  }
  return std::nullopt;
}

// The node, its actors spawned and listening; the exit code if it cannot
// start.
std::optional<int> start_node(Daemon& d, const Application& application, const std::string& program) {
  const DaemonConfig& config = d.config;
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [" + config.kernel.self.to_string() + "] %v");

  std::error_code ec;
  const asio::ip::address bind_address = asio::ip::make_address(config.bind.host, ec);
  if (ec) {
    std::fprintf(stderr, "%s: bind = %s: the bind host must be an IP address (use advertise for a name)\n",
                 program.c_str(), config.bind.to_string().c_str());
    return 2;
  }
  weft::io::NodeOptions options;
  options.config = config.kernel;
  options.bind = asio::ip::tcp::endpoint(bind_address, config.bind.port);
  // From the OS, never from the config: the kernel's handshake nonces come
  // from this PRNG, and a pinned incarnation, a clock stepped back or a
  // restored VM snapshot must not replay the nonces of an earlier life (a
  // recorded handshake would then replay too).
  std::random_device entropy;
  options.seed = (std::uint64_t{entropy()} << 32) ^ entropy();
  options.on_event = [&d](const weft::Event& e) { d.on_event(e); };
  options.on_warning = [](const std::string& w) { spdlog::warn("{}", w); };
  options.tls = {config.tls_cert, config.tls_key, config.tls_ca, config.tls_check_names};
  d.node = std::make_unique<weft::io::Node>(d.io, options);
  if (std::string why; !d.signals.open(why)) {
    std::fprintf(stderr, "%s: cannot watch signals: %s\n", program.c_str(), why.c_str());
    return 1;
  }

  const ActorStart start{.metrics = d.metrics, .planted = {}, .seeds = d.node->kernel().config().seeds};
  for (const ActorKind& kind : application.actors) {
    std::string problem;
    std::unique_ptr<Behavior> behavior = make_actor(kind, start, problem);
    if (behavior == nullptr) {
      std::fprintf(stderr, "%s: bad application: %s\n", program.c_str(), problem.c_str());
      return 2;
    }
    d.node->kernel().spawn(d.node->now(), kind.name, std::move(behavior));
  }
  std::string error;
  if (!d.node->start(error)) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return 1;
  }
  spdlog::info("listening on {}, advertising {}, incarnation {}, admin on http://{}", config.bind.to_string(),
               config.kernel.self.to_string(), config.kernel.incarnation.value, config.admin.to_string());
  if (config.tls()) spdlog::info("TLS required on every link: certificate {}, CA {}", config.tls_cert, config.tls_ca);
  spdlog::info("admin control (tell, ask, leave): {}",
               !config.admin_control           ? "off"
               : !config.admin_token.empty()   ? "behind the token in " + config.admin_token_file
                                               : std::string("open on loopback (no admin_token_file)"));
  raise_open_file_limit();

  return std::nullopt;
}

// Publishes snapshots, leaves on the first signal, serves the admin
// endpoint, and runs the io thread until the node has left or stopped.
int serve(Daemon& d, const std::string& program, double leave_timeout_s) {
  const DaemonConfig& config = d.config;
  // Snapshots for the admin endpoint, every 100 ms.
  asio::steady_timer publish_timer(d.io);
  std::function<void()> publish = [&] {
    d.publish();
    publish_timer.expires_after(std::chrono::milliseconds(100));
    publish_timer.async_wait([&](const std::error_code& e) {
      if (!e) publish();
    });
  };
  publish();

  asio::steady_timer leave_deadline(d.io);
  d.signals.watch([&](int signal) {
    if (signal == SIGHUP) {
      reload(d);
      return;
    }
    if (d.leaving) {
      spdlog::warn("second signal ({}): exiting now", signal);
      d.io.stop();
      return;
    }
    spdlog::info("signal {}: leaving the cluster", signal);
    d.leaving = true;
    d.node->kernel().leave(d.node->now());
    d.node->drain();
    leave_deadline.expires_after(std::chrono::milliseconds(static_cast<std::int64_t>(leave_timeout_s * 1000)));
    leave_deadline.async_wait([&](const std::error_code& te) {
      if (te) return;
      spdlog::warn("not removed within {} s: exiting", leave_timeout_s);
      d.io.stop();
    });
  });

  weft::daemon::AdminServer server(weft::daemon::AdminLimits{}, config.admin_token, config.admin_control);
  serve_admin(d, server);
  if (!server.bind(config.admin.host, config.admin.port)) {
    std::fprintf(stderr, "%s: cannot serve the admin endpoint on %s\n", program.c_str(),
                 config.admin.to_string().c_str());
    return 1;
  }
  std::thread admin_thread([&] { server.listen_after_bind(); });
  // httplib's stop() does nothing before its listen loop has begun: a node
  // told to stop at once must not then wait forever on the join below.
  for (int waited_ms = 0; !server.is_running() && waited_ms < 2000; ++waited_ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  d.io.run();
  server.shut_down();
  admin_thread.join();
  d.node->stop();
  return 0;
}

// glibc adjusts its mmap and trim thresholds to the blocks a process
// frees, and the kernel gives back a link's buffer once it is drained if it
// grew past 1 KB (kernel/wire/frame.hpp): a burst of ~100 KB of frames in
// one dispatch step then has its buffers mapped and unmapped, or the heap's
// top trimmed and grown again, every burst. weft_bench_shard's
// entity_tell_remote/1024 (1024 entity tells a step, in 2.5 KB batches):
// 25 minor page faults a burst and 532 ns a tell with glibc's defaults;
// 336 faults in 10,960 bursts and 133 ns with these thresholds fixed
// (MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ in the environment,
// as here; docs/performance.md). Blocks up to 1 MiB come from the heap,
// and up to 8 MiB freed at its top stay there.
void keep_freed_memory_for_bursts() {
  (void)mallopt(M_MMAP_THRESHOLD, 1 << 20);
  (void)mallopt(M_TRIM_THRESHOLD, 8 << 20);
}

}  // namespace

int main(int argc, char** argv, const Application& application) {
  keep_freed_memory_for_bursts();
  const std::string program = application.name.empty() ? "weft daemon" : application.name;
  if (const std::vector<std::string> bad = application_problems(application); !bad.empty()) {
    for (const std::string& p : bad) std::fprintf(stderr, "%s: bad application: %s\n", program.c_str(), p.c_str());
    return 2;
  }
  DaemonConfig config;
  double leave_timeout_s = 10;
  if (const std::optional<int> exit = read_config(argc, argv, program, application, config, leave_timeout_s)) return *exit;
  ProcessSignals::block();  // before any thread starts: each inherits the mask
  Daemon d;
  d.config = config;
  if (const std::optional<int> exit = start_node(d, application, program)) return *exit;
  return serve(d, program, leave_timeout_s);
}

}  // namespace weft::daemon
