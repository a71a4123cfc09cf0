// A worked example of user code: a counter sharded by key across the nodes.
//
// This file depends only on kernel/ and typed/ headers. It is what a user would write
// and what weftd hosts: a Behavior, registered on each node under the name
// kShardName, that owns the counts of the keys mapped to its node. The
// simulator runs exactly this code (props/counter/counter_workload.hpp).
//
// Protocol: typed messages (typed/typed.hpp), MessagePack bodies declared
// below, under the tags CounterProtocol gives them:
//   ask  Increment{key}   -> adds 1 to key's count, then replies
//                            Value{key, new count} (the ack)
//   ask  Read{key}        -> replies Value{key, count} (0 for a key never
//                            incremented)
//   an ask with any other tag, or a body that does not decode, is a typed
//   dead letter of the shard (counted), answered BadRequest{reason};
//   tells are ignored: both operations need an answer.
//
// Sharding: key k is owned by the shard on node owner(k, n) = k mod n + 1,
// over the initial node list numbered 1..n (a deployment lists its nodes in
// one fixed order; the simulator numbers them 1..n). The mapping is static:
// it does not follow membership, so while a key's owner is down its key is
// unavailable rather than moved, and a restarted owner starts from zero
// (the counts live in memory only). Clients route an ask for key k to
// ActorRef{address of node owner(k), kShardName}; the shard itself accepts
// any key it is sent.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "typed/typed.hpp"

namespace weft::counter {

inline constexpr std::string_view kShardName = "counter";

struct Increment {
  std::uint64_t key = 0;
  MSGPACK_DEFINE(key)
};
struct Read {
  std::uint64_t key = 0;
  MSGPACK_DEFINE(key)
};
// The key comes back with its count, so a client can tell an answer meant
// for another of its asks from its own.
struct Value {
  std::uint64_t key = 0;
  std::uint64_t count = 0;
  MSGPACK_DEFINE(key, count)
};
struct BadRequest {
  std::string reason;  // the typed dead letter's reason
  MSGPACK_DEFINE(reason)
};

// The tags the untyped counter used, kept, so its wire format changed only
// in the bodies.
using CounterProtocol = typed::Protocol<typed::Message<Increment, 1>, typed::Message<Read, 2>,
                                        typed::Message<Value, 3>, typed::Message<BadRequest, 4>>;

// The 1-based node that owns `key` among `nodes` nodes.
std::size_t owner(std::uint64_t key, std::size_t nodes);

// Defects planted on purpose, to show the counter's property catches them.
enum class Flaw : std::uint8_t {
  none,
  // Treats an increment of a key that arrives at the same instant as the
  // previous increment of that key as a retried duplicate: acknowledges it
  // (with the current count) without applying it. A plausible "dedupe
  // retries" bug; it only bites when increments arrive in a burst, which
  // happens after a pause, a healed cut or a latency spike, so it takes a
  // fault to expose it.
  coalesce_same_instant,
};

// Its metrics, when a host gives it a registry (app/metrics.hpp; the
// daemon's /metrics, the simulator's --json):
//   counter_increments_applied_total   increments this node's shard applied
//   counter_keys                       keys it holds a count for
//   counter_count_at_increment         the count an increment left (a
//                                      histogram, buckets 1, 10, 100, 1000)
class CounterShard final : public typed::TypedBehavior<CounterProtocol> {
 public:
  explicit CounterShard(Flaw flaw = Flaw::none, Metrics* metrics = nullptr);

  // The count of one key (0 if never incremented), and all of them.
  std::uint64_t value(std::uint64_t key) const;
  const std::map<std::uint64_t, std::uint64_t>& values() const { return counts_; }
  std::uint64_t increments_applied() const { return applied_; }

 private:
  void increment(Ctx& context, const Increment& message);

  Flaw flaw_;
  Counter* applied_metric_ = nullptr;
  Gauge* keys_metric_ = nullptr;
  Histogram* count_metric_ = nullptr;
  std::map<std::uint64_t, std::uint64_t> counts_;
  std::map<std::uint64_t, Instant> last_increment_;  // used by the flaw only
  std::uint64_t applied_ = 0;
};

}  // namespace weft::counter
