// A region routes entity messages and hosts its node's entities; the model
// is in region.hpp. The view and handoffs are in region_moves.cpp.
#include "shard/region.hpp"

#include <algorithm>
#include <utility>

#include "kernel/assert.hpp"

namespace weft::shard {

namespace {

constexpr std::uint32_t kPassivationTimer = 1;
constexpr std::uint32_t kOrderTimer = 2;  // handoff waits and reorder gaps
constexpr std::uint32_t kQueryTimer = 3;  // asks again, while waiting, for the awaited HandoffDone
constexpr Duration kQueryInterval = Duration::milliseconds(500);

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
    case StopReason::no_lease: return "no_lease";
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
    case Refusal::buffer_full: return "buffer_full";
    case Refusal::out_of_order: return "out_of_order";
    case Refusal::stale_source: return "stale_source";
  }
  return "invalid";
}

std::uint64_t RegionCounters::refused_total() const {
  std::uint64_t total = 0;
  for (const std::uint64_t n : refused) total += n;
  return total;
}

// The context an entity runs in: its region's, answering the entity's own
// message (which may be a copy the region kept, not the region's current
// delivery), with the entity's asks remembered so their completions find
// it, and its timers kept apart from the region's.
class Region::EntityContext final : public Context {
 public:
  EntityContext(Region& region, Context& outer, std::string_view key, const Delivery* handled)
      : region_(region), outer_(outer), key_(key), handled_(handled) {}

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
  AskId ask_reporting(const ActorRef& target, std::uint32_t type_tag, std::span<const std::uint8_t> body,
                      Duration timeout, SendResult& sent) override {
    const AskId id = outer_.ask_reporting(target, type_tag, body, timeout, sent);
    region_.entity_asks_.emplace(id, std::string(key_));
    return id;
  }
  SendResult reply(std::uint32_t type_tag, std::span<const std::uint8_t> body) override {
    return outer_.reply_to(handled_ != nullptr ? *handled_ : Delivery{}, type_tag, body);
  }
  SendResult reply_to(const Delivery& asked, std::uint32_t type_tag, std::span<const std::uint8_t> body) override {
    return outer_.reply_to(asked, type_tag, body);
  }
  std::span<const Member> members() const override { return outer_.members(); }
  Behavior* local_behavior(std::string_view name) const override { return outer_.local_behavior(name); }
  SendResult forward(const ActorRef& target, const Delivery& message, std::uint32_t type_tag,
                     std::span<const std::uint8_t> body) override {
    return outer_.forward(target, message, type_tag, body);
  }
  void start_timer(std::uint32_t tag, Duration after) override {
    region_.start_entity_timer(outer_, key_, tag, after);
  }
  void cancel_timer(std::uint32_t tag) override { region_.cancel_entity_timer(outer_, key_, tag); }

 private:
  Region& region_;
  Context& outer_;
  std::string_view key_;
  const Delivery* handled_;  // the entity's message; nullptr outside one
};

Region::Region(EntityKind kind)
    : kind_(std::move(kind)),
      shard_map_(kind_.name, kind_.shards),
      next_number_(kind_.shards, 1),
      last_queued_(kind_.shards, 0),
      entities_(shard_map_.seed()),
      missed_(kind_.shards, 0) {
  WEFT_ASSERT(!kind_.name.empty() && kind_.shards >= 1 && kind_.passivate_after > Duration::zero());
  WEFT_ASSERT(kind_.handoff_timeout > Duration::zero() && kind_.reorder_wait > Duration::zero());
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
  Exported& e = exported_;
  e.delivered = &metrics.counter("shard_delivered_total", "entity messages handed to an entity here", labels);
  e.forwarded = &metrics.counter("shard_forwarded_total", "entity messages handed on to the owner's region", labels);
  e.activated = &metrics.counter("shard_activated_total", "entities started here on a message", labels);
  e.stopped_idle = &metrics.counter("shard_stopped_total", "entities stopped here, by reason", with("reason", "idle"));
  e.stopped_moved = &metrics.counter("shard_stopped_total", "entities stopped here, by reason", with("reason", "moved"));
  e.stopped_no_lease =
      &metrics.counter("shard_stopped_total", "entities stopped here, by reason", with("reason", "no_lease"));
  e.handed_out = &metrics.counter("shard_handed_out_total", "entities whose state went to a new owner", labels);
  e.handed_in = &metrics.counter("shard_handed_in_total", "entities restored here from a handoff", labels);
  for (std::size_t i = 0; i < kRefusalCount; ++i) {
    e.refused[i] = &metrics.counter("shard_refused_total", "entity messages refused, by reason",
                                    with("reason", to_string(static_cast<Refusal>(i))));
  }
  e.active = &metrics.gauge("shard_active_entities", "entities active here", labels);
  e.kept = &metrics.gauge("shard_kept_messages", "messages kept awaiting a handoff or a gap", labels);
}

