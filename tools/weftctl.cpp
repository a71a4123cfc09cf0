// weftctl: the operator's client for a running weftd, over its admin
// endpoint (HTTP, loopback by default: --admin host:port).
//
//   weftctl members            the node's view: status, reachability, phi
//   weftctl tell TARGET TEXT   TARGET is host:port/actor
//   weftctl ask TARGET TEXT    prints the reply and the round trip
//   weftctl leave              graceful leave
//   weftctl metrics            a short summary (--raw: the Prometheus text)
//   weftctl health
//
// Control (tell, ask, leave) on a node with an admin_token_file needs the
// same token: --token-file PATH, or WEFT_ADMIN_TOKEN_FILE in the
// environment. The token never comes from a flag, where `ps` would show it.
#include <CLI/CLI.hpp>
#include <httplib.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "auth/key_file.hpp"
#include "daemon/daemon_config.hpp"

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "weftctl: %s\n", what.c_str());
  return 1;
}

// The Prometheus lines worth a glance.
void summarise(const std::string& metrics) {
  std::istringstream in(metrics);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const bool wanted = line.starts_with("weft_members{") || line.starts_with("weft_unreachable_members") ||
                        line.starts_with("weft_phi{") || line.starts_with("weft_frames_") ||
                        line.starts_with("weft_tick_lag_seconds_count") || line.starts_with("weft_tick_lag_seconds_sum") ||
                        (line.starts_with("weft_links_closed_total") && !line.ends_with(" 0")) ||
                        (line.starts_with("weft_wire_errors_total") && !line.ends_with(" 0")) ||
                        (line.starts_with("weft_dead_letters_total") && !line.ends_with(" 0"));
    if (wanted) std::printf("%s\n", line.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weftctl: talk to a running weftd"};
  app.require_subcommand(1);
  std::string admin = "127.0.0.1:8000";
  app.add_option("--admin", admin, "weftd's admin endpoint (its --admin; default node port + 1000)")
      ->capture_default_str();
  std::string token_file;
  app.add_option("--token-file", token_file, "the admin token's file, for tell, ask and leave (or WEFT_ADMIN_TOKEN_FILE)");
  bool json = false;
  bool raw = false;
  std::string target;
  std::string text;
  std::int64_t timeout_ms = 1000;
  CLI::App* members = app.add_subcommand("members", "the node's view of the cluster");
  members->add_flag("--json", json, "machine-readable");
  CLI::App* tell = app.add_subcommand("tell", "one-way message");
  tell->add_option("target", target, "host:port/actor")->required();
  tell->add_option("text", text, "the body")->required();
  CLI::App* ask = app.add_subcommand("ask", "request and reply");
  ask->add_option("target", target, "host:port/actor")->required();
  ask->add_option("text", text, "the body")->required();
  ask->add_option("--timeout-ms", timeout_ms, "ask timeout")->capture_default_str();
  CLI::App* leave = app.add_subcommand("leave", "leave the cluster gracefully");
  CLI::App* metrics = app.add_subcommand("metrics", "a short metrics summary");
  metrics->add_flag("--raw", raw, "the whole Prometheus text");
  CLI::App* health = app.add_subcommand("health", "ok, or why not (exit 1)");
  CLI11_PARSE(app, argc, argv);

  weft::NodeAddress address;
  std::string error;
  if (!weft::daemon::parse_address(admin, address, error)) return fail("--admin " + error);
  if (token_file.empty()) {
    if (const char* from_env = std::getenv("WEFT_ADMIN_TOKEN_FILE")) token_file = from_env;
  }
  httplib::Client client(address.host, address.port);
  if (!token_file.empty() && !*members && !*metrics && !*health) {
    const weft::auth::SecretFile file = weft::auth::read_secret_file(token_file, 4096, "openssl rand -hex 32 > " + token_file);
    if (!file.problem.empty()) return fail("--token-file " + file.problem);
    std::string token;
    if (!weft::daemon::parse_admin_token(file.text, token, error)) return fail("--token-file " + token_file + ": " + error);
    client.set_bearer_token_auth(token.c_str());
  }
  client.set_connection_timeout(2);
  client.set_read_timeout(static_cast<time_t>(timeout_ms / 1000 + 5));
  const auto unreachable = [&] { return fail("no weftd answers at " + admin + " (is it running? --admin?)"); };

  if (*members || *metrics || *health) {
    const char* path = *members ? (json ? "/members.json" : "/members") : *metrics ? "/metrics" : "/health";
    const auto res = client.Get(path);
    if (!res) return unreachable();
    if (*metrics && !raw) {
      summarise(res->body);
    } else {
      std::printf("%s", res->body.c_str());
    }
    return res->status == 200 ? 0 : 1;
  }
  // A refused control request (no token, a wrong one, control off).
  const auto refused = [](const httplib::Result& res) { return res->status == 401 || res->status == 403; };
  if (*tell) {
    const auto res = client.Post(("/tell?to=" + target).c_str(), text, "application/octet-stream");
    if (!res) return unreachable();
    if (refused(res)) return fail("refused: " + res->body.substr(0, res->body.find('\n')));
    std::printf("%s", res->body.c_str());
    return res->status == 200 ? 0 : 1;
  }
  if (*ask) {
    const auto res = client.Post(("/ask?to=" + target + "&timeout_ms=" + std::to_string(timeout_ms)).c_str(), text,
                                 "application/octet-stream");
    if (!res) return unreachable();
    if (refused(res)) return fail("refused: " + res->body.substr(0, res->body.find('\n')));
    const std::string outcome = res->get_header_value("X-Weft-Outcome");
    const std::string rtt = res->get_header_value("X-Weft-Rtt-Us");
    if (outcome == "reply") {
      std::printf("%s\n(round trip %s us)\n", res->body.c_str(), rtt.c_str());
      return 0;
    }
    std::printf("no reply: %s%s", outcome.empty() ? "" : outcome.c_str(), outcome.empty() ? res->body.c_str() : "\n");
    return 1;
  }
  if (*leave) {
    const auto res = client.Post("/leave");
    if (!res) return unreachable();
    if (refused(res)) return fail("refused: " + res->body.substr(0, res->body.find('\n')));
    std::printf("%s", res->body.c_str());
    return res->status == 200 ? 0 : 1;
  }
  return 2;
}
