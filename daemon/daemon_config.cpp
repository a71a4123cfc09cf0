#include "daemon/daemon_config.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <limits>
#include <span>

#include "auth/hmac_sha256.hpp"
#include "auth/key_file.hpp"

namespace weft::daemon {
namespace {

bool parse_duration(std::string_view text, Duration& out) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || value < 0) return false;
  const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  if (unit == "ns") out = Duration::nanoseconds(value);
  else if (unit == "us") out = Duration::microseconds(value);
  else if (unit == "ms") out = Duration::milliseconds(value);
  else if (unit == "s") out = Duration::seconds(value);
  else if (unit == "min") out = Duration::seconds(value * 60);
  else if (unit == "h") out = Duration::seconds(value * 3600);
  else return false;
  return true;
}

template <class T>
bool parse_unsigned(std::string_view text, T& out) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value > std::numeric_limits<T>::max()) return false;
  out = static_cast<T>(value);
  return true;
}

bool parse_double(std::string_view text, double& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc{} && end == text.data() + text.size();
}

using Setter = std::function<bool(DaemonConfig&, std::string_view)>;

Setter duration(Duration Config::*field) {
  return [field](DaemonConfig& c, std::string_view v) { return parse_duration(v, c.kernel.*field); };
}
template <class T>
Setter whole(T Config::*field) {
  return [field](DaemonConfig& c, std::string_view v) { return parse_unsigned(v, c.kernel.*field); };
}

constexpr std::string_view kDuration = "a duration such as 200ms, 1s or 1500us";
constexpr std::string_view kCount = "a whole number";
constexpr std::string_view kAddress = "host:port, such as 10.0.0.5:7000";
constexpr std::string_view kPemPath = "a path to a PEM file";

Setter path(std::string DaemonConfig::*field) {
  return [field](DaemonConfig& c, std::string_view v) {
    c.*field = std::string(v);
    return !v.empty();
  };
}

