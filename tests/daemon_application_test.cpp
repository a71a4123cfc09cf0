// An application the daemon cannot host is refused at start, naming the
// kind that is wrong (app/application.hpp).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "app/application.hpp"
#include "daemon/daemon_main.hpp"
#include "sim_cli/sim_main.hpp"

namespace {

class Quiet final : public weft::Behavior {
 public:
  void receive(weft::Context&, const weft::Delivery&) override {}
};

weft::ActorKind kind(std::string name) {
  return {.name = std::move(name), .make = [](const weft::ActorStart&) { return std::make_unique<Quiet>(); }};
}

bool names(const std::vector<std::string>& problems, const std::string& text) {
  for (const std::string& p : problems) {
    if (p.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(DaemonApplication, AWellFormedOneHasNoProblems) {
  const weft::Application app{.name = "appd", .description = "", .actors = {kind("a"), kind("b")}};
  EXPECT_TRUE(weft::application_problems(app).empty());
}

TEST(DaemonApplication, ADuplicateActorNameIsNamed) {
  const weft::Application app{.name = "appd", .description = "", .actors = {kind("a"), kind("b"), kind("a")}};
  const auto problems = weft::application_problems(app);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_TRUE(names(problems, "actor kind \"a\" is defined twice")) << problems.front();
}

TEST(DaemonApplication, AKindWithoutAFactoryOrANameIsNamed) {
  weft::ActorKind no_factory{.name = "lost", .make = nullptr};
  const weft::Application app{.name = "appd", .description = "", .actors = {no_factory, kind("")}};
  const auto problems = weft::application_problems(app);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_TRUE(names(problems, "actor kind \"lost\" has no factory")) << problems[0];
  EXPECT_TRUE(names(problems, "actor kind 2 has no name")) << problems[1];
}

TEST(DaemonApplication, ANameOverTheWireLimitAndNoProgramNameAreNamed) {
  const weft::Application app{.name = "", .description = "", .actors = {kind(std::string(256, 'x'))}};
  const auto problems = weft::application_problems(app);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_TRUE(names(problems, "the application has no name"));
  EXPECT_TRUE(names(problems, "a name is at most 255 bytes"));
}

TEST(DaemonApplication, DefectsAndWorkloadsAreCheckedToo) {
  const weft::Application app{
      .name = "appd",
      .description = "",
      .actors = {kind("a")},
      .defects = {{.name = "slip", .property = "P", .branch = "b"}, {.name = "slip", .property = "", .branch = ""}},
      .workloads = {{.name = "load", .description = "", .make = nullptr}},
  };
  const auto problems = weft::application_problems(app);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_TRUE(names(problems, "defect \"slip\" names no property")) << problems[0];
  EXPECT_TRUE(names(problems, "defect \"slip\" is defined twice")) << problems[1];
  EXPECT_TRUE(names(problems, "workload \"load\" has no factory")) << problems[2];
}

// The refusal comes before any flag is read or socket opened: exit 2, the
// kind named on stderr.
TEST(DaemonApplication, MainRefusesABadOneAtStart) {
  const weft::Application app{.name = "appd", .description = "", .actors = {kind("a"), kind("a")}};
  char program[] = "appd";
  char* argv[] = {program, nullptr};
  testing::internal::CaptureStderr();
  const int rc = weft::daemon::main(1, argv, app);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("appd: bad application: actor kind \"a\" is defined twice"), std::string::npos) << err;
}

// The simulator's main refuses the same definition the same way.
TEST(DaemonApplication, SimMainRefusesABadOneAtStart) {
  const weft::Application app{.name = "app-sim", .actors = {kind("a")},
                              .workloads = {{.name = "load", .description = "", .make = nullptr}}};
  char program[] = "app-sim";
  char run[] = "run";
  char* argv[] = {program, run, nullptr};
  testing::internal::CaptureStderr();
  const int rc = weft::sim::main(2, argv, app);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("app-sim: bad application: workload \"load\" has no factory"), std::string::npos) << err;
}

// A metric registration the registry refuses (here the reserved prefix)
// is a bad application too: refused at start, naming the kind and the metric.
TEST(DaemonApplication, ARefusedMetricIsRefusedAtStart) {
  const weft::ActorKind greedy{.name = "greedy", .make = [](const weft::ActorStart& start) {
                                 start.metrics.counter("weft_members", "shadows the daemon's own");
                                 return std::make_unique<Quiet>();
                               }};
  const weft::Application app{.name = "appd", .actors = {greedy}};
  char program[] = "appd";
  char advertise[] = "--advertise=127.0.0.1:1";
  char admin[] = "--admin=127.0.0.1:2";
  char* argv[] = {program, advertise, admin, nullptr};
  testing::internal::CaptureStderr();
  const int rc = weft::daemon::main(3, argv, app);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("appd: bad application: actor kind \"greedy\": metric \"weft_members\": the prefix weft_ is "
                     "weft's own"),
            std::string::npos)
      << err;
}

}  // namespace
