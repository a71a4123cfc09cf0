// A region routes entity messages and hosts its node's entities; the model
// is in region.hpp.
#include "shard/region.hpp"

#include <algorithm>
#include <utility>

#include "kernel/assert.hpp"

namespace weft::shard {

namespace {

constexpr std::uint32_t kPassivationTimer = 1;

void bump(std::uint64_t& field, Counter* metric) {
  ++field;
  if (metric != nullptr) metric->add();
}

std::span<const std::uint8_t> text_bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

}  // namespace

std::string_view to_string(StopReason reason) {
  switch (reason) {
    case StopReason::idle: return "idle";
    case StopReason::moved: return "moved";
  }
  return "invalid";
}

std::string_view to_string(Refusal refusal) {
  switch (refusal) {
    case Refusal::malformed: return "malformed";
    case Refusal::no_host: return "no_host";
    case Refusal::hop_limit: return "hop_limit";
    case Refusal::forward_failed: return "forward_failed";
    case Refusal::no_entity: return "no_entity";
  }
  return "invalid";
}

std::uint64_t RegionCounters::refused_total() const {
  std::uint64_t total = 0;
  for (const std::uint64_t n : refused) total += n;
  return total;
}

// The context an entity runs in: its region's, with the entity's asks
// remembered so their completions find it, and the region's own wake-ups
// (timers, member watches) withheld.
class Region::EntityContext final : public Context {
 public:
  EntityContext(Region& region, Context& outer, std::string_view key) : region_(region), outer_(outer), key_(key) {}

  const ActorRef& self() const override { return outer_.self(); }
  Instant now() const override { return outer_.now(); }
  SendResult tell(const ActorRef& target, std::uint32_t type_tag, std::span<const std::uint8_t> body) override {
    return outer_.tell(target, type_tag, body);
  }
  AskId ask(const ActorRef& target, std::uint32_t type_tag, std::span<const std::uint8_t> body,
            Duration timeout) override {
    const AskId id = outer_.ask(target, type_tag, body, timeout);
    region_.entity_asks_.emplace(id, std::string(key_));
    return id;
  }
  SendResult reply(std::uint32_t type_tag, std::span<const std::uint8_t> body) override {
    return outer_.reply(type_tag, body);
  }
  std::span<const Member> members() const override { return outer_.members(); }
  SendResult forward(const ActorRef& target, const Delivery& message, std::uint32_t type_tag,
                     std::span<const std::uint8_t> body) override {
    return outer_.forward(target, message, type_tag, body);
  }
  SendResult reply_to(const Delivery& asked, std::uint32_t type_tag, std::span<const std::uint8_t> body) override {
    return outer_.reply_to(asked, type_tag, body);
  }
  void start_timer(std::uint32_t, Duration) override { ++region_.counters_.unsupported_calls; }
  void cancel_timer(std::uint32_t) override { ++region_.counters_.unsupported_calls; }