struct Entry {
  Knob knob;
  Setter set;
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = {
      {{"cluster_name", "a name of 1..64 bytes"},
       [](DaemonConfig& c, std::string_view v) { c.kernel.cluster_name = std::string(v); return true; }},
      {{"advertise", kAddress},  // Config::self: where peers reach this node
       [](DaemonConfig& c, std::string_view v) { std::string e; return parse_address(v, c.kernel.self, e); }},
      {{"bind", kAddress},
       [](DaemonConfig& c, std::string_view v) { std::string e; return parse_address(v, c.bind, e); }},
      {{"admin", kAddress},
       [](DaemonConfig& c, std::string_view v) { std::string e; return parse_address(v, c.admin, e); }},
      {{"log_level", "trace, debug, info, warn or error"},
       [](DaemonConfig& c, std::string_view v) {
         c.log_level = std::string(v);
         return v == "trace" || v == "debug" || v == "info" || v == "warn" || v == "error";
       }},
      {{"tls_cert", kPemPath}, path(&DaemonConfig::tls_cert)},  // this node's certificate (chain)
      {{"tls_key", kPemPath}, path(&DaemonConfig::tls_key)},    // its private key, unencrypted
      {{"tls_ca", kPemPath}, path(&DaemonConfig::tls_ca)},      // the CA that signs every member's certificate
      {{"tls_check_names", "true or false (false: the CA alone, where NAT hides the advertised address)"},
       [](DaemonConfig& c, std::string_view v) {
         c.tls_check_names = v == "true";
         return v == "true" || v == "false";
       }},
      {{"incarnation", "a whole number above 0 (default: the start time in ms)"},
       [](DaemonConfig& c, std::string_view v) { return parse_unsigned(v, c.kernel.incarnation.value); }},
      {{"seeds", "host:port[,host:port...] (in a file: an array of strings)"},
       [](DaemonConfig& c, std::string_view v) {
         c.kernel.seeds.clear();
         while (!v.empty()) {
           const std::size_t comma = v.find(',');
           NodeAddress seed;
           std::string e;
           if (!parse_address(v.substr(0, comma), seed, e)) return false;
           c.kernel.seeds.push_back(seed);
           v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
         }
         return true;
       }},
      {{"gossip_interval", kDuration}, duration(&Config::gossip_interval)},
      {{"gossip_fanout", kCount}, whole(&Config::gossip_fanout)},
      {{"link_idle_timeout", kDuration}, duration(&Config::link_idle_timeout)},
      {{"join_retry_interval", kDuration}, duration(&Config::join_retry_interval)},
      {{"heartbeat_interval", kDuration}, duration(&Config::heartbeat_interval)},
      {{"monitored_by", kCount}, whole(&Config::monitored_by)},
      {{"phi_threshold", "a number such as 8 or 10.5"},
       [](DaemonConfig& c, std::string_view v) { return parse_double(v, c.kernel.phi_threshold); }},
      {{"phi_min_std_deviation", kDuration}, duration(&Config::phi_min_std_deviation)},
      {{"phi_acceptable_pause", kDuration}, duration(&Config::phi_acceptable_pause)},
      {{"phi_max_sample_size", kCount}, whole(&Config::phi_max_sample_size)},
      {{"liveness_window", kDuration}, duration(&Config::liveness_window)},
      {{"indirect_probes", kCount}, whole(&Config::indirect_probes)},
      {{"probe_timeout", kDuration}, duration(&Config::probe_timeout)},
      {{"self_pause_threshold", kDuration}, duration(&Config::self_pause_threshold)},
      {{"down_after_unreachable", kDuration}, duration(&Config::down_after_unreachable)},
      {{"down_after_confirmed", kDuration}, duration(&Config::down_after_confirmed)},
      {{"silence_slack", kDuration}, duration(&Config::silence_slack)},
      {{"remove_after_down", kDuration}, duration(&Config::remove_after_down)},
      {{"tombstone_ttl", kDuration}, duration(&Config::tombstone_ttl)},
      {{"forgotten_lives", kCount}, whole(&Config::forgotten_lives)},
      {{"max_tombstones", kCount}, whole(&Config::max_tombstones)},
      {{"on_downed", "rejoin or shut_down"},
       [](DaemonConfig& c, std::string_view v) {
         if (v != "rejoin" && v != "shut_down") return false;
         c.kernel.on_downed = v == "rejoin" ? OnDowned::rejoin : OnDowned::shut_down;
         return true;
       }},
      {{"max_incarnation_jump", kCount}, whole(&Config::max_incarnation_jump)},
      {{"incarnation_clock_skew", kDuration}, duration(&Config::incarnation_clock_skew)},
      {{"max_new_members_per_peer", kCount}, whole(&Config::max_new_members_per_peer)},
      {{"max_frame_bytes", kCount}, whole(&Config::max_frame_bytes)},
      {{"max_outbound_user_bytes", kCount}, whole(&Config::max_outbound_user_bytes)},
      {{"max_outbound_control_bytes", kCount}, whole(&Config::max_outbound_control_bytes)},
      {{"max_write_bytes", kCount}, whole(&Config::max_write_bytes)},
      {{"reconnect_backoff_min", kDuration}, duration(&Config::reconnect_backoff_min)},
      {{"reconnect_backoff_max", kDuration}, duration(&Config::reconnect_backoff_max)},
      {{"handshake_timeout", kDuration}, duration(&Config::handshake_timeout)},
      {{"max_pending_handshakes", kCount}, whole(&Config::max_pending_handshakes)},
      {{"auth_key_file", "the path of a file of 64-hex-digit keys, one per line (chmod 600)"},
       [](DaemonConfig& c, std::string_view v) {
         c.auth_key_file = std::string(v);
         return !v.empty();
       }},
      {{"admin_token_file", "the path of a file holding the admin token (chmod 600)"},
       path(&DaemonConfig::admin_token_file)},
      {{"admin_control", "true or false (false: health, members and metrics only)"},
       [](DaemonConfig& c, std::string_view v) {
         c.admin_control = v == "true";
         return v == "true" || v == "false";
       }},
      {{"mailbox_capacity", kCount}, whole(&Config::mailbox_capacity)},
      {{"mailbox_overflow", "reject_new or drop_oldest"},
       [](DaemonConfig& c, std::string_view v) {
         if (v != "reject_new" && v != "drop_oldest") return false;
         c.kernel.mailbox_overflow = v == "reject_new" ? MailboxOverflow::reject_new : MailboxOverflow::drop_oldest;
         return true;
       }},
      {{"dispatch_batch", kCount}, whole(&Config::dispatch_batch)},
      {{"dispatch_budget", kCount}, whole(&Config::dispatch_budget)},
      {{"max_pending_asks", kCount}, whole(&Config::max_pending_asks)},
  };
  return table;
}

const Entry* find(std::string_view key) {
  for (const Entry& e : entries()) {
    if (e.knob.key == key) return &e;
  }
  return nullptr;
}

std::string known_keys() {
  std::string text;
  for (const Entry& e : entries()) text += (text.empty() ? "" : ", ") + std::string(e.knob.key);
  return text;
}