void Region::note_missed(ShardId shard) {
  if (shard < missed_.size()) ++missed_[shard];
}

std::vector<std::string> Region::active_keys() const {
  std::vector<std::string> keys;
  keys.reserve(entities_.size());
  for (const auto& [key, active] : entities_) keys.push_back(key);
  return keys;
}

const Entity* Region::entity(std::string_view key) const {
  const auto it = entities_.find(key);
  return it == entities_.end() ? nullptr : it->second.entity.get();
}

std::optional<NodeAddress> Region::owner(std::string_view key) const { return owner_of_shard(shard_of_key(key)); }

// A reference: the simulator's checks read every key's owner on every node
// after every input.
const std::optional<NodeAddress>& Region::owner_of_shard(ShardId shard) const {
  static const std::optional<NodeAddress> none;
  if (owners_.empty() || shard >= owners_.size()) return none;
  return owners_[shard];
}

bool Region::serves_shard(ShardId shard, Instant now) const {
  if (owners_.empty() || shard >= owners_.size()) return false;
  if (owners_[shard] != self_ || !may_serve(shard, now)) return false;
  const auto inbox = inboxes_.find(shard);
  return inbox == inboxes_.end() || !inbox->second.awaiting();
}

std::size_t Region::kept() const {
  std::size_t n = 0;
  for (const auto& [shard, inbox] : inboxes_) n += inbox.kept();
  for (const auto& [shard, messages] : unleased_) n += messages.size();
  return n;
}

ShardId Region::shard_of_key(std::string_view key) const { return shard_map_.shard_of(key); }

void Region::receive(Context& context, const Delivery& message) {
  // A region reads its first view from the members_changed its spawn queues;
  // one handed a message before that (a test calling receive() by hand)
  // reads it now.
  if (!read_a_view_ && message.kind != DeliveryKind::members_changed) read_view(context);
  // The region runs: the tells batched since it last ran go first, ahead of
  // anything this run sends (shard/entity_batch.hpp).
  if (!open_batches_.empty()) send_batches(context);
  // A lease that ran out while nothing arrived (a pause) ends before
  // anything else is handled, a vote that would renew it included: the
  // entities that served under it may have been hosted elsewhere since.
  if (leases_ && context.now() >= next_lapse_) check_lapses(context);
  switch (message.kind) {
    case DeliveryKind::tell:
    case DeliveryKind::ask:
      if (message.type_tag == kHandoffEntityTag) {
        on_handoff_entity(context, message);
      } else if (message.type_tag == kHandoffDoneTag) {
        on_handoff_done(context, message);
      } else if (message.type_tag == kHandoffQueryTag) {
        on_handoff_query(context, message);
      } else if (message.type_tag == kVoteRequestTag) {
        on_vote_request(context, message);
      } else if (message.type_tag == kVoteTag) {
        on_vote(context, message);
      } else if (message.type_tag == kReleaseTag) {
        on_release(context, message);
      } else if (message.type_tag == kEntityBatchTag) {
        on_entity_batch(context, message);
      } else if (message.type_tag == kFlushTag) {
        flush_queued_ = false;  // the batches went above
      } else {
        on_entity_message(context, message, true);
      }
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
      if (message.type_tag == kOrderTimer) on_order_timer(context);
      if (message.type_tag == kQueryTimer) query_awaited(context);
      if (message.type_tag == kVoteTimer) ask_votes(context);
      if (message.type_tag == kLapseTimer && leases_) check_lapses(context);
      if (message.type_tag == kEntityTimer) on_entity_timer(context);
      break;
  }
  if (exported_.active != nullptr) exported_.active->set(static_cast<double>(entities_.size()));
  // Summing the inboxes on every message would put a loop on the hot path:
  // the gauge is read again only after something that may change it.
  const bool plain = (message.kind == DeliveryKind::tell || message.kind == DeliveryKind::ask) &&
                     (message.type_tag == kEntityTag || message.type_tag == kEntityBatchTag ||
                      message.type_tag == kFlushTag) &&
                     !kept_changed_;
  if (exported_.kept != nullptr && !plain) exported_.kept->set(static_cast<double>(kept()));
  kept_changed_ = false;
}

