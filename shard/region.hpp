// A region: one per entity kind on every node (the actor "shard.<kind>"),
// which routes entity messages to the node that owns their shard and hosts
// the entities its node owns (issue 28; wip/SHARDING_PLAN.md).
//
// Model. Ownership is the node's own view, nothing more: a shard's owner is
// Placement's pick among the members up in this node's member table
// (shard/placement.hpp), recomputed whenever the table changes (the region
// watches it). Then, for an entity message (shard/envelope.hpp):
//   - owned here: the entity is started if it is not active (EntityKind::
//     make) and handed the message, with its sender and ask kept;
//   - owned elsewhere: forwarded to the owner's region (Context::forward:
//     the sender and the ask are kept, so the entity answers the asker
//     directly), unless it has been handed on kMaxHops times already;
//   - owned by no one (no member up), a hop too many, a malformed envelope,
//     an oversize key, a forward that failed, a kind that made no entity:
//     refused and counted by reason; an ask refused is answered at once
//     with kRefusedTag and the reason, so the asker need not time out.
// When the table changes, every active entity whose shard this view gives
// to another node (or to none) is stopped (Entity::stopping, reason moved):
// this is the AP mode's handoff. Two nodes whose views agree name the same
// owner, so they never both host an entity; nodes whose views disagree (a
// partition, a change still spreading) may, until their views agree again.
// An entity idle for passivate_after is stopped (reason idle) by a timer
// that fires no more often than every passivate_after / 8, so an idle
// entity goes between passivate_after and 1.125 times it.
//
// Determinism: entities are kept in key order and the region reads no
// clock but the context's, so a seed replays the same activations.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/metrics.hpp"
#include "kernel/actors/behavior.hpp"
#include "shard/entity.hpp"
#include "shard/envelope.hpp"
#include "shard/placement.hpp"

namespace weft::shard {

enum class Refusal : std::uint8_t {
  malformed,       // not an entity envelope (wrong tag, or it did not decode)
  no_host,         // no member is up in this node's view
  hop_limit,       // handed on kMaxHops times: the views on its way disagree
  forward_failed,  // the owner could not be sent to (down, outbound full, ...)
  no_entity,       // EntityKind::make returned none
};
inline constexpr std::size_t kRefusalCount = 5;
std::string_view to_string(Refusal refusal);

struct RegionCounters {
  std::uint64_t delivered = 0;   // messages handed to an entity here
  std::uint64_t forwarded = 0;   // messages handed on to the owner's region
  std::uint64_t activated = 0;   // entities started
  std::uint64_t passivated = 0;  // entities stopped idle
  std::uint64_t moved = 0;       // entities stopped because their shard moved
  std::array<std::uint64_t, kRefusalCount> refused{};
  std::uint64_t orphan_completions = 0;  // an entity's ask completed after it stopped
  std::uint64_t unsupported_calls = 0;   // an entity's timer or watch call (entity.hpp)
  std::uint64_t refused_total() const;
};

class Region final : public Behavior, public ExportsMetrics {
 public:
  explicit Region(EntityKind kind);
  ~Region() override;

  void receive(Context& context, const Delivery& message) override;
  bool watches_members() const override { return true; }
  void export_metrics(Metrics& metrics, std::string_view actor) override;

  const EntityKind& kind() const { return kind_; }
  const RegionCounters& counters() const { return counters_; }
  // The keys of the entities active here, in key order.
  std::vector<std::string> active_keys() const;
  bool hosts(std::string_view key) const { return entities_.find(key) != entities_.end(); }
  std::size_t active() const { return entities_.size(); }
  // The owner of `key`'s shard in the view this region last read; none
  // before its first message or with no member up.
  std::optional<NodeAddress> owner(std::string_view key) const;

 private:
  class EntityContext;
  struct Active {
    std::unique_ptr<Entity> entity;
    Instant last_message;
  };
  using Entities = std::map<std::string, Active, std::less<>>;

  void start_watching(Context& context);
  void on_entity_message(Context& context, const Delivery& message);
  void deliver(Context& context, const Delivery& message, const EntityMessage& inner);
  void refuse(Context& context, const Delivery& message, Refusal refusal);
  void on_members_changed(Context& context);
  void on_passivation_timer(Context& context);
  void arm_passivation(Context& context, Instant earliest);
  void on_completion(Context& context, const Delivery& message);
  Entities::iterator stop(Context& context, Entities::iterator it, StopReason reason);

  EntityKind kind_;
  bool watching_ = false;
  NodeAddress self_;
  std::vector<std::optional<NodeAddress>> owners_;  // per shard, from the last view read
  Entities entities_;
  std::map<AskId, std::string> entity_asks_;  // asks entities made, to route their completions
  bool passivation_armed_ = false;
  RegionCounters counters_;
  std::vector<std::uint8_t> scratch_;  // a forwarded envelope, re-encoded
  // Exported counters (export_metrics), nullptr when no host gave a registry.
  struct Exported {
    Counter* delivered = nullptr;
    Counter* forwarded = nullptr;
    Counter* activated = nullptr;
    Counter* stopped_idle = nullptr;
    Counter* stopped_moved = nullptr;
    std::array<Counter*, kRefusalCount> refused{};
    Gauge* active = nullptr;
  };
  Exported exported_;
};

}  // namespace weft::shard