void set(DaemonConfig& config, std::string_view key, std::string_view value, const std::string& where,
         std::vector<std::string>& problems) {
  if (key == "mutations" || key.starts_with("mutations.")) {
    problems.push_back(where + "mutations: test-only defects cannot be set from a file or a flag; remove it");
    return;
  }
  if (key.ends_with(".")) {
    problems.push_back(where + "[" + std::string(key.substr(0, key.size() - 1)) +
                       "]: weftd reads no sections; write every key at the top level");
    return;
  }
  const Entry* entry = find(key);
  if (entry == nullptr) {
    problems.push_back(where + "unknown key \"" + std::string(key) + "\"; the keys are " + known_keys());
    return;
  }
  config.given.emplace_back(key);
  config.given_at.push_back(where);
  if (!entry->set(config, value)) {
    problems.push_back(where + std::string(key) + " = \"" + std::string(value) + "\" is not " +
                       std::string(entry->knob.help));
  }
}

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using Bio = std::unique_ptr<BIO, BioFree>;
using Cert = std::unique_ptr<X509, X509Free>;
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;

// An encrypted key would make OpenSSL ask for a passphrase on the terminal;
// a daemon has none to give, so it is refused instead.
int no_passphrase(char*, int, int, void*) { return 0; }

// The file's bytes as a memory BIO; null, with `why` set, when it cannot be read.
Bio read_pem(const std::string& path, std::string& text, std::string& why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = std::string("cannot read it (") + std::strerror(errno) + ")";
    return nullptr;
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  text = bytes.str();
  return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

// Where `key` was set ("file:line: " or "--set "; the last setting, as
// for the value); empty for a default.
std::string where_set(const DaemonConfig& config, std::string_view key) {
  std::string at;
  for (std::size_t i = 0; i < config.given.size() && i < config.given_at.size(); ++i) {
    if (config.given[i] == key) at = config.given_at[i];
  }
  return at;
}

// The TLS files: all three or none, each readable and holding what it
// should, so a mistake stops weftd at start rather than at the first link.
void check_tls(const DaemonConfig& config, std::vector<std::string>& problems) {
  const auto where = [&](std::string_view key) { return where_set(config, key); };
  const std::pair<std::string_view, const std::string*> fields[] = {
      {"tls_cert", &config.tls_cert}, {"tls_key", &config.tls_key}, {"tls_ca", &config.tls_ca}};
  std::string present, missing, first_where;
  for (const auto& [key, value] : fields) {
    std::string& list = value->empty() ? missing : present;
    list += (list.empty() ? "" : ", ") + std::string(key);
    if (!value->empty() && first_where.empty()) first_where = where(key);
  }
  if (present.empty()) return;
  if (!missing.empty()) {
    problems.push_back(first_where + "TLS: " + present + " given but " + missing +
                       " missing; TLS needs tls_cert, tls_key and tls_ca together (or none of them for plaintext links)");
    return;
  }
  const auto bad = [&](std::string_view key, const std::string& value, const std::string& why) {
    problems.push_back(where(key) + std::string(key) + " = \"" + value + "\": " + why);
  };
  std::string cert_text, key_text, ca_text, why;
  Cert cert;
  Key key;
  if (Bio bio = read_pem(config.tls_cert, cert_text, why); !bio) {
    bad("tls_cert", config.tls_cert, why);
  } else if (cert.reset(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)); !cert) {
    bad("tls_cert", config.tls_cert, "holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
  } else if (X509_cmp_current_time(X509_get0_notAfter(cert.get())) < 0) {
    bad("tls_cert", config.tls_cert, "the certificate has expired; issue a new one from the CA");
  }
  if (Bio bio = read_pem(config.tls_key, key_text, why); !bio) {
    bad("tls_key", config.tls_key, why);
  } else if (key.reset(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr)); !key) {
    bad("tls_key", config.tls_key,
        "holds no unencrypted PEM private key (an encrypted one: openssl pkey -in KEY -out KEY.plain)");
  }
  if (cert && key && X509_check_private_key(cert.get(), key.get()) != 1) {
    bad("tls_key", config.tls_key,
        "is not the key of the certificate in tls_cert = \"" + config.tls_cert +
            "\"; give the key the certificate was issued for");
  }
  if (Bio bio = read_pem(config.tls_ca, ca_text, why); !bio) {
    bad("tls_ca", config.tls_ca, why);
  } else {
    int count = 0;
    while (Cert ca{PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)}) ++count;
    if (count == 0) bad("tls_ca", config.tls_ca, "holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
  }
  // The loop above ends on a read error by design; leave no error behind
  // for the next OpenSSL user on this thread to misread.
  ERR_clear_error();
}

