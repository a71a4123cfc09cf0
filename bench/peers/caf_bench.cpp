// weft_peer_caf: CAF 0.17 remote actors (Debian libcaf-dev) on the
// workloads of docs/benchmarks.md harnesses 2 and 3, so `bench/run --peers` can
// put them beside weft's. Two processes, two actor systems, one BASP
// connection over loopback TCP through the io::middleman:
//
//   weft_peer_caf server [--port P] [--threads N]
//       publishes the server actor on 127.0.0.1:P (0: any free port), prints
//       "port <P>" and runs until stdin closes (its driver's lifetime);
//   weft_peer_caf client --port P [--threads N] [--tell-counts A,B,C]
//       [--ask-samples S] [--ask-warmup W] [--asks M] [--max-seconds T]
//       runs every workload against it and prints one JSON object.
//
// --threads 0 keeps CAF's own default scheduler size (max(cores, 4) workers);
// --policy sharing swaps CAF's default work-stealing scheduler (an idle
// worker polls 100 times, then 500 times 50 us apart, then waits on a
// condition variable) for its shared queue (idle workers wait at once).
//
// Tell: the client sends tell messages with a 64 B, 1 KB or 16 KB string
// body; the clock stops when the reply to a request sent after the last tell
// arrives, so the server has handled every message (one connection, in
// order). CAF has no flow control on remote sends, so an unbounded loop would
// buffer the whole run in the middleman: the server acks every 1/8 of a
// credit window of 8 MiB of bodies (weft's default outbound bound per link)
// and the client never has more than a window unacknowledged.
//
// Ask: request/then from an event-based actor, 100 B each way (the server
// returns the body). One in flight for the round trip samples (after
// warm-up), then 1, 4, 16, 64 in flight for asks/s.
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

using tell_atom = caf::atom_constant<caf::atom("tell")>;
using ask_atom = caf::atom_constant<caf::atom("ask")>;
using ack_atom = caf::atom_constant<caf::atom("ack")>;
using reset_atom = caf::atom_constant<caf::atom("reset")>;
using sync_atom = caf::atom_constant<caf::atom("sync")>;
using done_atom = caf::atom_constant<caf::atom("done")>;

using Clock = std::chrono::steady_clock;

struct ServerState {
  std::uint64_t told = 0;
  std::uint64_t ack_every = 0;
};

caf::behavior server_actor(caf::stateful_actor<ServerState>* self) {
  return {
      [=](tell_atom, const std::string&) {
        auto& s = self->state;
        ++s.told;
        if (s.ack_every != 0 && s.told % s.ack_every == 0) {
          self->send(caf::actor_cast<caf::actor>(self->current_sender()), ack_atom::value, s.told);
        }
      },
      [=](reset_atom, std::uint64_t ack_every) {
        self->state.told = 0;
        self->state.ack_every = ack_every;
        return ack_every;
      },
      [=](sync_atom) { return self->state.told; },
      [=](ask_atom, std::string& body) { return std::move(body); },
  };
}

struct Options {
  bool server = false;
  std::uint16_t port = 0;
  std::size_t threads = 0;
  std::string policy;  // empty: CAF's default (stealing)
  std::vector<std::uint64_t> tell_counts{1'000'000, 500'000, 100'000};
  std::uint64_t ask_samples = 100'000;
  std::uint64_t ask_warmup = 10'000;
  std::uint64_t asks = 200'000;  // per in-flight level
  double max_seconds = 60;       // per workload: every loop is bounded in time too
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "weft_peer_caf: %s\nusage: weft_peer_caf server|client [--port P] [--threads N] ...\n", why);
  std::exit(2);
}

std::vector<std::uint64_t> parse_list(const std::string& text) {
  std::vector<std::uint64_t> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = text.find(',', at);
    out.push_back(std::stoull(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at)));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

Options parse(int argc, char** argv) {
  if (argc < 2) usage("a role is required");
  Options o;
  const std::string role = argv[1];
  if (role == "server") {
    o.server = true;
  } else if (role != "client") {
    usage("the role is server or client");
  }
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage(("a value is missing after " + flag).c_str());
    const std::string value = argv[++i];
    if (flag == "--port") {
      o.port = static_cast<std::uint16_t>(std::stoul(value));
    } else if (flag == "--policy") {
      if (value != "stealing" && value != "sharing") usage("--policy is stealing or sharing");
      o.policy = value;
    } else if (flag == "--threads") {
      o.threads = std::stoul(value);
    } else if (flag == "--tell-counts") {
      o.tell_counts = parse_list(value);
      if (o.tell_counts.size() != 3) usage("--tell-counts takes three counts (64 B, 1 KB, 16 KB)");
    } else if (flag == "--ask-samples") {
      o.ask_samples = std::stoull(value);
    } else if (flag == "--ask-warmup") {
      o.ask_warmup = std::stoull(value);
    } else if (flag == "--asks") {
      o.asks = std::stoull(value);
    } else if (flag == "--max-seconds") {
      o.max_seconds = std::stod(value);
    } else {
      usage(("unknown flag " + flag).c_str());
    }
  }
  if (!o.server && o.port == 0) usage("the client needs --port");
  return o;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct TellResult {
  std::uint64_t handled = 0;
  double seconds = 0;
};