void Region::on_entity_message(Context& context, const Delivery& message, bool from_mailbox) {
  if (message.type_tag != kEntityTag) return refuse(context, message, Refusal::malformed);
  const Decoded decoded = decode(message.body);
  if (!decoded.message) return refuse(context, message, Refusal::malformed);
  route(context, message, *decoded.message, from_mailbox);
}

// Each entry as the stamped envelope it stands for (hops 1, its sender
// kept); a batch that does not decode is refused whole, one count.
void Region::on_entity_batch(Context& context, const Delivery& message) {
  if (message.kind != DeliveryKind::tell || !decode_batch(message.body, incoming_)) {
    return refuse(context, message, Refusal::malformed);
  }
  const DecodedBatch& batch = incoming_;  // no entry reaches this receive again: the kernel runs one at a time
  for (const BatchEntry& entry : batch.entries) {
    const Delivery one{DeliveryKind::tell, ActorRefView{batch.host, batch.port, entry.sender}, 0, kEntityTag, {}};
    EntityMessage inner{1, entry.tag, entry.key, entry.body, Stamp{batch.host, batch.port, batch.life, entry.number}};
    if (kind_.mutations.batch_skips_inbox && owners_[shard_of_key(inner.key)] == self_) {
      deliver(context, one, inner, shard_map_.hash(inner.key));
      continue;
    }
    route(context, one, inner, false);
  }
}

void Region::route(Context& context, const Delivery& message, EntityMessage inner, bool from_mailbox) {
  const std::uint64_t hash = shard_map_.hash(inner.key);
  const ShardId shard = shard_map_.shard_of_hash(hash);
  // One of this node's, numbered as it was sent (route_here): once the
  // latest of them is out of the mailbox, tells may go straight again.
  const bool sent_here = from_mailbox && inner.hops == 0 && inner.stamp && inner.stamp->port == self_.port &&
                         inner.stamp->host == self_.host && inner.stamp->life == self_life_;
  if (sent_here && last_queued_[shard] == inner.stamp->number) last_queued_[shard] = 0;
  const bool entering = !inner.stamp.has_value();
  // No number is skipped for a message that never left, if none was given
  // after it.
  const auto give_back = [&] {
    if (entering || (sent_here && inner.stamp->number + 1 == next_number_[shard])) --next_number_[shard];
  };
  const std::optional<NodeAddress>& owner = owners_[shard];
  if (entering) inner.stamp = Stamp{self_.host, self_.port, self_life_, next_number_[shard]++};
  if (!owner) {
    give_back();
    return refuse(context, message, Refusal::no_host);
  }
  if (straight_[shard] == nullptr) return host(context, message, inner, shard, hash);  // owned here
  if (inner.hops >= kMaxHops) {
    give_back();
    return refuse(context, message, Refusal::hop_limit);
  }
  ++inner.hops;
  // Numbered just now, after anything this run batched for the owner (an
  // entity stopped by a lapsed lease may have told the shard): the batch
  // goes first.
  if (entering) send_batch_before(context, shard);
  encode(inner, scratch_);
  if (context.forward(*straight_[shard], message, kEntityTag, scratch_) != SendResult::sent) {
    give_back();
    return refuse(context, message, Refusal::forward_failed);
  }
  bump(counters_.forwarded, exported_.forwarded);
}

void Region::host(Context& context, const Delivery& message, const EntityMessage& inner, ShardId shard,
                  std::uint64_t hash) {
  ShardInbox& inbox = inboxes_[shard];
  if (inbox.awaiting()) return keep(context, message, inner, shard);
  if (!may_serve(shard, context.now())) return keep_unleased(context, message, inner, shard);
  if (kind_.mutations.unordered) return deliver(context, message, inner, hash);
  if (!kind_.mutations.keep_stale && stale(*inner.stamp)) return refuse(context, message, Refusal::stale_source);
  switch (inbox.admit(SourceView{inner.stamp->host, inner.stamp->port, inner.stamp->life}, inner.stamp->number)) {
    case ShardInbox::Admit::now:
      deliver(context, message, inner, hash);
      if (inbox.holding()) release_ready(context, inbox);
      break;
    case ShardInbox::Admit::hold:
      keep(context, message, inner, shard);
      break;
    case ShardInbox::Admit::late:
      refuse(context, message, Refusal::out_of_order);
      break;
  }
}

