// The sharded counter as entities (issue 28): one entity per key, of kind
// "counter", hosted wherever the view places its shard, its count carried
// to the new owner when the shard moves (Entity::hand_over / take_over).
// User code: it depends on kernel/, typed/ and shard/ headers only, and
// runs unchanged in weft-entities-sim and weft-entitiesd.
//
// Protocol (typed, MessagePack bodies), by shard::ask to EntityRef{"counter",
// the key in decimal}:
//   ask Add{key, client, seq}  -> adds 1, replies Value{key, new count}
//   tell Add{key, client, seq} -> adds 1
//   ask Get{key}               -> replies Value{key, count}
//   any other ask, or one whose body does not decode, is answered BadRequest;
//   any other tell is dropped.
// `client` names the asking process (its node and life) and `seq` counts
// that client's Adds to the key: the entity remembers the highest seq per
// client and notes any Add that arrives after a higher one (breaks()),
// which is what the simulator's ORDER property reads. Counts live in
// memory: a crash of the host loses them, and passivation would too, so
// this kind never passivates (passivate_after one day).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "shard/entity.hpp"
#include "typed/typed.hpp"

namespace weft::entities {

inline constexpr std::string_view kKind = "counter";
// The same counter under the majority mode (docs/sharding.md, "Split brain").
inline constexpr std::string_view kMajorityKind = "counter_majority";

struct Add {
  std::uint64_t key = 0;
  std::uint32_t client = 0;
  std::uint64_t seq = 0;
  MSGPACK_DEFINE(key, client, seq)
};
struct Get {
  std::uint64_t key = 0;
  MSGPACK_DEFINE(key)
};
struct Value {
  std::uint64_t key = 0;
  std::uint64_t count = 0;
  MSGPACK_DEFINE(key, count)
};
struct BadRequest {
  std::string reason;
  MSGPACK_DEFINE(reason)
};
using Protocol = typed::Protocol<typed::Message<Add, 1>, typed::Message<Get, 2>, typed::Message<Value, 3>,
                                 typed::Message<BadRequest, 4>>;

// One client's Add that arrived after a later one of that client.
struct OrderBreak {
  std::uint32_t client = 0;
  std::uint64_t seq = 0;    // the Add that came late
  std::uint64_t after = 0;  // the highest seq seen before it
  MSGPACK_DEFINE(client, seq, after)
};

// What travels in a handoff.
struct CounterState {
  std::uint64_t count = 0;
  std::map<std::uint32_t, std::uint64_t> last_seq;  // per client
  std::vector<OrderBreak> breaks;                   // the first kMaxBreaks, in order
  MSGPACK_DEFINE(count, last_seq, breaks)
};
inline constexpr std::size_t kMaxBreaks = 16;

class CounterEntity final : public shard::Entity {
 public:
  explicit CounterEntity(std::uint64_t key) : key_(key) {}

  void receive(Context& context, const Delivery& message) override;
  bool hand_over(std::vector<std::uint8_t>& state) override;
  void take_over(std::span<const std::uint8_t> state) override;

  std::uint64_t count() const { return state_.count; }
  // Empty while every client's Adds arrived in the order it sent them.
  const std::vector<OrderBreak>& breaks() const { return state_.breaks; }

 private:
  std::uint64_t key_;
  CounterState state_;
};

// The kind, for region_actor (shard/region_actor.hpp): kKind in the
// available mode, kMajorityKind in the majority mode (the node's seeds vote).
shard::EntityKind counter_kind(shard::Consistency consistency = shard::Consistency::available);

}  // namespace weft::entities