TellResult tell_run(caf::actor_system& sys, const caf::actor& server, std::size_t size, std::uint64_t count,
                    double max_seconds) {
  const std::string body(size, 'x');
  const std::uint64_t window = std::max<std::uint64_t>(64, (8u << 20) / size);
  const std::uint64_t ack_every = std::max<std::uint64_t>(1, window / 8);
  caf::scoped_actor self{sys};
  self->request(server, caf::infinite, reset_atom::value, ack_every)
      .receive([](std::uint64_t) {}, [](caf::error& e) { usage(("reset failed: " + to_string(e)).c_str()); });
  std::uint64_t sent = 0;
  std::uint64_t acked = 0;
  const auto t0 = Clock::now();
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(max_seconds));
  while (sent < count) {
    while (sent - acked >= window) {
      self->receive([&](ack_atom, std::uint64_t upto) { acked = std::max(acked, upto); });
    }
    self->send(server, tell_atom::value, body);
    ++sent;
    if ((sent & 1023) == 0 && Clock::now() > deadline) break;
  }
  TellResult r;
  self->request(server, caf::infinite, sync_atom::value)
      .receive([&](std::uint64_t handled) { r.handled = handled; },
               [](caf::error& e) { usage(("sync failed: " + to_string(e)).c_str()); });
  r.seconds = seconds_since(t0);
  if (r.handled != sent) std::fprintf(stderr, "weft_peer_caf: sent %llu, server handled %llu\n",
                                      static_cast<unsigned long long>(sent), static_cast<unsigned long long>(r.handled));
  return r;
}

// Keeps `inflight` requests outstanding until `total` have completed (or the
// deadline passes), recording the round trip of each after the first
// `warmup` when `samples` is given.
struct AskPlan {
  caf::actor server;
  caf::actor notify;
  std::string body;
  std::uint64_t inflight = 1;
  std::uint64_t total = 0;
  std::uint64_t warmup = 0;
  Clock::time_point deadline;
  std::vector<std::int64_t>* samples = nullptr;  // ns; written by the asker only, read after `done`
};

struct AskerState {
  AskPlan plan;  // here, not in each handler's captures: no copy per request
  std::uint64_t issued = 0;
  std::uint64_t completed = 0;
};

void issue(caf::stateful_actor<AskerState>* self) {
  const std::uint64_t n = self->state.issued++;
  const auto t0 = Clock::now();
  self->request(self->state.plan.server, caf::infinite, ask_atom::value, self->state.plan.body)
      .then([self, n, t0](const std::string&) {
        const auto t1 = Clock::now();
        auto& s = self->state;
        if (s.plan.samples != nullptr && n >= s.plan.warmup) {
          s.plan.samples->push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
        }
        ++s.completed;
        if (s.issued < s.plan.total && t1 < s.plan.deadline) {
          issue(self);
        } else if (s.completed == s.issued) {
          self->send(s.plan.notify, done_atom::value, s.completed);
          self->quit();
        }
      });
}

caf::behavior asker_actor(caf::stateful_actor<AskerState>* self, AskPlan plan) {
  self->state.plan = std::move(plan);
  const AskPlan& p = self->state.plan;
  for (std::uint64_t i = 0; i < p.inflight && i < p.total; ++i) issue(self);
  return {[](done_atom) {}};  // never sent: keeps the actor alive while requests are out
}

struct AskRun {
  std::uint64_t completed = 0;
  double seconds = 0;
};

AskRun ask_run(caf::actor_system& sys, const caf::actor& server, std::uint64_t inflight, std::uint64_t total,
               std::uint64_t warmup, double max_seconds, std::vector<std::int64_t>* samples) {
  caf::scoped_actor waiter{sys};
  AskPlan plan;
  plan.server = server;
  plan.notify = waiter;
  plan.body = std::string(100, 'q');
  plan.inflight = inflight;
  plan.total = total;
  plan.warmup = warmup;
  const auto t0 = Clock::now();
  plan.deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(max_seconds));
  plan.samples = samples;
  sys.spawn(asker_actor, plan);
  AskRun r;
  waiter->receive([&](done_atom, std::uint64_t completed) { r.completed = completed; });
  r.seconds = seconds_since(t0);
  return r;
}

