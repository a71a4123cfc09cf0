// weftd's configuration: every Config knob under its own name (as
// Config::to_string prints it), plus where the node listens and serves its
// admin endpoint. Read from a TOML file, then overridden by flags; every
// problem is reported at once, each naming the field (and the file line)
// and the fix. Config::mutations has no key: test-only defects can never be
// set from a file or a flag.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/config.hpp"

namespace weft::daemon {

struct DaemonConfig {
  Config kernel;          // kernel.self is the advertised address
  NodeAddress bind;       // where to listen; defaults to the advertised address
  NodeAddress admin;      // weftctl's endpoint (HTTP); loopback by default
  std::string log_level = "info";
  // The shared-secret key file (auth/key_file.hpp); empty: links are not
  // authenticated. Keys never come from a flag or this config itself.
  std::string auth_key_file;
  // The admin endpoint's control credential (docs/deploy.md): a file whose
  // first line is the token; empty: control needs none, allowed only with
  // the admin endpoint on a loopback address. admin_control = false serves
  // health, members and metrics alone.
  std::string admin_token_file;
  std::string admin_token;  // read from admin_token_file by finish()
  bool admin_control = true;
  // TLS on every link when all three are given (PEM paths); none: plaintext.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_ca;
  // A peer's certificate must name the host it claims or we dialed
  // (io::NodeOptions::Tls::check_names); false where NAT hides it.
  bool tls_check_names = true;
  std::vector<std::string> given;  // keys a file or flag set, in order
  std::vector<std::string> given_at;  // where each of them was set ("file:line: " or "--set ")
  bool tls() const { return !tls_cert.empty() && !tls_key.empty() && !tls_ca.empty(); }
};

// One knob: its key and how a text value sets it.
struct Knob {
  std::string_view key;
  std::string_view help;  // the form of a value, e.g. "a duration such as 200ms"
};
std::span<const Knob> knobs();

// Defaults: listen and advertise on 127.0.0.1:7000, admin on 127.0.0.1 at
// the node's port + 1000 (unless set), incarnation from the wall clock.
DaemonConfig default_config();

// Reads TOML text into `config`; appends one line per problem.
void apply_toml(DaemonConfig& config, std::string_view text, std::string_view source,
                std::vector<std::string>& problems);
// Applies one `key=value` (a flag), as if it were a line of the file.
void apply_setting(DaemonConfig& config, std::string_view setting, std::vector<std::string>& problems);
// After every source: defaults that depend on others (bind from advertise,
// admin port), the keys from auth_key_file, the admin token (and the rule
// that control beyond loopback needs one), then Config::validate() (each
// problem naming where its knob was set), then
// the TLS files (all three or none; readable; the key is the certificate's;
// the CA holds a certificate).
// Appends the problems.
void finish(DaemonConfig& config, std::vector<std::string>& problems);

// The effective configuration, one `key = value` line per knob.
std::string to_text(const DaemonConfig& config);

// Whether `host` names this machine only: 127.0.0.0/8, ::1 or localhost.
bool is_loopback(std::string_view host);

// An admin token file's text -> the token (its first line that is not
// blank or a '#' comment); an error text when it is not a usable token.
bool parse_admin_token(const std::string& text, std::string& token, std::string& error);

// "host:port" -> NodeAddress; an error text when it is not one.
bool parse_address(std::string_view text, NodeAddress& out, std::string& error);

}  // namespace weft::daemon
