// Goal: weftd's configuration takes every knob by name from a file or a
// flag, and refuses a bad one naming the field, the line and the fix.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "daemon/daemon_config.hpp"

namespace weft::daemon {
namespace {

bool has(const std::vector<std::string>& problems, const std::string& text) {
  return std::any_of(problems.begin(), problems.end(), [&](const std::string& p) { return p.find(text) != std::string::npos; });
}

TEST(DaemonConfig, FileSetsKnobsByTheirConfigNames) {
  DaemonConfig c = default_config();
  std::vector<std::string> problems;
  apply_toml(c,
             "cluster_name = \"prod\"\nadvertise = \"node1.example:7100\"\nbind = \"0.0.0.0:7000\"\n"
             "seeds = [\"a:7000\", \"b:7001\"]\nphi_threshold = 10.5\nheartbeat_interval = \"500ms\"\n"
             "mailbox_overflow = \"drop_oldest\"\nmax_frame_bytes = 65536\n",
             "node.toml", problems);
  finish(c, problems);
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_EQ(c.kernel.cluster_name, "prod");
  EXPECT_EQ(c.kernel.self, (NodeAddress{"node1.example", 7100}));
  EXPECT_EQ(c.bind, (NodeAddress{"0.0.0.0", 7000}));
  ASSERT_EQ(c.kernel.seeds.size(), 2U);
  EXPECT_EQ(c.kernel.seeds[1], (NodeAddress{"b", 7001}));
  EXPECT_EQ(c.kernel.phi_threshold, 10.5);
  EXPECT_EQ(c.kernel.heartbeat_interval, Duration::milliseconds(500));
  EXPECT_EQ(c.kernel.mailbox_overflow, MailboxOverflow::drop_oldest);
  EXPECT_EQ(c.kernel.max_frame_bytes, 65536U);
  EXPECT_EQ(c.admin, (NodeAddress{"127.0.0.1", 8100}));  // loopback, node port + 1000
}

TEST(DaemonConfig, EveryKnobHasAKeyAndEveryKeyReadsBack) {
  // Each Config::to_string line's key is a knob, but self (which is
  // "advertise") and auth_keys (read from the file auth_key_file names).
  const std::string text = default_config().kernel.to_string();
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string key = text.substr(start, text.find(" = ", start) - start);
    start = end + 1;
    if (key == "self" || key == "auth_keys") continue;
    const auto k = knobs();
    EXPECT_TRUE(std::any_of(k.begin(), k.end(), [&](const Knob& knob) { return knob.key == key; })) << key;
  }
}

TEST(DaemonConfig, FlagsOverrideTheFile) {
  DaemonConfig c = default_config();
  std::vector<std::string> problems;
  apply_toml(c, "gossip_interval = \"300ms\"\n", "f", problems);
  apply_setting(c, "gossip_interval=150ms", problems);
  finish(c, problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(c.kernel.gossip_interval, Duration::milliseconds(150));
}

TEST(DaemonConfig, BadValuesNameTheFieldTheLineAndTheFix) {
  DaemonConfig c = default_config();
  std::vector<std::string> problems;
  apply_toml(c, "phi_threshold = 0.5\nbogus = 1\ngossip_interval = \"fast\"\nadvertise = \"nohost\"\n", "n.toml",
             problems);
  apply_setting(c, "no-equals-sign", problems);
  finish(c, problems);
  EXPECT_TRUE(has(problems, "n.toml:2: unknown key \"bogus\"; the keys are cluster_name")) << problems.size();
  EXPECT_TRUE(has(problems, "n.toml:3: gossip_interval = \"fast\" is not a duration such as 200ms"));
  EXPECT_TRUE(has(problems, "n.toml:4: advertise = \"nohost\" is not host:port"));
  EXPECT_TRUE(has(problems, "n.toml:1: phi_threshold: must be 1..100"));
  EXPECT_TRUE(has(problems, "expected key=value"));
}

TEST(DaemonConfig, RangeErrorsNameTheLineThatSetTheKnob) {
  DaemonConfig c = default_config();
  std::vector<std::string> problems;
  apply_toml(c, "cluster_name = \"ok\"\ngossip_fanout = 99\nmax_frame_bytes = 10\n", "n.toml", problems);
  apply_setting(c, "monitored_by=0", problems);
  finish(c, problems);
  EXPECT_TRUE(has(problems, "n.toml:2: gossip_fanout: must be 1..16")) << problems.front();
  EXPECT_TRUE(has(problems, "n.toml:3: max_frame_bytes: ")) << problems.front();
  EXPECT_TRUE(has(problems, "--set monitored_by: must be 1..32"));
}

TEST(DaemonConfig, ControlBeyondLoopbackNeedsACredential) {
  const auto problems_of = [](std::vector<std::string> settings) {
    DaemonConfig c = default_config();
    std::vector<std::string> problems;
    for (const std::string& s : settings) apply_setting(c, s, problems);
    finish(c, problems);
    return problems;
  };
  EXPECT_TRUE(problems_of({}).empty()) << "the default admin is loopback";
  EXPECT_TRUE(problems_of({"admin=127.0.5.9:8000"}).empty());
  EXPECT_TRUE(problems_of({"admin=[::1]:8000"}).empty());
  EXPECT_TRUE(has(problems_of({"admin=0.0.0.0:8000"}),
                  "--set admin = 0.0.0.0:8000: control (tell, ask, leave) beyond loopback needs a credential"));
  EXPECT_TRUE(has(problems_of({"admin=node1.example:8000"}), "beyond loopback needs a credential"));
  EXPECT_TRUE(problems_of({"admin=0.0.0.0:8000", "admin_control=false"}).empty());
  EXPECT_TRUE(has(problems_of({"admin_control=maybe"}), "is not true or false"));
  EXPECT_TRUE(has(problems_of({"admin_token_file=/nonexistent/admin.token"}), "admin_token_file: /nonexistent"));
}

TEST(DaemonConfig, AnAdminTokenIsItsFilesFirstLineAndNeverEchoed) {
  std::string token, error;
  EXPECT_TRUE(parse_admin_token("# made by openssl\n\n  " + std::string(64, 'a') + "  \nignored\n", token, error));
  EXPECT_EQ(token, std::string(64, 'a'));
  EXPECT_FALSE(parse_admin_token("short-secret\n", token, error));
  EXPECT_NE(error.find("32..256 printable characters"), std::string::npos) << error;
  EXPECT_EQ(error.find("short-secret"), std::string::npos) << "the token text is never echoed";
  EXPECT_TRUE(token.empty());
  EXPECT_FALSE(parse_admin_token(std::string(40, 'a') + " b\n", token, error)) << "no spaces inside";
  EXPECT_FALSE(parse_admin_token("# only a comment\n", token, error));
  EXPECT_NE(error.find("holds no token"), std::string::npos);
  EXPECT_TRUE(is_loopback("127.0.0.1") && is_loopback("127.255.0.3") && is_loopback("::1") && is_loopback("localhost"));
  EXPECT_FALSE(is_loopback("0.0.0.0") || is_loopback("10.0.0.1") || is_loopback("::") || is_loopback("128.0.0.1"));
}

TEST(DaemonConfig, CheckingAConfigAStartRefusesReportsItInsteadOfAborting) {
  // Values the detector's own solve asserts on: --check-config prints the
  // config (to_text) and lists the problem, where it used to abort.
  for (const std::string setting : {"phi_threshold=0", "phi_threshold=-3", "phi_threshold=nan",
                                    "phi_max_sample_size=1", "phi_min_std_deviation=0s"}) {
    DaemonConfig c = default_config();
    std::vector<std::string> problems;
    apply_setting(c, setting, problems);
    finish(c, problems);
    const std::string key = setting.substr(0, setting.find('='));
    EXPECT_TRUE(has(problems, key + ": ")) << setting;
    const std::string text = to_text(c);
    EXPECT_NE(text.find("# bounds: not computed until the problems below are fixed"), std::string::npos) << setting;
  }
  DaemonConfig valid = default_config();
  std::vector<std::string> none;
  finish(valid, none);
  ASSERT_TRUE(none.empty());
  EXPECT_NE(to_text(valid).find(" nodes: T_detect "), std::string::npos);
}

TEST(DaemonConfig, TestOnlyMutationsCannotBeSet) {
  DaemonConfig c = default_config();
  std::vector<std::string> problems;
  apply_toml(c, "[mutations]\nthrottle_off = true\n", "n.toml", problems);
  apply_setting(c, "mutations.throttle_off=true", problems);
  EXPECT_EQ(std::count_if(problems.begin(), problems.end(),
                          [](const std::string& p) { return p.find("test-only defects cannot be set") != std::string::npos; }),
            2);
  EXPECT_FALSE(c.kernel.mutations.any());
}

TEST(DaemonConfig, SyntaxErrorsNameTheLine) {
  DaemonConfig c = default_config();
  std::vector<std::string> problems;
  apply_toml(c, "cluster_name = \"ok\"\nphi_threshold = = 3\n", "n.toml", problems);
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_EQ(problems[0].rfind("n.toml:2: ", 0), 0U) << problems[0];
}

// PEM files for the TLS checks, made with OpenSSL's API in a fresh
// directory: two self-signed certificates (a and b) and their keys.
class DaemonConfigTls : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("weft-tls-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    make("a");
    make("b");
    std::ofstream(file("junk.pem")) << "not a certificate\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  std::vector<std::string> load(const std::string& toml) {
    c_ = default_config();
    std::vector<std::string> problems;
    apply_toml(c_, toml, "n.toml", problems);
    finish(c_, problems);
    return problems;
  }
  std::string keys(const std::string& cert, const std::string& key, const std::string& ca) const {
    return "tls_cert = \"" + file(cert) + "\"\ntls_key = \"" + file(key) + "\"\ntls_ca = \"" + file(ca) + "\"\n";
  }

  DaemonConfig c_;

 private:
  void make(const std::string& name) {
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"),
                                                            EVP_PKEY_free);
    ASSERT_NE(key, nullptr);
    std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), X509_free);
    X509_set_version(cert.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), 3600);
    X509_set_pubkey(cert.get(), key.get());
    X509_NAME* subject = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(name.c_str()), -1,
                               -1, 0);
    X509_set_issuer_name(cert.get(), subject);
    ASSERT_GT(X509_sign(cert.get(), key.get(), EVP_sha256()), 0);
    std::FILE* out = std::fopen(file(name + ".crt").c_str(), "w");
    ASSERT_NE(out, nullptr);
    PEM_write_X509(out, cert.get());
    std::fclose(out);
    out = std::fopen(file(name + ".key").c_str(), "w");
    ASSERT_NE(out, nullptr);
    PEM_write_PrivateKey(out, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    std::fclose(out);
  }
  std::filesystem::path dir_;
};

