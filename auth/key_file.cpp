#include "auth/key_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace weft::auth {
namespace {

constexpr std::size_t kMaxKeys = 16;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

}  // namespace

KeyFile parse_key_file(const std::string& text, const std::string& name) {
  KeyFile result;
  std::istringstream lines(text);
  std::string line;
  for (std::size_t number = 1; std::getline(lines, line); ++number) {
    const std::string where = name + ":" + std::to_string(number) + ": ";
    const std::string key_text = trim(line.substr(0, line.find('#')));
    if (key_text.empty()) continue;
    if (key_text.size() != 2 * kAuthKeyBytes ||
        !std::all_of(key_text.begin(), key_text.end(), [](char c) { return hex_digit(c) >= 0; })) {
      // The text itself is never echoed: it may be a key with a typo.
      result.problems.push_back(where + "a key must be exactly 64 hex digits (32 bytes; got " +
                                std::to_string(key_text.size()) +
                                " characters); make one with `openssl rand -hex 32`");
      continue;
    }
    AuthKey key{};
    for (std::size_t i = 0; i < key.size(); ++i) {
      key[i] = static_cast<std::uint8_t>(hex_digit(key_text[2 * i]) * 16 + hex_digit(key_text[2 * i + 1]));
    }
    if (std::find(result.keys.begin(), result.keys.end(), key) != result.keys.end()) {
      result.problems.push_back(where + "this key is listed twice; keep one line of it");
      continue;
    }
    result.keys.push_back(key);
  }
  if (result.keys.empty() && result.problems.empty()) {
    result.problems.push_back(name + ": holds no key; put one per line (`openssl rand -hex 32 > " + name + "`)");
  }
  if (result.keys.size() > kMaxKeys) {
    result.problems.push_back(name + ": holds " + std::to_string(result.keys.size()) +
                              " keys, more than 16; drop retired keys (each is tried on every handshake)");
  }
  return result;
}

KeyFile read_key_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return {{}, {path + ": cannot be read (no such file?); create it with `openssl rand -hex 32 > " + path +
                 " && chmod 600 " + path + "`"}};
  }
  if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return {{}, {path + ": group or others may read it; the secret must be the owner's alone: chmod 600 " + path}};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return {{}, {path + ": cannot be opened for reading; check its owner and mode (600)"}};
  std::ostringstream text;
  text << in.rdbuf();
  return parse_key_file(text.str(), path);
}

}  // namespace weft::auth
