// Goal: the majority mode's leases (shard/quorum_lease.hpp) never let two
// hosts hold one shard: a voter names one owner per shard until its promise
// ends or the owner releases it, stays quiet after it starts, a host holds a
// shard only on a majority of fresh answers, and a released shard counts
// only answers to later requests. The promise outlasts the lease by the
// drift ratio. The planted defect (votes without promises) names two.
#include "shard/quorum_lease.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "shard/lease_wire.hpp"

namespace weft::shard {
namespace {

const NodeAddress kA{"10.0.0.1", 7000};
const NodeAddress kB{"10.0.0.2", 7000};

Instant at_ms(std::int64_t ms) { return Instant::from_ns(ms * 1'000'000); }

const LeaseTimes kTimes = lease_times(Duration::seconds(7), 20'000);

TEST(QuorumLease, ThePromiseOutlastsTheLeaseByTheDriftRatio) {
  // 7 s x 1.02 / 0.98 = 7.2857 s; the quiet stretches the promise again.
  EXPECT_GE(kTimes.promise, Duration::milliseconds(7286));
  EXPECT_LE(kTimes.promise, Duration::milliseconds(7288));
  EXPECT_GE(kTimes.quiet, Duration::milliseconds(7583));
  EXPECT_LE(kTimes.quiet, Duration::milliseconds(7587));
  const LeaseTimes exact = lease_times(Duration::seconds(7), 0);
  EXPECT_EQ(exact.promise, Duration::seconds(7) + Duration::milliseconds(1));
}

TEST(QuorumLease, AVoterNamesOneOwnerUntilItsPromiseEnds) {
  Promises voter(4, at_ms(0), kTimes);
  const Instant t = at_ms(0) + kTimes.quiet;
  EXPECT_EQ(voter.vote(kA, {0, 1}, t), (std::vector<ShardId>{0, 1}));
  // Its view moves shard 1 to B: B is not named while A's promise holds.
  EXPECT_EQ(voter.vote(kB, {1, 2}, t + Duration::seconds(1)), (std::vector<ShardId>{2}));
  EXPECT_EQ(voter.vote(kB, {1}, t + kTimes.promise - Duration::nanoseconds(1)), std::vector<ShardId>{});
  EXPECT_EQ(voter.vote(kB, {1}, t + kTimes.promise), std::vector<ShardId>{1});
  // A asked again meanwhile would renew: here B holds the promise now.
  EXPECT_EQ(voter.vote(kA, {1}, t + kTimes.promise), std::vector<ShardId>{});
}

TEST(QuorumLease, AReleaseEndsOnlyTheReleasersPromise) {
  Promises voter(4, at_ms(0), kTimes);
  const Instant t = at_ms(0) + kTimes.quiet;
  ASSERT_EQ(voter.vote(kA, {0}, t), std::vector<ShardId>{0});
  voter.release(kB, {0});  // B holds no promise for 0: nothing changes
  EXPECT_EQ(voter.vote(kB, {0}, t), std::vector<ShardId>{});
  voter.release(kA, {0, 99});  // a shard out of range is ignored
  EXPECT_EQ(voter.vote(kB, {0}, t), std::vector<ShardId>{0});
}

TEST(QuorumLease, AStartedVoterIsQuietForItsEarlierLifesPromises) {
  Promises voter(2, at_ms(1000), kTimes);
  EXPECT_EQ(voter.vote(kA, {0}, at_ms(1000) + kTimes.quiet - Duration::nanoseconds(1)), std::vector<ShardId>{});
  EXPECT_EQ(voter.vote(kA, {0}, at_ms(1000) + kTimes.quiet), std::vector<ShardId>{0});
}

TEST(QuorumLease, AHostHoldsAShardOnAMajorityOfFreshAnswers) {
  Leases leases(2, 5, kTimes);
  ASSERT_EQ(leases.majority(), 3u);
  leases.record(0, at_ms(0), {0});
  leases.record(1, at_ms(100), {0, 1});
  EXPECT_FALSE(leases.held(0, at_ms(200)));
  leases.record(2, at_ms(200), {0});
  EXPECT_TRUE(leases.held(0, at_ms(200)));
  EXPECT_FALSE(leases.held(1, at_ms(200)));
  // The third-latest answer (asked at 0) ends it.
  EXPECT_EQ(leases.until(0), at_ms(0) + kTimes.lease);
  EXPECT_FALSE(leases.held(0, at_ms(0) + kTimes.lease));
  // A newer answer from voter 0 that no longer names shard 0 replaces it;
  // an older one than held is ignored.
  leases.record(0, at_ms(300), {});
  EXPECT_FALSE(leases.held(0, at_ms(300)));
  leases.record(0, at_ms(250), {0});
  EXPECT_FALSE(leases.held(0, at_ms(300)));
}

TEST(QuorumLease, ADroppedShardCountsOnlyAnswersToLaterRequests) {
  Leases leases(1, 3, kTimes);
  leases.record(0, at_ms(0), {0});
  leases.record(1, at_ms(0), {0});
  ASSERT_TRUE(leases.held(0, at_ms(10)));
  leases.drop(0, at_ms(10));
  EXPECT_FALSE(leases.held(0, at_ms(10)));
  // Answers to requests made at or before the release arrive late.
  leases.record(0, at_ms(10), {0});
  leases.record(1, at_ms(5), {0});
  EXPECT_FALSE(leases.held(0, at_ms(20)));
  leases.record(0, at_ms(11), {0});
  leases.record(2, at_ms(12), {0});
  EXPECT_TRUE(leases.held(0, at_ms(20)));
}

// The planted defect SHARD2 must catch (shard_vote_without_promise): a
// voter that names whatever its view says gives two hosts a majority.
TEST(QuorumLease, VotesWithoutPromisesNameTwoOwners) {
  std::vector<Promises> voters;
  for (int i = 0; i < 3; ++i) voters.emplace_back(1, at_ms(0), kTimes);
  Leases a(1, 3, kTimes);
  Leases b(1, 3, kTimes);
  const Instant t = at_ms(0) + kTimes.quiet;
  for (std::size_t v = 0; v < 3; ++v) a.record(v, t, voters[v].vote(kA, {0}, t));
  const Instant later = t + Duration::seconds(1);
  for (std::size_t v = 0; v < 3; ++v) b.record(v, later, voters[v].vote(kB, {0}, later));
  EXPECT_TRUE(a.held(0, later));
  EXPECT_FALSE(b.held(0, later));
  for (Promises& p : voters) p.ignore_promises = true;
  for (std::size_t v = 0; v < 3; ++v) b.record(v, later, voters[v].vote(kB, {0}, later));
  EXPECT_TRUE(a.held(0, later) && b.held(0, later));
}

TEST(LeaseWire, RoundTripsAndRefusesWhatItCannotRead) {
  const std::vector<std::uint8_t> request = encode_vote_request({at_ms(1234), 0xABCDEF});
  const auto r = decode_vote_request(request);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->asked, at_ms(1234));
  EXPECT_EQ(r->voters, 0xABCDEFu);
  const std::vector<std::uint8_t> vote = encode_vote({at_ms(5), {3, 1, 60}});
  const auto v = decode_vote(vote);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->shards, (std::vector<ShardId>{3, 1, 60}));
  const auto released = decode_release(encode_release({7}));
  ASSERT_TRUE(released.has_value());
  EXPECT_EQ(*released, std::vector<ShardId>{7});
  // Every proper prefix, and one byte too many, is refused, each by its
  // own decoder.
  for (std::size_t n = 0; n < request.size(); ++n) {
    EXPECT_FALSE(decode_vote_request(std::span<const std::uint8_t>(request.data(), n)).has_value()) << n;
  }
  for (std::size_t n = 0; n < vote.size(); ++n) {
    EXPECT_FALSE(decode_vote(std::span<const std::uint8_t>(vote.data(), n)).has_value()) << n;
  }
  std::vector<std::uint8_t> longer = vote;
  longer.push_back(0);
  EXPECT_FALSE(decode_vote(longer).has_value());
  std::vector<std::uint8_t> longer_request = request;
  longer_request.push_back(0);
  EXPECT_FALSE(decode_vote_request(longer_request).has_value());
  // A count no region sends is refused before anything is sized by it.
  std::vector<std::uint8_t> huge = {1, 0xff, 0xff, 0xff, 0xff};
  EXPECT_FALSE(decode_release(huge).has_value());
}

}  // namespace
}  // namespace weft::shard