TEST_F(DaemonConfigTls, OffByDefaultAndSaysSo) {
  const auto problems = load("");
  EXPECT_TRUE(problems.empty());
  EXPECT_FALSE(c_.tls());
  EXPECT_NE(to_text(c_).find("# tls: off, plaintext links"), std::string::npos);
}

TEST_F(DaemonConfigTls, AllThreeFilesTurnItOn) {
  const auto problems = load(keys("a.crt", "a.key", "a.crt"));
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_TRUE(c_.tls());
  const std::string text = to_text(c_);
  EXPECT_NE(text.find("tls_cert = " + file("a.crt") + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# tls: required on every link"), std::string::npos) << text;
}

TEST_F(DaemonConfigTls, SomeButNotAllNamesTheMissingField) {
  auto problems = load("cluster_name = \"x\"\ntls_cert = \"" + file("a.crt") + "\"\ntls_ca = \"" + file("a.crt") + "\"\n");
  EXPECT_TRUE(has(problems, "n.toml:2: TLS: tls_cert, tls_ca given but tls_key missing; TLS needs tls_cert, tls_key and "
                            "tls_ca together"))
      << (problems.empty() ? "" : problems.front());
  problems = load("tls_key = \"" + file("a.key") + "\"\n");
  EXPECT_TRUE(has(problems, "n.toml:1: TLS: tls_key given but tls_cert, tls_ca missing"));
  EXPECT_FALSE(c_.tls());
}

TEST_F(DaemonConfigTls, UnreadableFilesNameTheKeyAndTheLine) {
  const auto problems = load(keys("nope.crt", "nope.key", "nope.pem"));
  EXPECT_TRUE(has(problems, "n.toml:1: tls_cert = \"" + file("nope.crt") + "\": cannot read it (No such file"));
  EXPECT_TRUE(has(problems, "n.toml:2: tls_key = \"" + file("nope.key") + "\": cannot read it"));
  EXPECT_TRUE(has(problems, "n.toml:3: tls_ca = \"" + file("nope.pem") + "\": cannot read it"));
}

TEST_F(DaemonConfigTls, AKeyThatIsNotTheCertificatesIsRefused) {
  const auto problems = load(keys("a.crt", "b.key", "a.crt"));
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_TRUE(has(problems, "n.toml:2: tls_key = \"" + file("b.key") + "\": is not the key of the certificate in "
                            "tls_cert = \"" + file("a.crt") + "\"; give the key the certificate was issued for"))
      << problems.front();
}

TEST_F(DaemonConfigTls, FilesThatHoldTheWrongThingAreRefused) {
  const auto problems = load(keys("junk.pem", "a.crt", "junk.pem"));
  EXPECT_TRUE(has(problems, "n.toml:1: tls_cert = \"" + file("junk.pem") + "\": holds no PEM certificate"));
  EXPECT_TRUE(has(problems, "n.toml:2: tls_key = \"" + file("a.crt") + "\": holds no unencrypted PEM private key"));
  EXPECT_TRUE(has(problems, "n.toml:3: tls_ca = \"" + file("junk.pem") + "\": holds no PEM certificate"));
}

TEST_F(DaemonConfigTls, FlagsAreCheckedLikeTheFile) {
  c_ = default_config();
  std::vector<std::string> problems;
  apply_setting(c_, "tls_cert=" + file("a.crt"), problems);
  apply_setting(c_, "tls_key=" + file("b.key"), problems);
  apply_setting(c_, "tls_ca=" + file("a.crt"), problems);
  finish(c_, problems);
  EXPECT_TRUE(has(problems, "--set tls_key = \"" + file("b.key") + "\": is not the key of the certificate"));
  problems.clear();
  apply_setting(c_, "tls_ca=", problems);
  EXPECT_TRUE(has(problems, "--set tls_ca = \"\" is not a path to a PEM file"));
}

}  // namespace
}  // namespace weft::daemon