// A copy of an entity message with its stamp (the envelope re-encoded), to
// keep and offer again later with its sender and ask.
MailboxSlot Region::copy_of(const Delivery& message, const EntityMessage& inner) {
  encode(inner, scratch_);
  MailboxSlot copy;
  copy.fill(Delivery{message.kind, message.sender, message.correlation_id, kEntityTag, scratch_});
  return copy;
}

// Keeps a copy of the message with its stamp, for the inbox to hand on when
// the wait or the gap ends.
void Region::keep(Context& context, const Delivery& message, const EntityMessage& inner, ShardId shard) {
  if (kept() >= kind_.buffer_capacity) return refuse(context, message, Refusal::buffer_full);
  MailboxSlot copy = copy_of(message, inner);
  ShardInbox& inbox = inboxes_[shard];
  if (inbox.awaiting()) {
    inbox.keep_waiting(copy);
  } else {
    const Source source{std::string(inner.stamp->host), inner.stamp->port, inner.stamp->life};
    if (!inbox.hold(source, inner.stamp->number, copy, context.now())) {
      return refuse(context, message, Refusal::out_of_order);  // that number is held already
    }
  }
  kept_changed_ = true;
  arm_order_timer(context);
}

void Region::release_ready(Context& context, ShardInbox& inbox) {
  std::vector<MailboxSlot> ready;
  std::vector<MailboxSlot> late;
  inbox.take_ready(ready, late);
  kept_changed_ = kept_changed_ || !ready.empty() || !late.empty();
  for (MailboxSlot& slot : late) refuse(context, slot.view(), Refusal::out_of_order);
  for (MailboxSlot& slot : ready) {
    const Delivery kept = slot.view();
    const Decoded decoded = decode(kept.body);
    WEFT_ASSERT(decoded.message.has_value());  // encoded by keep()
    deliver(context, kept, *decoded.message, entities_.hash(decoded.message->key));
  }
}

// A wait ends (the handoff came, its sender is gone, or time is up): the
// messages kept meanwhile are offered again, in arrival order, each through
// routing once more, since the view may have moved meanwhile.
void Region::end_wait(Context& context, ShardId shard, ShardInbox& inbox, const ShardInbox::Numbering& handed) {
  std::deque<MailboxSlot> kept = inbox.end_wait(handed);
  restore_set_aside(context, shard);  // before the kept messages reach the keys
  for (MailboxSlot& slot : kept) on_entity_message(context, slot.view());
}

void Region::deliver(Context& context, const Delivery& message, const EntityMessage& inner, std::uint64_t hash) {
  auto it = entities_.find(inner.key, hash);
  if (it == entities_.end()) {
    std::unique_ptr<Entity> entity = kind_.make(inner.key);
    if (entity == nullptr) return refuse(context, message, Refusal::no_entity);
    it = entities_.emplace(inner.key, hash, Active{std::move(entity), context.now()}).first;
    bump(counters_.activated, exported_.activated);
  }
  it->second.last_message = context.now();
  it->second.served = true;
  const Delivery unwrapped{message.kind, message.sender, message.correlation_id, inner.tag, inner.body};
  EntityContext entity_context(*this, context, it->first, &unwrapped);
  // The entity may send to its own region, which only queues: `it` stays valid.
  it->second.entity->receive(entity_context, unwrapped);
  bump(counters_.delivered, exported_.delivered);
  if (!passivation_armed_) arm_passivation(context, context.now() + kind_.passivate_after);
}

// A timer the entity started fires: delivered as to an actor (kind timer,
// its tag), and counted as a message for passivation.
void Region::deliver_timer(Context& context, Entities::iterator it, std::uint32_t tag) {
  it->second.last_message = context.now();
  const Delivery fired{DeliveryKind::timer, {}, 0, tag, {}};  // as the kernel delivers an actor's
  EntityContext entity_context(*this, context, it->first, nullptr);
  it->second.entity->receive(entity_context, fired);
  ++counters_.entity_timers_fired;
  if (!passivation_armed_) arm_passivation(context, context.now() + kind_.passivate_after);
}

