// A region's view and its handoffs, out and in; the model is in region.hpp.
#include <algorithm>

#include "kernel/assert.hpp"
#include "shard/region.hpp"

namespace weft::shard {

bool Region::is_live(Context& context, const NodeAddress& node) const {
  for (const Member& m : context.members()) {
    if (m.address() == node) return is_live_status(m.status);
  }
  return false;
}

void Region::read_view(Context& context) {
  read_a_view_ = true;
  self_ = context.self().node;
  const Placement placement(context.members());
  hosts_.assign(placement.hosts().begin(), placement.hosts().end());
  owners_.assign(kind_.shards, std::nullopt);
  for (ShardId shard = 0; shard < kind_.shards; ++shard) owners_[shard] = placement.owner(kind_.name, shard);
  next_number_.resize(kind_.shards, 1);
  for (const Member& m : context.members()) {
    if (m.address() == self_) self_life_ = m.incarnation().value;
  }
}

void Region::on_members_changed(Context& context) {
  std::vector<std::optional<NodeAddress>> before = std::move(owners_);
  read_view(context);
  if (before.empty()) before.assign(kind_.shards, std::nullopt);
  hand_over_lost(context, before);
  await_gained(context, before);
  end_waits_on_gone(context);
  // A source whose node is gone, or that runs a newer life, sends no more
  // under that life: its numbering can go.
  std::map<std::pair<std::string, std::uint16_t>, std::uint64_t> lives;
  for (const Member& m : context.members()) {
    if (is_live_status(m.status)) lives[{m.address().host, m.address().port}] = m.incarnation().value;
  }
  for (auto& [shard, inbox] : inboxes_) {
    inbox.forget_sources([&](const Source& source) {
      const auto found = lives.find({source.host, source.port});
      return found == lives.end() || found->second > source.life;
    });
  }
  std::erase_if(inboxes_, [&](const auto& entry) { return entry.second.empty(); });
  arm_order_timer(context);
}

// Shards this view takes from this node: their entities stop, those with
// state send it to the new owner, then one HandoffDone per new owner names
// the shards and their numbering, then the messages kept for them follow.
void Region::hand_over_lost(Context& context, const std::vector<std::optional<NodeAddress>>& before) {
  std::map<NodeAddress, HandoffDone> dones;
  for (ShardId shard = 0; shard < kind_.shards; ++shard) {
    if (before[shard] == self_ && owners_[shard] != self_ && owners_[shard]) dones[*owners_[shard]].shards[shard];
  }
  for (auto it = entities_.begin(); it != entities_.end();) {
    const std::optional<NodeAddress>& owner = owners_[shard_of_key(it->first)];
    it = owner == self_ ? std::next(it) : stop(context, it, StopReason::moved, owner);
  }
  std::vector<std::pair<NodeAddress, MailboxSlot>> follow;
  for (auto it = inboxes_.begin(); it != inboxes_.end(); ++it) {
    const std::optional<NodeAddress>& owner = owners_[it->first];
    if (owner == self_) continue;
    std::vector<MailboxSlot> messages;
    ShardInbox::Numbering numbering = it->second.hand_over(messages);
    if (owner) dones[*owner].shards[it->first] = std::move(numbering);
    for (MailboxSlot& m : messages) follow.emplace_back(owner.value_or(NodeAddress{}), std::move(m));
  }
  for (const auto& [owner, done] : dones) {
    (void)context.tell(region_of(owner, kind_.name), kHandoffDoneTag, encode_done(done));
  }
  for (auto& [owner, slot] : follow) {
    const Delivery kept = slot.view();
    if (owner.port == 0) {
      refuse(context, kept, Refusal::no_host);
    } else if (context.forward(region_of(owner, kind_.name), kept, kEntityTag, kept.body) == SendResult::sent) {
      ++counters_.forwarded;
    } else {
      refuse(context, kept, Refusal::forward_failed);
    }
  }
}

void Region::await_gained(Context& context, const std::vector<std::optional<NodeAddress>>& before) {
  const Instant until = context.now() + kind_.handoff_timeout;
  for (ShardId shard = 0; shard < kind_.shards; ++shard) {
    const std::optional<NodeAddress>& previous = before[shard];
    if (owners_[shard] != self_ || !previous || *previous == self_) continue;
    if (is_live(context, *previous)) inboxes_[shard].await_handoff(*previous, until);
  }
}

// A wait on a node that is no longer live ends at once: it will send
// nothing (a crashed owner's entities start fresh here).
void Region::end_waits_on_gone(Context& context) {
  for (auto& [shard, inbox] : inboxes_) {
    if (!inbox.awaiting() || is_live(context, *inbox.awaited_from())) continue;
    std::deque<MailboxSlot> kept = inbox.end_wait({});
    std::vector<MailboxSlot> again(std::make_move_iterator(kept.begin()), std::make_move_iterator(kept.end()));
    offer_again(context, again);
  }
}

// Whether `from` may hand this node `shard`: this node owns it, `from` is
// live, and it is the node this node awaits, or the owner a view without
// this node would give (with `from` counted as up: a leaver is no longer).
bool Region::may_hand(Context& context, const NodeAddress& from, ShardId shard) const {
  if (owners_[shard] != self_ || from == self_ || !is_live(context, from)) return false;
  const auto inbox = inboxes_.find(shard);
  if (inbox != inboxes_.end() && inbox->second.awaited_from() == from) return true;
  std::optional<NodeAddress> best;
  std::uint64_t best_score = 0;
  std::vector<NodeAddress> candidates = hosts_;
  candidates.push_back(from);
  std::sort(candidates.begin(), candidates.end());
  for (const NodeAddress& host : candidates) {
    if (host == self_) continue;
    const std::uint64_t s = score(kind_.name, shard, host);
    if (!best || s > best_score) {
      best = host;
      best_score = s;
    }
  }
  return best == from;
}

void Region::on_handoff_entity(Context& context, const Delivery& message) {
  const std::optional<HandoffEntity> part = decode_entity(message.body);
  if (!part || part->shard >= kind_.shards || shard_of_key(part->key) != part->shard) {
    return refuse(context, message, Refusal::malformed);
  }
  const NodeAddress from{std::string(message.sender.host), message.sender.port};
  if (!may_hand(context, from, part->shard)) {
    ++counters_.handoff_refused;
    return;
  }
  if (hosts(part->key)) {
    ++counters_.handoff_conflicts;
    return;
  }
  std::unique_ptr<Entity> entity = kind_.make(part->key);
  if (entity == nullptr) return refuse(context, message, Refusal::no_entity);
  entity->take_over(part->state);
  entities_.emplace(std::string(part->key), Active{std::move(entity), context.now()});
  ++counters_.handed_in;
  if (exported_.handed_in != nullptr) exported_.handed_in->add();
  if (!passivation_armed_) arm_passivation(context, context.now() + kind_.passivate_after);
}

void Region::on_handoff_done(Context& context, const Delivery& message) {
  const std::optional<HandoffDone> done = decode_done(message.body);
  if (!done) return refuse(context, message, Refusal::malformed);
  const NodeAddress from{std::string(message.sender.host), message.sender.port};
  for (const auto& [shard, numbering] : done->shards) {
    if (shard >= kind_.shards || !may_hand(context, from, shard)) {
      ++counters_.handoff_refused;
      continue;
    }
    ShardInbox& inbox = inboxes_[shard];
    if (inbox.awaiting()) {
      std::deque<MailboxSlot> kept = inbox.end_wait(numbering);
      std::vector<MailboxSlot> again(std::make_move_iterator(kept.begin()), std::make_move_iterator(kept.end()));
      offer_again(context, again);
    } else {
      inbox.merge(numbering);
      release_ready(context, inbox);
    }
  }
  arm_order_timer(context);
}

}  // namespace weft::shard