// The admin token, and the rule that control beyond loopback needs one.
void check_admin(DaemonConfig& config, std::vector<std::string>& problems) {
  config.admin_token.clear();
  if (!config.admin_token_file.empty()) {
    const std::string& path = config.admin_token_file;
    const auth::SecretFile file = auth::read_secret_file(path, 4096, "openssl rand -hex 32 > " + path);
    std::string why = file.problem;
    if (why.empty() && !parse_admin_token(file.text, config.admin_token, why)) why = path + ": " + why;
    if (!why.empty()) problems.push_back(where_set(config, "admin_token_file") + "admin_token_file: " + why);
  }
  if (config.admin_control && config.admin_token_file.empty() && !is_loopback(config.admin.host)) {
    std::string at = where_set(config, "admin");
    problems.push_back(at + "admin = " + config.admin.to_string() +
                       ": control (tell, ask, leave) beyond loopback needs a credential; set admin_token_file "
                       "(`openssl rand -hex 32 > admin.token && chmod 600 admin.token`), or admin_control = false "
                       "to serve health, members and metrics alone, or bind admin to 127.0.0.1");
  }
}

}  // namespace

bool is_loopback(std::string_view host) {
  if (host == "localhost") return true;
  const std::string text(host);
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (::inet_pton(AF_INET6, text.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

bool parse_admin_token(const std::string& text, std::string& token, std::string& error) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t\r");
    token = line.substr(first, last - first + 1);
    const bool printable = std::all_of(token.begin(), token.end(), [](char c) { return c > ' ' && c < 127; });
    // The token itself is never echoed: it may be a secret with a typo.
    if (token.size() < 32 || token.size() > 256 || !printable) {
      token.clear();
      error = "the token must be 32..256 printable characters without spaces (got " + std::to_string(last - first + 1) +
              " characters); make one with `openssl rand -hex 32`";
      return false;
    }
    return true;
  }
  error = "holds no token; put one on its first line (`openssl rand -hex 32`)";
  return false;
}

std::span<const Knob> knobs() {
  static const std::vector<Knob> list = [] {
    std::vector<Knob> k;
    for (const Entry& e : entries()) k.push_back(e.knob);
    return k;
  }();
  return list;
}

bool parse_address(std::string_view text, NodeAddress& out, std::string& error) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    error = "\"" + std::string(text) + "\" is not host:port";
    return false;
  }
  std::uint16_t port = 0;
  if (!parse_unsigned(text.substr(colon + 1), port) || port == 0) {
    error = "\"" + std::string(text) + "\" has no port in 1..65535";
    return false;
  }
  std::string_view host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  out = NodeAddress{std::string(host), port};
  return true;
}

DaemonConfig default_config() {
  DaemonConfig c;
  c.kernel.self = NodeAddress{"127.0.0.1", 7000};
  // A restart must take a larger incarnation than any life before it: the
  // wall clock in milliseconds does, unless the clock steps back.
  const auto wall_ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  c.kernel.incarnation = Incarnation{wall_ms};
  // The same reading bounds the lives peers may claim: the clock plus
  // incarnation_clock_skew (kernel/membership/life_ceiling.hpp).
  c.kernel.start_wall_ms = wall_ms;
  return c;
}

void apply_toml(DaemonConfig& config, std::string_view text, std::string_view source,
                std::vector<std::string>& problems) {
  // Debian's toml++ reports a syntax error by exception; it is caught here,
  // at the one place a file is read, and becomes a problem line.
  toml::table parsed;
  try {
    parsed = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    problems.push_back(std::string(source) + ":" + std::to_string(e.source().begin.line) + ": " +
                       std::string(e.description()));
    return;
  }
  for (auto&& [key, node] : parsed) {
    const std::string where = std::string(source) + ":" + std::to_string(node.source().begin.line) + ": ";
    std::string value;
    if (node.is_table()) {
      // [mutations] lands here too: set() refuses it by name.
      set(config, std::string(key.str()) + ".", "", where, problems);
      continue;
    }
    if (const auto* s = node.as_string()) {
      value = s->get();
    } else if (const auto* i = node.as_integer()) {
      value = std::to_string(i->get());
    } else if (const auto* f = node.as_floating_point()) {
      char buffer[64];
      const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, f->get());
      value = error == std::errc{} ? std::string(buffer, end) : "?";
    } else if (const auto* b = node.as_boolean()) {
      value = b->get() ? "true" : "false";
    } else if (const auto* a = node.as_array()) {
      for (auto&& item : *a) {
        if (const auto* element = item.as_string()) value += (value.empty() ? "" : ",") + element->get();
      }
    } else {
      problems.push_back(where + std::string(key.str()) + " must be a string, a number or an array of strings");
      continue;
    }
    set(config, key.str(), value, where, problems);
  }
}

