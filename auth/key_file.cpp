#include "auth/key_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

namespace weft::auth {
namespace {

constexpr std::size_t kMaxKeys = 16;
constexpr std::size_t kMaxFileBytes = 64 * 1024;

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

SecretFile read_secret_file(const std::string& path, std::size_t max_bytes, const std::string& make_hint) {
  const auto refuse = [&](const std::string& why) { return SecretFile{{}, path + ": " + why}; };
  // Opened once and checked through the descriptor, so what is checked is
  // what is read; a symbolic link is refused rather than followed to a file
  // whose owner and mode say nothing about this one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) return refuse("no such file; create it with `" + make_hint + " && chmod 600 " + path + "`");
    if (error == ELOOP) return refuse("is a symbolic link; name the file itself");
    return refuse(std::string("cannot be opened (") + std::strerror(error) + "); check its owner and mode (600)");
  }
  struct stat info {};
  std::string text;
  std::string problem;
  if (::fstat(fd, &info) != 0) {
    problem = std::string("cannot be examined (") + std::strerror(errno) + ")";
  } else if (!S_ISREG(info.st_mode)) {
    problem = "is not a regular file; name the file itself";
  } else if (info.st_uid != ::geteuid()) {
    problem = "belongs to another user (uid " + std::to_string(info.st_uid) +
              "); the secret must be weftd's alone: chown it to the user weftd runs as";
  } else if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    problem = "group or others may read it; the secret must be the owner's alone: chmod 600 " + path;
  } else if (info.st_size < 0 || static_cast<std::size_t>(info.st_size) > max_bytes) {
    problem = "is " + std::to_string(info.st_size) + " bytes, more than the " + std::to_string(max_bytes) +
              " such a file may hold";
  } else {
    char buffer[4096];
    for (;;) {
      const ssize_t got = ::read(fd, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        problem = std::string("cannot be read (") + std::strerror(errno) + ")";
        break;
      }
      if (got == 0) break;
      text.append(buffer, static_cast<std::size_t>(got));
      if (text.size() > max_bytes) {
        problem = "grew past " + std::to_string(max_bytes) + " bytes while being read";
        break;
      }
    }
  }
  ::close(fd);
  if (!problem.empty()) return refuse(problem);
  return SecretFile{std::move(text), {}};
}

KeyFile read_key_file(const std::string& path) {
  SecretFile file = read_secret_file(path, kMaxFileBytes, "openssl rand -hex 32 > " + path);
  if (!file.problem.empty()) return KeyFile{{}, {std::move(file.problem)}};
  return parse_key_file(file.text, path);
}

}  // namespace weft::auth
