// Goal: a down a node did not decide is taken at once only with evidence
// of its own; without it, it is held for its subject to refute
// (kernel/membership/down_claims.hpp): sent to the subject on first
// hearing, taken when heard again once `wait` has passed and the life still
// stands, and forgotten when the life it names is no longer held live. A
// member that hears its own life down stops only on evidence that it was
// cut off.
#include "kernel/membership/down_claims.hpp"

#include <gtest/gtest.h>

#include "tests/test_ids.hpp"

namespace weft {
namespace {

using test::member_id;

const Duration kWait = Duration::seconds(2);

Instant at_ms(std::int64_t ms) { return Instant::epoch() + Duration::milliseconds(ms); }

TEST(DownClaims, ADownWithEvidenceIsTakenAtOnce) {
  DownClaims claims;
  EXPECT_EQ(claims.judge(member_id(2), true, at_ms(0), kWait), DownVerdict::take);
  EXPECT_EQ(claims.size(), 0U);
}

TEST(DownClaims, ADownWithoutEvidenceIsHeldUntilItsSubjectHadTheTimeToRefute) {
  DownClaims claims;
  EXPECT_EQ(claims.judge(member_id(2), false, at_ms(0), kWait), DownVerdict::hold_first)
      << "first heard: sent to the subject";
  EXPECT_EQ(claims.judge(member_id(2), false, at_ms(1999), kWait), DownVerdict::hold)
      << "heard again before the wait: still held, and not sent again";
  EXPECT_EQ(claims.judge(member_id(2), false, at_ms(2000), kWait), DownVerdict::take)
      << "heard again once its subject had the time to refute: taken";
  EXPECT_EQ(claims.size(), 0U);
}

TEST(DownClaims, EvidenceArrivingLaterTakesAHeldDown) {
  DownClaims claims;
  EXPECT_EQ(claims.judge(member_id(2), false, at_ms(0), kWait), DownVerdict::hold_first);
  EXPECT_EQ(claims.judge(member_id(2), true, at_ms(300), kWait), DownVerdict::take);
  EXPECT_EQ(claims.size(), 0U);
}

TEST(DownClaims, ADownOfAnotherLifeStartsItsOwnWait) {
  DownClaims claims;
  EXPECT_EQ(claims.judge(member_id(2, 1), false, at_ms(0), kWait), DownVerdict::hold_first);
  EXPECT_EQ(claims.judge(member_id(2, 2), false, at_ms(2500), kWait), DownVerdict::hold_first)
      << "the subject's next life: the old claim's wait does not carry over";
  EXPECT_EQ(claims.judge(member_id(2, 2), false, at_ms(3000), kWait), DownVerdict::hold);
  EXPECT_EQ(claims.judge(member_id(3), false, at_ms(3000), kWait), DownVerdict::hold_first)
      << "another subject: a claim of its own";
  EXPECT_EQ(claims.size(), 2U);
}

TEST(DownClaims, ClaimsOfLivesNoLongerHeldLiveAreForgotten) {
  DownClaims claims;
  (void)claims.judge(member_id(2), false, at_ms(0), kWait);
  (void)claims.judge(member_id(3), false, at_ms(0), kWait);
  claims.prune([](const MemberId& life) { return life == member_id(3); });
  EXPECT_EQ(claims.size(), 1U);
  EXPECT_EQ(claims.judge(member_id(2), false, at_ms(2500), kWait), DownVerdict::hold_first)
      << "forgotten: heard again, it waits afresh";
}

TEST(DownClaims, AMemberDownedStopsOnlyOnEvidenceItWasCutOff) {
  const Duration window = Duration::seconds(20);
  EXPECT_FALSE(was_cut_off(CutOffEvidence{}, at_ms(60'000), window)) << "never disturbed: a forged down";
  EXPECT_TRUE(was_cut_off(CutOffEvidence{true, std::nullopt}, at_ms(60'000), window)) << "a row marks it";
  EXPECT_TRUE(was_cut_off(CutOffEvidence{false, at_ms(40'000)}, at_ms(60'000), window))
      << "it held another member unreachable within the window";
  EXPECT_FALSE(was_cut_off(CutOffEvidence{false, at_ms(39'999)}, at_ms(60'000), window))
      << "a disturbance older than the window is no evidence";
}

}  // namespace
}  // namespace weft
