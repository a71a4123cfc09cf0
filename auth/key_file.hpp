// The shared-secret key file (docs/deploy.md, "Security"): one key per
// line, 64 hex digits (32 bytes, e.g. from `openssl rand -hex 32`); '#'
// starts a comment; blank lines are skipped. The first key signs, every key
// is accepted, so keys rotate without a flag day. Keys never come from a flag
// or the config file itself, where they would leak into `ps`, shells and
// config repositories.
#pragma once

#include <string>
#include <vector>

#include "kernel/authentication.hpp"

namespace weft::auth {

struct KeyFile {
  std::vector<AuthKey> keys;
  std::vector<std::string> problems;  // each names the file, line and the fix
};

// A secret's file, read whole, or why it was refused (naming the file and
// the fix): a regular file (not a symbolic link) owned by this process's
// user, not readable by group or others, at most `max_bytes`. `make_hint`
// is the command that creates one, for a missing file.
struct SecretFile {
  std::string text;
  std::string problem;
};
SecretFile read_secret_file(const std::string& path, std::size_t max_bytes, const std::string& make_hint);

// Reads and checks `path` as read_secret_file does (at most 64 KiB): one
// to 16 keys, each exactly 64 hex digits, no key twice.
KeyFile read_key_file(const std::string& path);

// Parses key file text; `name` prefixes each problem.
KeyFile parse_key_file(const std::string& text, const std::string& name);

}  // namespace weft::auth
