// Goal: weftd's configuration takes every knob by name from a file or a
// flag, and refuses a bad one naming the field, the line and the fix.
#include <gtest/gtest.h>

#include <algorithm>

#include "tools/daemon_config.hpp"

namespace weft::tools {
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
  EXPECT_TRUE(has(problems, "phi_threshold: must be 1..100"));
  EXPECT_TRUE(has(problems, "expected key=value"));
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

}  // namespace
}  // namespace weft::tools
