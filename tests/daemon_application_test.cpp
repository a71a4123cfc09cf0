// An application the daemon cannot host is refused at start, naming the
// kind that is wrong (daemon/application.hpp).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "daemon/application.hpp"
#include "daemon/daemon_main.hpp"

namespace {

class Quiet final : public weft::Behavior {
 public:
  void receive(weft::Context&, const weft::Delivery&) override {}
};

weft::daemon::ActorKind kind(std::string name) {
  return {.name = std::move(name), .make = [] { return std::make_unique<Quiet>(); }};
}

bool names(const std::vector<std::string>& problems, const std::string& text) {
  for (const std::string& p : problems) {
    if (p.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(DaemonApplication, AWellFormedOneHasNoProblems) {
  const weft::daemon::Application app{.name = "appd", .description = "", .actors = {kind("a"), kind("b")}};
  EXPECT_TRUE(weft::daemon::application_problems(app).empty());
}

TEST(DaemonApplication, ADuplicateActorNameIsNamed) {
  const weft::daemon::Application app{.name = "appd", .description = "", .actors = {kind("a"), kind("b"), kind("a")}};
  const auto problems = weft::daemon::application_problems(app);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_TRUE(names(problems, "actor kind \"a\" is defined twice")) << problems.front();
}

TEST(DaemonApplication, AKindWithoutAFactoryOrANameIsNamed) {
  weft::daemon::ActorKind no_factory{.name = "lost", .make = nullptr};
  const weft::daemon::Application app{.name = "appd", .description = "", .actors = {no_factory, kind("")}};
  const auto problems = weft::daemon::application_problems(app);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_TRUE(names(problems, "actor kind \"lost\" has no factory")) << problems[0];
  EXPECT_TRUE(names(problems, "actor kind 2 has no name")) << problems[1];
}

TEST(DaemonApplication, ANameOverTheWireLimitAndNoProgramNameAreNamed) {
  const weft::daemon::Application app{.name = "", .description = "", .actors = {kind(std::string(256, 'x'))}};
  const auto problems = weft::daemon::application_problems(app);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_TRUE(names(problems, "the application has no name"));
  EXPECT_TRUE(names(problems, "a name is at most 255 bytes"));
}

// The refusal comes before any flag is read or socket opened: exit 2, the
// kind named on stderr.
TEST(DaemonApplication, MainRefusesABadOneAtStart) {
  const weft::daemon::Application app{.name = "appd", .description = "", .actors = {kind("a"), kind("a")}};
  char program[] = "appd";
  char* argv[] = {program, nullptr};
  testing::internal::CaptureStderr();
  const int rc = weft::daemon::main(1, argv, app);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("appd: bad application: actor kind \"a\" is defined twice"), std::string::npos) << err;
}

}  // namespace