double percentile(const std::vector<std::int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(p / 100.0 * static_cast<double>(sorted.size() - 1) + 0.5);
  return static_cast<double>(sorted[std::min(rank, sorted.size() - 1)]) / 1000.0;
}

int run_server(caf::actor_system& sys, const Options& o) {
  auto server = sys.spawn(server_actor);
  auto port = sys.middleman().publish(server, o.port, "127.0.0.1", true);
  if (!port) {
    std::fprintf(stderr, "weft_peer_caf: publish failed: %s\n", sys.render(port.error()).c_str());
    return 1;
  }
  std::printf("port %u\n", static_cast<unsigned>(*port));
  std::fflush(stdout);
  // The driver owns this process's lifetime: stdin closes when it exits or
  // is killed, so no server outlives a run.
  for (std::string line; std::getline(std::cin, line);) {
  }
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
  return 0;
}

int run_client(caf::actor_system& sys, const Options& o) {
  auto server = sys.middleman().remote_actor("127.0.0.1", o.port);
  if (!server) {
    std::fprintf(stderr, "weft_peer_caf: remote_actor failed: %s\n", sys.render(server.error()).c_str());
    return 1;
  }
  std::string json = "{\"peer\":\"caf\",\"version\":\"" + std::to_string(CAF_VERSION) + "\",\"threads\":" +
                     std::to_string(o.threads) + ",\"policy\":\"" + (o.policy.empty() ? "default" : o.policy) +
                     "\",\"tell\":{";
  const std::size_t sizes[] = {64, 1024, 16384};
  for (int i = 0; i < 3; ++i) {
    const TellResult r = tell_run(sys, *server, sizes[i], o.tell_counts[static_cast<std::size_t>(i)], o.max_seconds);
    const double rate = static_cast<double>(r.handled) / r.seconds;
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s\"%zu\":{\"count\":%llu,\"seconds\":%.4f,\"msg_per_s\":%.1f,\"mb_per_s\":%.2f}",
                  i == 0 ? "" : ",", sizes[i], static_cast<unsigned long long>(r.handled), r.seconds, rate,
                  rate * static_cast<double>(sizes[i]) / 1e6);
    json += buf;
    std::fprintf(stderr, "caf tell %zu B: %.0f msg/s\n", sizes[i], rate);
  }
  json += "},";

  std::vector<std::int64_t> samples;
  samples.reserve(o.ask_samples);
  const AskRun rtt = ask_run(sys, *server, 1, o.ask_warmup + o.ask_samples, o.ask_warmup, o.max_seconds, &samples);
  (void)rtt;
  std::sort(samples.begin(), samples.end());
  double sum = 0;
  for (const auto s : samples) sum += static_cast<double>(s);
  {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "\"ask_rtt_us\":{\"samples\":%zu,\"mean\":%.2f,\"p50\":%.2f,\"p90\":%.2f,\"p99\":%.2f,"
                  "\"p99.9\":%.2f,\"max\":%.2f},",
                  samples.size(), samples.empty() ? 0.0 : sum / static_cast<double>(samples.size()) / 1000.0,
                  percentile(samples, 50), percentile(samples, 90), percentile(samples, 99), percentile(samples, 99.9),
                  samples.empty() ? 0.0 : static_cast<double>(samples.back()) / 1000.0);
    json += buf;
    std::fprintf(stderr, "caf ask: p50 %.1f us over %zu samples\n", percentile(samples, 50), samples.size());
  }
  json += "\"asks_per_s\":{";
  const std::uint64_t levels[] = {1, 4, 16, 64};
  for (int i = 0; i < 4; ++i) {
    const AskRun r = ask_run(sys, *server, levels[i], o.asks, 0, o.max_seconds, nullptr);
    const double rate = static_cast<double>(r.completed) / r.seconds;
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s\"%llu\":%.1f", i == 0 ? "" : ",", static_cast<unsigned long long>(levels[i]),
                  rate);
    json += buf;
    std::fprintf(stderr, "caf asks, %llu in flight: %.0f/s\n", static_cast<unsigned long long>(levels[i]), rate);
  }
  json += "}}";
  std::printf("%s\n", json.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  if (o.threads != 0) cfg.set("scheduler.max-threads", o.threads);
  if (!o.policy.empty()) cfg.set("scheduler.policy", caf::atom_from_string(o.policy));
  caf::actor_system sys{cfg};
  return o.server ? run_server(sys, o) : run_client(sys, o);
}
