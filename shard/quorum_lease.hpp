// The majority mode's leases (issue 28: "never two hosts at any instant"),
// two value types: the promises a voter keeps, and the votes a host holds.
//
// Model. A fixed set of voters (by default every node's seeds, the same
// list everywhere) grants hosting per shard. A region that wants to host
// asks every voter for a vote, stamping the request with its own clock (t).
// A voter answers with the shards its own view gives the asker, and for
// each such shard promises, on its clock, to name no other owner for
// `promise` (below); a shard it has promised another node it leaves out.
// The asker holds a shard while a majority of voters' answers to requests
// it stamped less than `lease` ago (on its clock) name it: a lease.
//
// Why no two regions hold one shard at once. Two majorities share a voter,
// which named both within `promise` of each other only if one promise had
// ended. A lease counted from t ends, in real time, at most lease / (1 - r)
// after t (r: the clocks' drift bound); the voter answered after t and kept
// its promise at least promise / (1 + r) past that; promise =
// lease (1 + r) / (1 - r) makes the second never the shorter. So when the
// voter names another owner, the first lease has ended: views, downs,
// pauses and message delays cannot shorten that; they only delay the next
// lease. A voter that starts (a restart forgot its promises) names no one
// for promise (1 + r) / (1 - r), outlasting every promise its earlier life
// made. A host that hands a shard over tells the voters it releases it and
// drops the votes it held for it, so the next owner need not wait the
// promise out; votes to requests made before that are not counted for it.
//
// Pure state: instants come from the caller, shards are indices, voters are
// ordered addresses.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "kernel/ids.hpp"
#include "kernel/time.hpp"
#include "shard/placement.hpp"

namespace weft::shard {

struct LeaseTimes {
  Duration lease;    // how long a vote counts for, from the request, on the asker's clock
  Duration promise;  // how long a voter names no other owner, on its clock
  Duration quiet;    // how long a started voter names no owner at all
};
// `lease` and a drift bound in parts per million (below 1,000,000).
LeaseTimes lease_times(Duration lease, std::uint32_t max_drift_ppm);

// The voter's side.
class Promises {
 public:
  Promises(std::uint32_t shards, Instant started, const LeaseTimes& times);

  // A vote for `asker` at `now`: of `named` (the shards the voter's view
  // gives the asker), those no other node holds a promise for, each now
  // promised to the asker. None while the voter is quiet.
  std::vector<ShardId> vote(const NodeAddress& asker, const std::vector<ShardId>& named, Instant now);
  // `from` releases `shards`: its promises for them end.
  void release(const NodeAddress& from, const std::vector<ShardId>& shards);
  // A planted defect: votes name whatever the view says, promises or not.
  bool ignore_promises = false;

 private:
  struct Promise {
    std::optional<NodeAddress> to;
    Instant until;
  };
  std::vector<Promise> promised_;  // per shard
  Instant quiet_until_;
  LeaseTimes times_;
};

// The host's side.
class Leases {
 public:
  Leases(std::uint32_t shards, std::size_t voters, const LeaseTimes& times);

  // Voter `voter` (its index among the voters) answered a request stamped
  // `asked` naming `shards`. An answer to an older request than one already
  // held from that voter is ignored.
  void record(std::size_t voter, Instant asked, const std::vector<ShardId>& shards);
  // Forgets every vote held for `shard` (this node released it): only
  // answers to requests stamped after `now` count for it again.
  void drop(ShardId shard, Instant now);
  bool held(ShardId shard, Instant now) const { return until_[shard] > now; }
  // When the lease on `shard` ends (in the past if not held).
  Instant until(ShardId shard) const { return until_[shard]; }
  std::size_t majority() const { return majority_; }

 private:
  void recompute(ShardId shard);
  struct Answer {
    std::optional<Instant> asked;  // none: no answer yet
    std::vector<bool> names;           // per shard
  };
  std::vector<Answer> answers_;          // per voter
  std::vector<Instant> dropped_at_;      // per shard: answers to requests before this do not count
  std::vector<Instant> until_;           // per shard
  std::size_t majority_;
  LeaseTimes times_;
};

}  // namespace weft::shard
