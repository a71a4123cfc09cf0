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
// tell and ask send TEXT's bytes as the body, under type tag 1 or --tag N
// (a uint32, the admin endpoint's tag=N). With --json, TEXT is JSON and the
// body is its MessagePack encoding, what a typed actor (typed/typed.hpp)
// decodes: `ask HOST:PORT/counter --json '[4]'` sends 0x91 0x04; an ask's
// reply is then decoded from MessagePack and printed as JSON. JSON that does
// not parse is exit 2, naming the position, with nothing sent; a reply that
// does not decode (or has no JSON form: a non-string map key, a string that
// is not UTF-8) is exit 1, with its bytes in hex. Without --json the reply is
// printed as it came.
//
// Control (tell, ask, leave) on a node with an admin_token_file needs the
// same token: --token-file PATH, or WEFT_ADMIN_TOKEN_FILE in the
// environment. The token never comes from a flag, where `ps` would show it.
#include <CLI/CLI.hpp>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "auth/key_file.hpp"
#include "daemon/daemon_config.hpp"

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "weftctl: %s\n", what.c_str());
  return 1;
}

// A body converted between JSON and MessagePack, or why not. nlohmann
// throws; its exceptions stop in the two functions below and become values.
struct Converted {
  std::string body;
  std::string problem;  // empty: body holds the conversion
};

Converted msgpack_of_json(const std::string& text) {
  try {
    const std::vector<std::uint8_t> bytes = nlohmann::json::to_msgpack(nlohmann::json::parse(text));
    return {std::string(bytes.begin(), bytes.end()), ""};
  } catch (const nlohmann::json::exception& e) {
    return {"", e.what()};
  }
}

// A reply as one line of JSON, or why not. Strict: trailing bytes after the
// first value are an error, like the kernel's own decoders.
Converted json_of_msgpack(const std::string& body) {
  try {
    return {nlohmann::json::from_msgpack(body, /*strict=*/true).dump(), ""};
  } catch (const nlohmann::json::exception& e) {
    return {"", e.what()};
  }
}

// At most the first 64 bytes, as "92 04 01"; the length says the rest.
std::string hex_of(const std::string& bytes) {
  constexpr std::size_t kShownBytes = 64;
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < kShownBytes; ++i) {
    char pair[4];
    std::snprintf(pair, sizeof pair, "%02x", static_cast<unsigned char>(bytes[i]));
    if (!out.empty()) out += ' ';
    out += pair;
  }
  if (bytes.size() > kShownBytes) out += " ...";
  return out;
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
  bool text_is_json = false;
  std::uint32_t tag = 1;
  std::int64_t timeout_ms = 1000;
  CLI::App* members = app.add_subcommand("members", "the node's view of the cluster");
  members->add_flag("--json", json, "machine-readable");
  CLI::App* tell = app.add_subcommand("tell", "one-way message");
  tell->add_option("target", target, "host:port/actor")->required();
  tell->add_option("text", text, "the body")->required();
  tell->add_flag("--json", text_is_json, "TEXT is JSON, sent as MessagePack");
  tell->add_option("--tag", tag, "the message's type tag (uint32)")->capture_default_str();
  CLI::App* ask = app.add_subcommand("ask", "request and reply");
  ask->add_option("target", target, "host:port/actor")->required();
  ask->add_option("text", text, "the body")->required();
  ask->add_flag("--json", text_is_json, "TEXT is JSON, sent as MessagePack; the reply printed as JSON");
  ask->add_option("--tag", tag, "the message's type tag (uint32)")->capture_default_str();
  ask->add_option("--timeout-ms", timeout_ms, "ask timeout")->capture_default_str();
  CLI::App* leave = app.add_subcommand("leave", "leave the cluster gracefully");
  CLI::App* metrics = app.add_subcommand("metrics", "a short metrics summary");
  metrics->add_flag("--raw", raw, "the whole Prometheus text");
  CLI::App* health = app.add_subcommand("health", "ok, or why not (exit 1)");
  CLI11_PARSE(app, argc, argv);
  if (text_is_json) {
    const Converted encoded = msgpack_of_json(text);
    if (!encoded.problem.empty()) {
      std::fprintf(stderr, "weftctl: --json: TEXT is not JSON, nothing sent: %s\n", encoded.problem.c_str());
      return 2;
    }
    text = encoded.body;
  }

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
    const auto res =
        client.Post(("/tell?to=" + target + "&tag=" + std::to_string(tag)).c_str(), text, "application/octet-stream");
    if (!res) return unreachable();
    if (refused(res)) return fail("refused: " + res->body.substr(0, res->body.find('\n')));
    std::printf("%s", res->body.c_str());
    return res->status == 200 ? 0 : 1;
  }
  if (*ask) {
    const auto res = client.Post(
        ("/ask?to=" + target + "&timeout_ms=" + std::to_string(timeout_ms) + "&tag=" + std::to_string(tag)).c_str(),
        text, "application/octet-stream");
    if (!res) return unreachable();
    if (refused(res)) return fail("refused: " + res->body.substr(0, res->body.find('\n')));
    const std::string outcome = res->get_header_value("X-Weft-Outcome");
    const std::string rtt = res->get_header_value("X-Weft-Rtt-Us");
    if (outcome == "reply" && text_is_json) {
      const Converted reply = json_of_msgpack(res->body);
      if (!reply.problem.empty()) {
        return fail("the reply is not MessagePack with a JSON form (" + reply.problem + "); its " +
                    std::to_string(res->body.size()) + " bytes: " + hex_of(res->body));
      }
      std::printf("%s\n(round trip %s us)\n", reply.body.c_str(), rtt.c_str());
      return 0;
    }
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
