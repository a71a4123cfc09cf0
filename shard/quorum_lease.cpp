// Leases of the majority mode; the model and the argument are in
// quorum_lease.hpp.
#include "shard/quorum_lease.hpp"

#include <algorithm>
#include <functional>

#include "kernel/assert.hpp"

namespace weft::shard {

namespace {

// `d` stretched by the worst ratio of two clocks' rates, (1 + r) / (1 - r),
// rounded up, plus a millisecond so that equal instants never meet.
Duration stretched(Duration d, std::uint32_t ppm) {
  const std::int64_t up = 1'000'000 + static_cast<std::int64_t>(ppm);
  const std::int64_t down = 1'000'000 - static_cast<std::int64_t>(ppm);
  const std::int64_t ns = (d.ns() / down) * up + ((d.ns() % down) * up + down - 1) / down;
  return Duration::nanoseconds(ns) + Duration::milliseconds(1);
}

}  // namespace

LeaseTimes lease_times(Duration lease, std::uint32_t max_drift_ppm) {
  WEFT_ASSERT(lease > Duration::zero() && max_drift_ppm < 1'000'000);
  const Duration promise = stretched(lease, max_drift_ppm);
  return LeaseTimes{lease, promise, stretched(promise, max_drift_ppm)};
}

Promises::Promises(std::uint32_t shards, Instant started, const LeaseTimes& times)
    : promised_(shards), quiet_until_(started + times.quiet), times_(times) {}

std::vector<ShardId> Promises::vote(const NodeAddress& asker, const std::vector<ShardId>& named, Instant now) {
  std::vector<ShardId> granted;
  if (now < quiet_until_ && !ignore_promises) return granted;
  for (const ShardId shard : named) {
    Promise& p = promised_[shard];
    if (p.to && *p.to != asker && now < p.until && !ignore_promises) continue;
    p.to = asker;
    p.until = now + times_.promise;
    granted.push_back(shard);
  }
  return granted;
}

void Promises::release(const NodeAddress& from, const std::vector<ShardId>& shards) {
  for (const ShardId shard : shards) {
    if (shard < promised_.size() && promised_[shard].to == from) promised_[shard].to.reset();
  }
}

Leases::Leases(std::uint32_t shards, std::size_t voters, const LeaseTimes& times)
    : answers_(voters), dropped_at_(shards), until_(shards), majority_(voters / 2 + 1), times_(times) {
  for (Answer& a : answers_) a.names.assign(shards, false);
}

void Leases::record(std::size_t voter, Instant asked, const std::vector<ShardId>& shards) {
  Answer& a = answers_.at(voter);
  if (a.asked && *a.asked > asked) return;
  a.asked = asked;
  std::fill(a.names.begin(), a.names.end(), false);
  for (const ShardId shard : shards) {
    if (shard < a.names.size() && asked >= dropped_at_[shard]) a.names[shard] = true;
  }
  for (ShardId shard = 0; shard < until_.size(); ++shard) recompute(shard);
}

void Leases::drop(ShardId shard, Instant now) {
  // Strictly after `now`: a request stamped at this very instant may have
  // been answered before the release reached its voter.
  dropped_at_[shard] = now + Duration::nanoseconds(1);
  for (Answer& a : answers_) a.names[shard] = false;
  until_[shard] = Instant();
}

// The lease ends when the majority-th latest of the answers naming the
// shard runs out.
void Leases::recompute(ShardId shard) {
  std::vector<Instant> ends;
  for (const Answer& a : answers_) {
    if (a.asked && a.names[shard]) ends.push_back(*a.asked + times_.lease);
  }
  if (ends.size() < majority_) {
    until_[shard] = Instant();
    return;
  }
  std::nth_element(ends.begin(), ends.begin() + static_cast<std::ptrdiff_t>(majority_ - 1), ends.end(),
                   std::greater<>());
  until_[shard] = ends[majority_ - 1];
}

}  // namespace weft::shard