void apply_setting(DaemonConfig& config, std::string_view setting, std::vector<std::string>& problems) {
  const std::size_t eq = setting.find('=');
  if (eq == std::string_view::npos) {
    problems.push_back("--set " + std::string(setting) + ": expected key=value, e.g. --set phi_threshold=10");
    return;
  }
  set(config, setting.substr(0, eq), setting.substr(eq + 1), "--set ", problems);
}

void finish(DaemonConfig& config, std::vector<std::string>& problems) {
  const auto given = [&](std::string_view key) {
    return std::find(config.given.begin(), config.given.end(), key) != config.given.end();
  };
  if (!given("bind")) config.bind = config.kernel.self;
  if (!given("admin")) {
    config.admin = NodeAddress{"127.0.0.1", static_cast<std::uint16_t>(config.kernel.self.port + 1000)};
  }
  config.kernel.auth = Authentication{};
  if (!config.auth_key_file.empty()) {
    auth::KeyFile file = auth::read_key_file(config.auth_key_file);
    for (std::string& p : file.problems) problems.push_back("auth_key_file: " + std::move(p));
    if (file.problems.empty()) config.kernel.auth = Authentication{std::move(file.keys), &auth::hmac_sha256};
  }
  check_admin(config, problems);
  // Config::validate() names the knob first ("gossip_fanout: must be
  // 1..16"); the line that set it goes in front.
  for (std::string& p : config.kernel.validate()) {
    const std::string knob = p.substr(0, p.find(':'));
    problems.push_back(where_set(config, knob) + std::move(p));
  }
  check_tls(config, problems);
}

std::string to_text(const DaemonConfig& config) {
  std::string text = "bind = " + config.bind.to_string() + "\nadmin = " + config.admin.to_string() +
                     "\nlog_level = " + config.log_level + "\nadvertise = " + config.kernel.self.to_string() +
                     "\nauth_key_file = " + (config.auth_key_file.empty() ? "(none: links are not authenticated)"
                                                                         : config.auth_key_file) +
                     "\nadmin_control = " + (config.admin_control ? "true" : "false") + "\nadmin_token_file = " +
                     (config.admin_token_file.empty() ? "(none: control open to whoever reaches the admin address)"
                                                      : config.admin_token_file) + "\n";
  if (config.tls()) {
    text += "tls_cert = " + config.tls_cert + "\ntls_key = " + config.tls_key + "\ntls_ca = " + config.tls_ca +
            "\ntls_check_names = " + (config.tls_check_names ? "true" : "false") +
            "\n# tls: required on every link (TLS 1.3, certificates checked both ways against tls_ca" +
            (config.tls_check_names ? ", and the names in them against the host claimed or dialed" : "") +
            "; never negotiated)\n";
  } else {
    text += "# tls: off, plaintext links (tls_cert, tls_key and tls_ca together require TLS)\n";
  }
  text += config.kernel.to_string();
  // The bounds solve the detector's formula, which asserts on knobs a start
  // refuses (a threshold below 1, a one-sample window): computed only for a
  // valid config, so --check-config reports such a value as a problem
  // instead of aborting on it.
  if (!config.kernel.validate().empty()) {
    text += "# bounds: not computed until the problems below are fixed\n";
    return text;
  }
  const std::size_t nodes = std::max<std::size_t>(config.kernel.seeds.size(), 3);
  const Bounds b = compute_bounds(config.kernel, nodes);
  const auto seconds = [](Duration d) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3fs", static_cast<double>(d.ns()) / 1e9);
    return std::string(buffer);
  };
  // compute_bounds for a cluster the size of the seed list (at least 3).
  text += "# bounds for " + std::to_string(nodes) + " nodes: T_detect " + seconds(b.detect) + ", T_down " +
          seconds(b.down) + ", T_down_closed " + seconds(b.down_closed) + ", T_converge " + seconds(b.converge) +
          ", T_heal " + seconds(b.heal) + ", T_refute " + seconds(b.refute) + ", T_vouch " + seconds(b.vouch) + "\n";
  return text;
}

}  // namespace weft::daemon