void Region::refuse(Context& context, const Delivery& message, Refusal refusal) {
  const auto i = static_cast<std::size_t>(refusal);
  bump(counters_.refused[i], exported_.refused[i]);
  if (message.kind == DeliveryKind::ask) (void)context.reply_to(message, kRefusedTag, text_bytes(to_string(refusal)));
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

void Region::on_order_timer(Context& context) {
  const Instant now = context.now();
  for (auto& [shard, inbox] : inboxes_) {
    if (inbox.awaiting() && inbox.awaiting_until() <= now && !kind_.mutations.endless_wait) {
      ++counters_.handoff_timeouts;
      note_missed(shard);
      end_wait(context, shard, inbox, {});
    }
  }
  for (auto& [shard, inbox] : inboxes_) {
    if (inbox.awaiting() || !may_serve(shard, now)) continue;
    inbox.skip_gaps(now, kind_.reorder_wait);
    release_ready(context, inbox);
  }
  arm_order_timer(context);
}

// A HandoffDone can be lost (sent before its receiver's node knew the
// sender, whose messages it then drops): while a shard waits, the region
// asks the member it awaits for it, at once and every kQueryInterval.
void Region::query_awaited(Context& context) {
  std::map<NodeAddress, HandoffQuery> awaited;
  for (const auto& [shard, inbox] : inboxes_) {
    for (const NodeAddress& member : inbox.awaited()) awaited[member].awaited.insert(shard);
  }
  for (const auto& [member, query] : awaited) {
    (void)context.tell(region_of(member, kind_.name), kHandoffQueryTag, encode_query(query));
  }
  if (awaited.empty()) {
    context.cancel_timer(kQueryTimer);
  } else {
    context.start_timer(kQueryTimer, kQueryInterval);
  }
}

void Region::arm_order_timer(Context& context) {
  Instant earliest = Instant::never();
  const Instant now = context.now();
  for (const auto& [shard, inbox] : inboxes_) {
    // While a shard awaits its handoff its gaps wait too (on_order_timer
    // skips none of them), so only the wait's end counts; a shard without
    // its lease skips none either, and its gaps are judged when the lease
    // comes (a deadline counted here would fire at once, again and again).
    if (inbox.awaiting()) {
      if (!kind_.mutations.endless_wait) earliest = std::min(earliest, inbox.awaiting_until());
    } else if (may_serve(shard, now)) {
      earliest = std::min(earliest, inbox.next_gap_deadline(kind_.reorder_wait));
    }
  }
  if (earliest == Instant::never()) {
    context.cancel_timer(kOrderTimer);
  } else {
    context.start_timer(kOrderTimer, std::max(earliest - context.now(), Duration::zero()));
  }
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
  EntityContext entity_context(*this, context, it->first, &message);
  it->second.entity->receive(entity_context, message);
}

Region::Entities::iterator Region::stop(Context& context, Entities::iterator it, StopReason reason,
                                        const std::optional<NodeAddress>& hand_to) {
  EntityContext entity_context(*this, context, it->first, nullptr);
  it->second.entity->stopping(entity_context, reason);
  drop_entity_timers(it->first);  // stopping() may have started one: it ends here too
  if (reason == StopReason::idle) {
    bump(counters_.passivated, exported_.stopped_idle);
  } else if (reason == StopReason::moved) {
    bump(counters_.moved, exported_.stopped_moved);
  } else {
    bump(counters_.lapsed, exported_.stopped_no_lease);
    note_missed(shard_of_key(it->first));
  }
  scratch_.clear();
  if (hand_to && !kind_.mutations.drop_handoff_state && it->second.entity->hand_over(scratch_)) {
    const ShardId shard = shard_of_key(it->first);
    const std::vector<std::uint8_t> part = encode_entity({shard, it->first, scratch_});
    handed_to(*hand_to, shard, context.now()).parts.push_back(part);  // a query may want it again
    if (context.tell(region_of(*hand_to, kind_.name), kHandoffEntityTag, part) == SendResult::sent) {
      bump(counters_.handed_out, exported_.handed_out);
    } else {
      ++counters_.handoff_lost;
      note_missed(shard_of_key(it->first));
    }
  }
  return entities_.erase(it);
}

}  // namespace weft::shard
