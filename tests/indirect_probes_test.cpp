// Goal: the indirect probes' records open and close as the model says: a
// direct ack or a helper's alive closes this node's probe, an unanswered one
// condemns its subject once and stays for late answers, a helped request is
// passed on only for the subject's own ack, ids name one record for good,
// and helpers are drawn without replacement.
#include "kernel/detection/indirect_probes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "tests/test_ids.hpp"

namespace weft {
namespace {

Instant at_ms(std::int64_t ms) { return Instant::epoch() + Duration::milliseconds(ms); }
const Duration kWait = Duration::milliseconds(500);
const Duration kKeep = Duration::seconds(5);

MemberId id(int n, std::uint64_t incarnation = 1) { return test::member_id(n, incarnation); }

bool never_heard(const MemberId&, Instant) { return false; }

// The helper every probe below asks.
NodeAddress helper() { return id(5).address; }

TEST(IndirectProbes, DirectAckFromTheSubjectClosesTheProbe) {
  IndirectProbes probes;
  const std::uint64_t probe = probes.ask(id(3), at_ms(0), kWait, {helper()});
  EXPECT_EQ(probes.next_deadline(), at_ms(500));
  EXPECT_FALSE(probes.on_ack(id(2).address, probe).has_value()) << "only the subject's ack counts";
  EXPECT_EQ(probes.asked().size(), 1u);
  EXPECT_FALSE(probes.on_ack(id(3).address, probe).has_value()) << "nobody else is owed an answer";
  EXPECT_TRUE(probes.asked().empty());
  EXPECT_EQ(probes.next_deadline(), Instant::never());
}

TEST(IndirectProbes, OnlyAHelperAskedCanVouch) {
  IndirectProbes probes;
  const std::uint64_t probe = probes.ask(id(3), at_ms(0), kWait, {id(6).address, helper()});
  EXPECT_EQ(probes.on_alive(id(2).address, probe, id(3)), AliveAnswer::unknown) << "not asked: proves nothing";
  EXPECT_EQ(probes.asked().size(), 1u) << "and leaves the probe open";
  EXPECT_EQ(probes.on_alive(id(6).address, probe, id(3)), AliveAnswer::in_time);
}

TEST(IndirectProbes, HelperAnswerInTimeClosesTheProbe) {
  IndirectProbes probes;
  const std::uint64_t probe = probes.ask(id(3), at_ms(0), kWait, {helper()});
  EXPECT_EQ(probes.on_alive(helper(), probe, id(4)), AliveAnswer::unknown) << "the id must name this subject";
  EXPECT_EQ(probes.on_alive(helper(), probe, id(3)), AliveAnswer::in_time);
  EXPECT_EQ(probes.on_alive(helper(), probe, id(3)), AliveAnswer::unknown) << "answered once";
  EXPECT_TRUE(probes.expire(at_ms(600), kKeep, never_heard).empty());
}

TEST(IndirectProbes, UnansweredProbeCondemnsOnceAndWaitsForLateAnswers) {
  IndirectProbes probes;
  const std::uint64_t probe = probes.ask(id(3), at_ms(100), kWait, {helper()});
  EXPECT_TRUE(probes.expire(at_ms(599), kKeep, never_heard).empty()) << "not due yet";
  const std::vector<CondemnedProbe> condemned = probes.expire(at_ms(600), kKeep, never_heard);
  ASSERT_EQ(condemned.size(), 1u);
  EXPECT_EQ(condemned[0].subject, id(3));
  EXPECT_EQ(condemned[0].started, at_ms(100));
  EXPECT_EQ(probes.next_deadline(), at_ms(5600)) << "kept for the leader's longest wait";
  EXPECT_TRUE(probes.expire(at_ms(3000), kKeep, never_heard).empty()) << "condemned once";
  EXPECT_EQ(probes.on_alive(helper(), probe, id(3)), AliveAnswer::late);
  EXPECT_TRUE(probes.asked().empty());
}

TEST(IndirectProbes, CondemnedProbeIsForgottenAfterItsWait) {
  IndirectProbes probes;
  const std::uint64_t probe = probes.ask(id(3), at_ms(0), kWait, {helper()});
  ASSERT_EQ(probes.expire(at_ms(500), kKeep, never_heard).size(), 1u);
  EXPECT_TRUE(probes.expire(at_ms(5500), kKeep, never_heard).empty());
  EXPECT_TRUE(probes.asked().empty());
  EXPECT_EQ(probes.on_alive(helper(), probe, id(3)), AliveAnswer::unknown) << "too late even for a late answer";
}

TEST(IndirectProbes, SubjectHeardSinceTheStartIsSpared) {
  IndirectProbes probes;
  probes.ask(id(3), at_ms(0), kWait, {helper()});
  probes.ask(id(4), at_ms(0), kWait, {helper()});
  const auto heard = [](const MemberId& subject, Instant started) {
    EXPECT_EQ(started, at_ms(0));
    return subject == id(3);
  };
  const std::vector<CondemnedProbe> condemned = probes.expire(at_ms(500), kKeep, heard);
  ASSERT_EQ(condemned.size(), 1u);
  EXPECT_EQ(condemned[0].subject, id(4));
  EXPECT_EQ(probes.asked().size(), 1u) << "the spared probe is closed, the condemned one kept";
}

TEST(IndirectProbes, HelpedRequestIsPassedOnForTheSubjectsAckOnly) {
  IndirectProbes probes;
  const std::uint64_t mine = probes.help(id(1), 77, id(3), at_ms(500));
  EXPECT_FALSE(probes.on_ack(id(1).address, mine).has_value()) << "the asker cannot answer for the subject";
  const std::optional<ProbeHelping> helped = probes.on_ack(id(3).address, mine);
  ASSERT_TRUE(helped.has_value());
  EXPECT_EQ(helped->asker, id(1));
  EXPECT_EQ(helped->asker_probe, 77u);
  EXPECT_EQ(helped->subject, id(3));
  EXPECT_FALSE(probes.on_ack(id(3).address, mine).has_value()) << "passed on once";
}

TEST(IndirectProbes, HelpedRequestLapsesSilently) {
  IndirectProbes probes;
  const std::uint64_t mine = probes.help(id(1), 7, id(3), at_ms(500));
  EXPECT_EQ(probes.next_deadline(), at_ms(500));
  EXPECT_TRUE(probes.expire(at_ms(500), kKeep, never_heard).empty()) << "helping condemns nobody";
  EXPECT_TRUE(probes.helping().empty());
  EXPECT_FALSE(probes.on_ack(id(3).address, mine).has_value());
}

// Edge: ids come from one counter for both kinds and survive clear(), so an
// answer to a probe from before a rejoin names nothing afterwards.
TEST(IndirectProbes, IdsAreNeverReusedAcrossKindsOrAClear) {
  IndirectProbes probes;
  std::set<std::uint64_t> ids;
  ids.insert(probes.ask(id(3), at_ms(0), kWait, {helper()}));
  ids.insert(probes.help(id(1), 1, id(3), at_ms(500)));
  const std::uint64_t before_clear = probes.ask(id(4), at_ms(0), kWait, {helper()});
  ids.insert(before_clear);
  probes.clear();
  EXPECT_EQ(probes.next_deadline(), Instant::never());
  const std::uint64_t after_clear = probes.ask(id(4), at_ms(10), kWait, {helper()});
  ids.insert(after_clear);
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_EQ(probes.on_alive(helper(), before_clear, id(4)), AliveAnswer::unknown);
  EXPECT_EQ(probes.on_alive(helper(), after_clear, id(4)), AliveAnswer::in_time);
}

// Edge: a paused node postpones its own probes, never brings one forward,
// and leaves the requests it helps with as they were.
TEST(IndirectProbes, PostponeOnlyDelaysOwnProbes) {
  IndirectProbes probes;
  const std::uint64_t soon = probes.ask(id(3), at_ms(0), kWait, {helper()});
  const std::uint64_t late = probes.ask(id(4), at_ms(0), Duration::seconds(10), {helper()});
  probes.help(id(1), 9, id(5), at_ms(400));
  probes.postpone(at_ms(2000));
  EXPECT_EQ(probes.asked().at(soon).deadline, at_ms(2000));
  EXPECT_EQ(probes.asked().at(late).deadline, at_ms(10'000));
  EXPECT_EQ(probes.helping().begin()->second.deadline, at_ms(400));
  EXPECT_EQ(probes.next_deadline(), at_ms(400));
  EXPECT_TRUE(probes.expire(at_ms(1999), kKeep, never_heard).empty());
  EXPECT_EQ(probes.expire(at_ms(2000), kKeep, never_heard).size(), 1u);
}

TEST(IndirectProbes, HelpersAreDrawnWithoutReplacement) {
  std::vector<NodeAddress> candidates;
  for (int i = 1; i <= 6; ++i) candidates.push_back(id(i).address);
  Prng prng(42);
  const std::vector<NodeAddress> picked = IndirectProbes::pick_helpers(candidates, 3, prng);
  ASSERT_EQ(picked.size(), 3u);
  EXPECT_EQ(std::set<NodeAddress>(picked.begin(), picked.end()).size(), 3u);
  for (const NodeAddress& helper : picked) {
    EXPECT_NE(std::find(candidates.begin(), candidates.end(), helper), candidates.end());
  }
  // Fewer candidates than wanted: all of them.
  Prng few(42);
  EXPECT_EQ(IndirectProbes::pick_helpers({id(1).address}, 3, few).size(), 1u);
  EXPECT_TRUE(IndirectProbes::pick_helpers({}, 3, few).empty());
}

TEST(IndirectProbes, HelperDrawsAreReproducible) {
  std::vector<NodeAddress> candidates;
  for (int i = 1; i <= 9; ++i) candidates.push_back(id(i).address);
  Prng a(7);
  Prng b(7);
  EXPECT_EQ(IndirectProbes::pick_helpers(candidates, 3, a), IndirectProbes::pick_helpers(candidates, 3, b));
  EXPECT_EQ(a.next_u64(), b.next_u64()) << "the same number of draws";
}

}  // namespace
}  // namespace weft
