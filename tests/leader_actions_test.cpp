// Goal: the leader is the lowest reachable address, preferring members that
// are up; a lone joiner that is not the first seed waits; the leader downs an
// unreachable member after the confirmation-scaled wait (one observer's word
// the longest, every expected observer the shortest, never sooner than the
// forgiven silence it measures itself), removes the down, and moves joiners
// and leavers only on convergence; every move goes forward; the mutations
// that reach these rules still do what they say.
#include "kernel/membership/leader_actions.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_ids.hpp"

namespace weft {
namespace {

Instant at_ms(std::int64_t ms) { return Instant::epoch() + Duration::milliseconds(ms); }

MemberId id(int n, std::uint64_t incarnation = 1) { return test::member_id(n, incarnation); }
Member member(int n, MemberStatus status) { return Member{id(n), status}; }

// Defaults: down_after_unreachable 5 s, down_after_confirmed 0.5 s,
// remove_after_down 2 s, and a proven silence of 5.1 s (forgiven pause 5 s
// plus silence_slack) before a watching leader downs.
LeaderActions actions_at(std::int64_t now_ms, bool converged = true, const Config& config = Config{}) {
  return LeaderActions(config, LeaderActions::Round{at_ms(now_ms), converged, true});
}

DownEvidence marked_at(std::int64_t since_ms, std::size_t confirmed, std::size_t expected) {
  DownEvidence evidence;
  evidence.unreachable_since = at_ms(since_ms);
  evidence.confirmed = confirmed;
  evidence.expected = expected;
  return evidence;
}

MemberStanding unreachable_since(std::int64_t since_ms, std::size_t confirmed, std::size_t expected) {
  MemberStanding standing;
  standing.unreachable = true;
  standing.evidence = marked_at(since_ms, confirmed, expected);
  return standing;
}

TEST(ElectLeader, LowestReachableUpMemberLeads) {
  const std::vector<Member> members{member(1, MemberStatus::joining), member(2, MemberStatus::up),
                                    member(3, MemberStatus::up)};
  EXPECT_EQ(elect_leader(members, {}), id(2).address) << "up is preferred to a lower joiner";
  const std::vector<MemberId> unreachable{id(2)};
  EXPECT_EQ(elect_leader(members, unreachable), id(3).address);
  EXPECT_EQ(elect_leader(members, unreachable, true), id(2).address) << "leader_ignores_reachability";
}

TEST(ElectLeader, LeaversLeadOnlyWhenNobodyElseCan) {
  const std::vector<Member> members{member(1, MemberStatus::leaving), member(2, MemberStatus::exiting),
                                    member(3, MemberStatus::joining), member(4, MemberStatus::down)};
  EXPECT_EQ(elect_leader(members, {}), id(3).address);
  const std::vector<MemberId> unreachable{id(3)};
  EXPECT_EQ(elect_leader(members, unreachable), id(1).address);
}

// Edge: a view with no live, reachable member has no leader.
TEST(ElectLeader, NoLiveReachableMemberNoLeader) {
  EXPECT_FALSE(elect_leader({}, {}).has_value());
  const std::vector<Member> members{member(1, MemberStatus::down), member(2, MemberStatus::up)};
  const std::vector<MemberId> unreachable{id(2)};
  EXPECT_FALSE(elect_leader(members, unreachable).has_value());
}

TEST(WaitsForSeed, OnlyTheFirstSeedFormsAClusterAlone) {
  const std::vector<Member> alone{member(2, MemberStatus::joining)};
  const std::vector<NodeAddress> seeds{id(1).address, id(2).address};
  EXPECT_TRUE(waits_for_seed(alone, id(2).address, seeds));
  const std::vector<NodeAddress> first{id(2).address, id(1).address};
  EXPECT_FALSE(waits_for_seed(alone, id(2).address, first));
  EXPECT_FALSE(waits_for_seed(alone, id(2).address, {})) << "no seeds: nobody to wait for";
  const std::vector<Member> up{member(2, MemberStatus::up)};
  EXPECT_FALSE(waits_for_seed(up, id(2).address, seeds)) << "already a member of a cluster";
  const std::vector<Member> two{member(1, MemberStatus::up), member(2, MemberStatus::joining)};
  EXPECT_FALSE(waits_for_seed(two, id(2).address, seeds));
}

TEST(DownWait, EachConfirmationHalvesWhatIsLeftAboveTheFloor) {
  const LeaderActions actions = actions_at(0);
  EXPECT_EQ(actions.down_wait(marked_at(0, 1, 5)), Duration::seconds(5)) << "one observer's word";
  EXPECT_EQ(actions.down_wait(marked_at(0, 2, 5)), Duration::milliseconds(2750));
  EXPECT_EQ(actions.down_wait(marked_at(0, 3, 5)), Duration::milliseconds(1625));
  EXPECT_EQ(actions.down_wait(marked_at(0, 4, 5)), Duration::nanoseconds(1'062'500'000));
  EXPECT_EQ(actions.down_wait(marked_at(0, 5, 5)), Duration::milliseconds(500)) << "every expected observer";
  EXPECT_EQ(actions.down_wait(marked_at(0, 7, 5)), Duration::milliseconds(500)) << "more than expected";
}

// Edge: no counted mark left (the observers went away) is no confirmation;
// and a subject heard since it became unreachable waits the longest.
TEST(DownWait, NoCountedMarkOrFreshEvidenceWaitsTheLongest) {
  const LeaderActions actions = actions_at(1000);
  EXPECT_EQ(actions.down_wait(marked_at(0, 0, 0)), Duration::seconds(5));
  DownEvidence heard = marked_at(0, 5, 5);
  heard.last_heard = at_ms(10);
  EXPECT_EQ(actions.down_wait(heard), Duration::seconds(5));
  heard.last_heard = at_ms(0);
  EXPECT_EQ(actions.down_wait(heard), Duration::milliseconds(500)) << "heard at, not after, the mark";
}

TEST(DownWait, AWatchingLeaderWaitsOutTheForgivenSilence) {
  DownEvidence evidence = marked_at(4500, 5, 5);
  evidence.watched = true;
  evidence.last_heard = at_ms(0);
  evidence.silent_since = at_ms(300);  // its first heartbeat after the last frame, unanswered
  // At 4.6 s the subject has been silent for 4.3 s; 5.1 s are needed, so the
  // wait runs to 5.4 s: 0.9 s after the mark.
  EXPECT_EQ(actions_at(4600).down_wait(evidence), Duration::milliseconds(900));
  // Past the silence, the confirmations decide again.
  EXPECT_EQ(actions_at(5400).down_wait(evidence), Duration::milliseconds(500));
  // Never below the floor.
  evidence.unreachable_since = at_ms(5800);
  EXPECT_EQ(actions_at(5900).down_wait(evidence), Duration::milliseconds(500));
}

// Edge: a watched subject with no proven silence (heard since the last
// heartbeat went out) waits the whole allowance from now: the clock starts
// at the next heartbeat at the earliest.
TEST(DownWait, NoProvenSilenceWaitsTheWholeAllowanceFromNow) {
  DownEvidence evidence = marked_at(4500, 5, 5);
  evidence.watched = true;
  evidence.last_heard = at_ms(4400);  // before the mark: heard since would wait the longest
  EXPECT_EQ(actions_at(4600).down_wait(evidence), Duration::milliseconds(100 + 5100));
  // Nothing heard at all (or forgotten at a refused redial): no floor.
  evidence.last_heard.reset();
  EXPECT_EQ(actions_at(4600).down_wait(evidence), Duration::milliseconds(500));
}

TEST(DownWait, MutationsStillBreakWhatTheySay) {
  Config config;
  config.mutations.confirmation_off = true;
  EXPECT_EQ(actions_at(0, true, config).down_wait(marked_at(0, 5, 5)), Duration::seconds(5));
  Config no_floor;
  no_floor.mutations.pause_floor_off = true;
  DownEvidence evidence = marked_at(4500, 5, 5);
  evidence.watched = true;
  evidence.last_heard = at_ms(0);
  evidence.silent_since = at_ms(300);
  EXPECT_EQ(actions_at(4600, true, no_floor).down_wait(evidence), Duration::zero());
}

TEST(Judge, DownsAnUnreachableMemberWhenItsWaitEnds) {
  const Member subject = member(3, MemberStatus::up);
  const LeaderMove early = actions_at(2000).judge(subject, unreachable_since(0, 1, 5));
  EXPECT_FALSE(early.status.has_value());
  EXPECT_EQ(early.down_due, at_ms(5000));
  const LeaderMove due = actions_at(5000).judge(subject, unreachable_since(0, 1, 5));
  EXPECT_EQ(due.status, MemberStatus::down);
}

// A live record nothing vouches for (vouched_lives.hpp) is downed after
// the longest wait, as one observer's word would be; evidence that comes
// due sooner still decides; a vouched-for joiner is not held to it.
TEST(Judge, DownsAMemberHeldUnvouchedForTheLongestWait) {
  MemberStanding unvouched;
  unvouched.unreachable = true;
  unvouched.unvouched_since = at_ms(1000);
  const LeaderMove early = actions_at(5999).judge(member(3, MemberStatus::joining), unvouched);
  EXPECT_FALSE(early.status.has_value()) << "an unvouched joiner is not moved up";
  EXPECT_EQ(early.down_due, at_ms(6000));
  EXPECT_EQ(actions_at(6000).judge(member(3, MemberStatus::joining), unvouched).status, MemberStatus::down);
  EXPECT_EQ(actions_at(6000).judge(member(3, MemberStatus::up), unvouched).status, MemberStatus::down);
  MemberStanding both = unvouched;
  both.evidence = marked_at(1500, 5, 5);  // every observer: the floor, 0.5 s
  EXPECT_EQ(actions_at(2000).judge(member(3, MemberStatus::up), both).status, MemberStatus::down);
  MemberStanding self = unvouched;
  self.is_self = true;
  EXPECT_FALSE(actions_at(60'000).judge(member(1, MemberStatus::up), self).status.has_value());
}

TEST(Judge, NeverDownsItselfNorUnderDowningOff) {
  MemberStanding self = unreachable_since(0, 5, 5);
  self.is_self = true;
  EXPECT_FALSE(actions_at(60'000).judge(member(1, MemberStatus::up), self).status.has_value());
  Config config;
  config.mutations.downing_off = true;
  const LeaderMove move =
      actions_at(60'000, true, config).judge(member(3, MemberStatus::up), unreachable_since(0, 5, 5));
  EXPECT_FALSE(move.status.has_value());
  EXPECT_EQ(move.down_due, Instant::never());
}

TEST(Judge, RemovesTheDownAfterTheirGrace) {
  MemberStanding down;
  down.down_since = at_ms(1000);
  EXPECT_FALSE(actions_at(2999).judge(member(3, MemberStatus::down), down).status.has_value());
  EXPECT_EQ(actions_at(3000).judge(member(3, MemberStatus::down), down).status, MemberStatus::removed);
  EXPECT_FALSE(actions_at(9000).judge(member(3, MemberStatus::down), MemberStanding{}).status.has_value())
      << "down at an unknown time: not removed";
}

TEST(Judge, MovesJoinersAndLeaversOnlyOnConvergence) {
  const MemberStanding reachable;
  EXPECT_EQ(actions_at(0).judge(member(2, MemberStatus::joining), reachable).status, MemberStatus::up);
  EXPECT_EQ(actions_at(0).judge(member(2, MemberStatus::leaving), reachable).status, MemberStatus::exiting);
  EXPECT_EQ(actions_at(0).judge(member(2, MemberStatus::exiting), reachable).status, MemberStatus::removed);
  EXPECT_FALSE(actions_at(0).judge(member(2, MemberStatus::up), reachable).status.has_value());
  EXPECT_FALSE(actions_at(0, false).judge(member(2, MemberStatus::joining), reachable).status.has_value());
  EXPECT_FALSE(actions_at(0, false).judge(member(2, MemberStatus::leaving), reachable).status.has_value());
  const LeaderActions late(Config{}, LeaderActions::Round{at_ms(0), true, false});
  EXPECT_FALSE(late.judge(member(2, MemberStatus::joining), reachable).status.has_value()) << "joiners_up_late";
  EXPECT_EQ(late.judge(member(2, MemberStatus::leaving), reachable).status, MemberStatus::exiting);
}

// Edge: a member still waiting to be downed keeps its down deadline and is
// not moved up, even on convergence: it is unreachable.
TEST(Judge, AnUnreachableJoinerIsNotMovedUp) {
  const LeaderMove move = actions_at(1000).judge(member(4, MemberStatus::joining), unreachable_since(0, 1, 5));
  EXPECT_FALSE(move.status.has_value());
  EXPECT_EQ(move.down_due, at_ms(5000));
}

TEST(Judge, EveryMoveGoesForward) {
  const std::vector<MemberStanding> standings{MemberStanding{}, unreachable_since(0, 1, 1),
                                              unreachable_since(0, 2, 5)};
  for (const MemberStatus status : kAllMemberStatuses) {
    for (const MemberStanding& standing : standings) {
      for (const std::int64_t now : {0, 1000, 10'000}) {
        const LeaderMove move = actions_at(now).judge(member(2, status), standing);
        if (move.status) {
          EXPECT_GT(*move.status, status) << to_string(status);
        }
      }
    }
  }
}

}  // namespace
}  // namespace weft
