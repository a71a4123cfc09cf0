// Goal: the shared-secret key file is checked at load: a bad key names its
// line and the fix without echoing the text, a file others may read is
// refused, and HMAC-SHA256 is the RFC 4231 function (so the proofs weft
// computes are the ones any other implementation would).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "auth/hmac_sha256.hpp"
#include "auth/key_file.hpp"

namespace weft::auth {
namespace {

const std::string kKey1(64, 'a');
const std::string kKey2 = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";

bool has(const KeyFile& file, const std::string& text) {
  return std::any_of(file.problems.begin(), file.problems.end(),
                     [&](const std::string& p) { return p.find(text) != std::string::npos; });
}

TEST(KeyFile, ReadsKeysInOrderSkippingCommentsAndBlanks) {
  const KeyFile file = parse_key_file("# new key first\n" + kKey2 + "\n\n  " + kKey1 + "  # old\n", "k");
  ASSERT_TRUE(file.problems.empty()) << file.problems[0];
  ASSERT_EQ(file.keys.size(), 2U);
  EXPECT_EQ(file.keys[0][0], 0x00);
  EXPECT_EQ(file.keys[0][31], 0xff);
  EXPECT_EQ(file.keys[1][0], 0xaa);
}

TEST(KeyFile, BadKeysNameTheLineAndTheFixButNotTheText) {
  const std::string secretish = "deadbeef";
  const KeyFile file = parse_key_file(kKey1 + "\n" + secretish + "\n" + std::string(63, 'a') + "g\n" + kKey1 + "\n", "k");
  EXPECT_TRUE(has(file, "k:2: a key must be exactly 64 hex digits (32 bytes; got 8 characters)"));
  EXPECT_TRUE(has(file, "k:3: a key must be exactly 64 hex digits"));
  EXPECT_TRUE(has(file, "openssl rand -hex 32"));
  EXPECT_TRUE(has(file, "k:4: this key is listed twice"));
  EXPECT_FALSE(has(file, secretish)) << "a problem never echoes what may be a key";
}

TEST(KeyFile, EmptyAndOverfullFilesAreRefused) {
  EXPECT_TRUE(has(parse_key_file("# nothing\n", "k"), "k: holds no key"));
  std::string many;
  for (int i = 0; i < 17; ++i) {
    char line[80];
    std::snprintf(line, sizeof line, "%064x\n", i + 1);
    many += line;
  }
  EXPECT_TRUE(has(parse_key_file(many, "k"), "holds 17 keys, more than 16"));
}

TEST(KeyFile, AFileOthersMayReadIsRefused) {
  const std::string path = ::testing::TempDir() + "weft_key_file_test.keys";
  {
    std::ofstream out(path);
    out << kKey1 << "\n";
  }
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  EXPECT_TRUE(has(read_key_file(path), "group or others may read it; the secret must be the owner's alone: chmod 600"));
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  const KeyFile ok = read_key_file(path);
  EXPECT_TRUE(ok.problems.empty());
  EXPECT_EQ(ok.keys.size(), 1U);
  const std::string link = path + ".link";
  std::remove(link.c_str());
  ASSERT_EQ(::symlink(path.c_str(), link.c_str()), 0);
  EXPECT_TRUE(has(read_key_file(link), "is a symbolic link")) << "checked is what is read: links are refused";
  std::remove(link.c_str());
  std::remove(path.c_str());
  EXPECT_TRUE(has(read_key_file(path), "no such file"));
  EXPECT_TRUE(has(read_key_file(::testing::TempDir()), "is not a regular file"));
}

TEST(HmacSha256, MatchesRfc4231TestCase2) {
  const std::string key = "Jefe";
  const std::string data = "what do ya want for nothing?";
  const Proof mac = hmac_sha256({reinterpret_cast<const std::uint8_t*>(key.data()), key.size()},
                                {reinterpret_cast<const std::uint8_t*>(data.data()), data.size()});
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (std::uint8_t b : mac) {
    hex += kDigits[b >> 4];
    hex += kDigits[b & 15];
  }
  EXPECT_EQ(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

}  // namespace
}  // namespace weft::auth