 private:
  Region& region_;
  Context& outer_;
  std::string_view key_;
};

Region::Region(EntityKind kind) : kind_(std::move(kind)) {
  WEFT_ASSERT(!kind_.name.empty() && kind_.shards >= 1 && kind_.passivate_after > Duration::zero());
  WEFT_ASSERT(kind_.make != nullptr);
}

Region::~Region() = default;

void Region::export_metrics(Metrics& metrics, std::string_view actor) {
  const MetricLabels labels{{"actor", std::string(actor)}};
  auto with = [&](std::string_view key, std::string_view value) {
    MetricLabels l = labels;
    l.emplace_back(std::string(key), std::string(value));
    return l;
  };
  exported_.delivered = &metrics.counter("shard_delivered_total", "entity messages handed to an entity here", labels);
  exported_.forwarded = &metrics.counter("shard_forwarded_total", "entity messages handed on to the owner's region",
                                         labels);
  exported_.activated = &metrics.counter("shard_activated_total", "entities started here", labels);
  exported_.stopped_idle = &metrics.counter("shard_stopped_total", "entities stopped here, by reason",
                                            with("reason", "idle"));
  exported_.stopped_moved = &metrics.counter("shard_stopped_total", "entities stopped here, by reason",
                                             with("reason", "moved"));
  for (std::size_t i = 0; i < kRefusalCount; ++i) {
    exported_.refused[i] = &metrics.counter("shard_refused_total", "entity messages refused, by reason",
                                            with("reason", to_string(static_cast<Refusal>(i))));
  }
  exported_.active = &metrics.gauge("shard_active_entities", "entities active here", labels);
}

std::vector<std::string> Region::active_keys() const {
  std::vector<std::string> keys;
  keys.reserve(entities_.size());
  for (const auto& [key, active] : entities_) keys.push_back(key);
  return keys;
}

std::optional<NodeAddress> Region::owner(std::string_view key) const {
  if (owners_.empty()) return std::nullopt;
  return owners_[shard_of(kind_.name, key, kind_.shards)];
}

void Region::receive(Context& context, const Delivery& message) {
  if (!watching_) start_watching(context);
  switch (message.kind) {
    case DeliveryKind::tell:
    case DeliveryKind::ask:
      on_entity_message(context, message);
      break;
    case DeliveryKind::reply:
    case DeliveryKind::ask_timeout:
    case DeliveryKind::ask_target_down:
    case DeliveryKind::ask_rejected:
      on_completion(context, message);
      break;
    case DeliveryKind::members_changed:
      on_members_changed(context);
      break;
    case DeliveryKind::timer:
      if (message.type_tag == kPassivationTimer) on_passivation_timer(context);
      break;
  }
  if (exported_.active != nullptr) exported_.active->set(static_cast<double>(entities_.size()));
}

void Region::start_watching(Context& context) {
  watching_ = true;
  self_ = context.self().node;
  on_members_changed(context);
}

void Region::on_entity_message(Context& context, const Delivery& message) {
  if (message.type_tag != kEntityTag) return refuse(context, message, Refusal::malformed);
  const Decoded decoded = decode(message.body);
  if (!decoded.message) return refuse(context, message, Refusal::malformed);
  const EntityMessage& inner = *decoded.message;
  const std::optional<NodeAddress>& owner = owners_[shard_of(kind_.name, inner.key, kind_.shards)];
  if (!owner) return refuse(context, message, Refusal::no_host);
  if (*owner == self_) return deliver(context, message, inner);
  if (inner.hops >= kMaxHops) return refuse(context, message, Refusal::hop_limit);
  EntityMessage onward = inner;
  ++onward.hops;
  encode(onward, scratch_);
  if (context.forward(region_of(*owner, kind_.name), message, kEntityTag, scratch_) != SendResult::sent) {
    return refuse(context, message, Refusal::forward_failed);
  }
  bump(counters_.forwarded, exported_.forwarded);
}

void Region::deliver(Context& context, const Delivery& message, const EntityMessage& inner) {
  auto it = entities_.find(inner.key);
  if (it == entities_.end()) {
    std::unique_ptr<Entity> entity = kind_.make(inner.key);
    if (entity == nullptr) return refuse(context, message, Refusal::no_entity);
    it = entities_.emplace(std::string(inner.key), Active{std::move(entity), context.now()}).first;
    bump(counters_.activated, exported_.activated);
  }
  it->second.last_message = context.now();
  const Delivery unwrapped{message.kind, message.sender, message.correlation_id, inner.tag, inner.body};
  EntityContext entity_context(*this, context, it->first);
  // The entity may send to its own region, which only queues: `it` stays valid.
  it->second.entity->receive(entity_context, unwrapped);
  bump(counters_.delivered, exported_.delivered);
  if (!passivation_armed_) arm_passivation(context, context.now() + kind_.passivate_after);
}

void Region::refuse(Context& context, const Delivery& message, Refusal refusal) {
  const auto i = static_cast<std::size_t>(refusal);
  bump(counters_.refused[i], exported_.refused[i]);
  if (message.kind == DeliveryKind::ask) (void)context.reply(kRefusedTag, text_bytes(to_string(refusal)));
}

void Region::on_members_changed(Context& context) {
  const Placement placement(context.members());
  owners_.assign(kind_.shards, std::nullopt);
  for (ShardId shard = 0; shard < kind_.shards; ++shard) owners_[shard] = placement.owner(kind_.name, shard);
  for (auto it = entities_.begin(); it != entities_.end();) {
    const std::optional<NodeAddress>& owner = owners_[shard_of(kind_.name, it->first, kind_.shards)];
    it = (owner && *owner == self_) ? std::next(it) : stop(context, it, StopReason::moved);
  }
}

void Region::on_passivation_timer(Context& context) {
  passivation_armed_ = false;
  const Instant now = context.now();
  Instant earliest = Instant::never();
  for (auto it = entities_.begin(); it != entities_.end();) {
    const Instant due = it->second.last_message + kind_.passivate_after;
    if (due <= now) {
      it = stop(context, it, StopReason::idle);
    } else {
      earliest = std::min(earliest, due);
      ++it;
    }
  }
  if (earliest != Instant::never()) arm_passivation(context, earliest);
}

// One timer for all entities, never sooner than passivate_after / 8 from
// now, so a region of many entities idling at different times scans them a
// bounded number of times per passivate_after.
void Region::arm_passivation(Context& context, Instant earliest) {
  const Instant soonest = context.now() + kind_.passivate_after / 8;
  context.start_timer(kPassivationTimer, std::max(earliest, soonest) - context.now());
  passivation_armed_ = true;
}

void Region::on_completion(Context& context, const Delivery& message) {
  const auto asked = entity_asks_.find(message.correlation_id);
  if (asked == entity_asks_.end()) return;  // not an entity's: the region asks nothing itself
  const std::string key = std::move(asked->second);
  entity_asks_.erase(asked);
  const auto it = entities_.find(key);
  if (it == entities_.end()) {
    ++counters_.orphan_completions;
    return;
  }
  EntityContext entity_context(*this, context, it->first);
  it->second.entity->receive(entity_context, message);
}

Region::Entities::iterator Region::stop(Context& context, Entities::iterator it, StopReason reason) {
  EntityContext entity_context(*this, context, it->first);
  it->second.entity->stopping(entity_context, reason);
  if (reason == StopReason::idle) {
    bump(counters_.passivated, exported_.stopped_idle);
  } else {
    bump(counters_.moved, exported_.stopped_moved);
  }
  return entities_.erase(it);
}

}  // namespace weft::shard
