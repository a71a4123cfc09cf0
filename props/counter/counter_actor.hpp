// A worked example of user code: a counter sharded by key across the nodes.
//
// This file depends only on kernel/ headers. It is what a user would write
// and what weftd hosts: a Behavior, registered on each node under the name
// kShardName, that owns the counts of the keys mapped to its node. The
// simulator runs exactly this code (props/counter/counter_workload.hpp).
//
// Protocol (every body is little-endian u64s, 8 bytes each):
//   ask  kIncrement  body: key        -> adds 1 to key's count, then replies
//                                        kValue with the new count (the ack)
//   ask  kRead       body: key        -> replies kValue with key's count
//                                        (0 for a key never incremented)
//   any other tag, or a body that is not one u64 -> replies kBadRequest
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
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "kernel/actors/behavior.hpp"

namespace weft::counter {

inline constexpr std::string_view kShardName = "counter";

inline constexpr std::uint32_t kIncrement = 1;
inline constexpr std::uint32_t kRead = 2;
inline constexpr std::uint32_t kValue = 3;
inline constexpr std::uint32_t kBadRequest = 4;

// The 1-based node that owns `key` among `nodes` nodes.
std::size_t owner(std::uint64_t key, std::size_t nodes);

std::vector<std::uint8_t> encode_u64(std::uint64_t value);
// The value of an 8-byte body; nothing for any other size.
std::optional<std::uint64_t> decode_u64(std::span<const std::uint8_t> body);

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

class CounterShard final : public Behavior {
 public:
  explicit CounterShard(Flaw flaw = Flaw::none) : flaw_(flaw) {}

  void receive(Context& context, const Delivery& message) override;

  // The count of one key (0 if never incremented), and all of them.
  std::uint64_t value(std::uint64_t key) const;
  const std::map<std::uint64_t, std::uint64_t>& values() const { return counts_; }
  std::uint64_t increments_applied() const { return applied_; }

 private:
  Flaw flaw_;
  std::map<std::uint64_t, std::uint64_t> counts_;
  std::map<std::uint64_t, Instant> last_increment_;  // used by the flaw only
  std::uint64_t applied_ = 0;
};

}  // namespace weft::counter
