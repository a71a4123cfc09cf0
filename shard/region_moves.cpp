// A region's view and its handoffs, out and in; the model is in region.hpp.
#include <algorithm>
#include <iterator>
#include <set>

#include "kernel/assert.hpp"
#include "shard/region.hpp"

namespace weft::shard {

namespace {

const Member* member_at(Context& context, const NodeAddress& node) {
  for (const Member& m : context.members()) {
    if (m.address() == node) return &m;
  }
  return nullptr;
}

}  // namespace

bool Region::is_live(Context& context, const NodeAddress& node) const {
  const Member* m = member_at(context, node);
  return m != nullptr && is_live_status(m->status);
}

// Live, or removed after leaving in the life this region saw leave.
bool Region::live_or_left(Context& context, const NodeAddress& node) const {
  const Member* m = member_at(context, node);
  if (m == nullptr) return false;
  if (is_live_status(m->status)) return true;
  const auto leaver = leavers_.find(node);
  return m->status == MemberStatus::removed && leaver != leavers_.end() && leaver->second == m->incarnation().value;
}

void Region::note_leavers(Context& context) {
  for (const Member& m : context.members()) {
    if (m.address() == self_) continue;
    if (m.status == MemberStatus::leaving || m.status == MemberStatus::exiting) {
      leavers_[m.address()] = m.incarnation().value;
    }
  }
  std::erase_if(leavers_, [&](const auto& leaver) {
    const auto& [address, life] = leaver;
    bool awaited = false;
    for (const auto& [shard, inbox] : inboxes_) awaited = awaited || inbox.awaits(address);
    bool other_life = false;
    for (const Member& m : context.members()) {
      other_life = other_life || (m.address() == address && m.incarnation().value != life);
    }
    return other_life || (!awaited && !is_live(context, address));
  });
}

void Region::read_view(Context& context) {
  // The batches were addressed by the view being replaced: they go to the
  // owners it named, before any owner changes (as tells sent alone would
  // have gone, if a little later).
  send_batches(context);
  read_a_view_ = true;
  ++views_read_;
  self_ = context.self().node;
  start_leases(context);
  const Placement placement = Placement::of_node(context.members(), self_);
  hosts_.assign(placement.hosts().begin(), placement.hosts().end());
  host_regions_.clear();
  for (const NodeAddress& host : hosts_) host_regions_.push_back(region_of(host, kind_.name));
  batches_.resize(host_regions_.size());
  owners_.assign(kind_.shards, std::nullopt);
  for (ShardId shard = 0; shard < kind_.shards; ++shard) owners_[shard] = placement.owner(kind_.name, shard);
  straight_.assign(kind_.shards, nullptr);
  for (ShardId shard = 0; shard < kind_.shards; ++shard) {
    if (owners_[shard] && *owners_[shard] != self_) straight_[shard] = &region_of_host(*owners_[shard]);
  }
  responsible_.resize(kind_.shards, false);
  live_.clear();
  life_floors_.clear();
  for (const Member& m : context.members()) {
    if (m.address() == self_) self_life_ = m.incarnation().value;
    if (is_live_status(m.status)) live_.push_back(m.address());
    const std::uint64_t life = m.incarnation().value;
    life_floors_.push_back({m.address().host, m.address().port, is_live_status(m.status) ? life : life + 1});
  }
  std::sort(live_.begin(), live_.end());
  // The latest floor per address (a table may hold an old life beside a new).
  const auto by_address = [](const LifeFloor& a, const LifeFloor& b) {
    return std::tie(a.host, a.port, a.floor) < std::tie(b.host, b.port, b.floor);
  };
  std::sort(life_floors_.begin(), life_floors_.end(), by_address);
  const auto same_address = [](const LifeFloor& a, const LifeFloor& b) { return a.host == b.host && a.port == b.port; };
  std::reverse(life_floors_.begin(), life_floors_.end());
  life_floors_.erase(std::unique(life_floors_.begin(), life_floors_.end(), same_address), life_floors_.end());
  std::reverse(life_floors_.begin(), life_floors_.end());
}

std::uint64_t Region::life_floor(std::string_view host, std::uint16_t port) const {
  const auto it = std::lower_bound(life_floors_.begin(), life_floors_.end(), std::tie(host, port),
                                   [](const LifeFloor& f, const std::tuple<std::string_view&, std::uint16_t&>& a) {
                                     return std::tie(f.host, f.port) < a;
                                   });
  return it != life_floors_.end() && it->host == host && it->port == port ? it->floor : 0;
}

bool Region::stale(const Stamp& stamp) {
  FloorSeen& seen = floor_seen_;
  if (seen.views_read != views_read_ || seen.port != stamp.port || seen.host != stamp.host) {
    seen = FloorSeen{views_read_, std::string(stamp.host), stamp.port, life_floor(stamp.host, stamp.port)};
  }
  return stamp.life < seen.floor;
}

void Region::on_members_changed(Context& context) {
  if (kind_.mutations.ignore_joins && read_a_view_) {
    const Placement placement = Placement::of_node(context.members(), context.self().node);
    const auto& now_up = placement.hosts();
    if (now_up.size() > hosts_.size() && std::includes(now_up.begin(), now_up.end(), hosts_.begin(), hosts_.end())) {
      return;
    }
  }
  // Senders on this node queue here until the view is read and its moves
  // made (route_here).
  reading_view_ = true;
  std::vector<std::optional<NodeAddress>> before = std::move(owners_);
  const std::vector<NodeAddress> hosts_before = std::move(hosts_);
  const std::vector<NodeAddress> live_before = std::move(live_);
  const std::uint64_t life_before = self_life_;
  read_view(context);
  note_leavers(context);
  take_back_returned(context);
  // Before this view's HandoffDones, which would end the waits it answers.
  if (life_before != 0 && self_life_ != life_before) resend_old_life(context);
  if (before.empty()) before.assign(kind_.shards, std::nullopt);
  std::set<NodeAddress> newly_up;
  std::set_difference(hosts_.begin(), hosts_.end(), hosts_before.begin(), hosts_before.end(),
                      std::inserter(newly_up, newly_up.end()));
  newly_up.erase(self_);
  // Newly up or newly live (a member that joins in this view may be up in
  // its own, and have served a shard there: seed 3930).
  std::set<NodeAddress> newly_seen = newly_up;
  std::set_difference(live_.begin(), live_.end(), live_before.begin(), live_before.end(),
                      std::inserter(newly_seen, newly_seen.end()));
  newly_seen.erase(self_);
  hand_over_lost(context, newly_up);
  await_gained(context, before, newly_seen);
  query_awaited(context);
  for (ShardId shard = 0; shard < kind_.shards; ++shard) {
    if (owners_[shard] == self_) responsible_[shard] = true;
  }
  end_waits_on_gone(context);
  restore_set_aside_unawaited(context);
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
  // What an old life queued here is stale now (refused stale_source): it
  // holds no later tell back.
  if (self_life_ != life_before) std::fill(last_queued_.begin(), last_queued_.end(), 0);
  reading_view_ = false;
}

// Shards this view gives another node: their entities stop, those with
// state send it to the new owner, then one HandoffDone per new owner names
// the shards and their numbering, then the messages kept for them follow.
// A shard this view gives no one (no member up here: a partition, this node
// down) stays with this node, entities and all, until a view names an owner
// to hand it to: nobody else can take it meanwhile.
// A shard this node handed to a member that is not live comes back: that
// member hands nothing (await_gained awaits only live members), so the
// state this node sent it, kept for a query (handed_), is taken back here
// before it is forgotten; else a part lost on a cut link to a member that
// went down would be state gone uncounted (seed 6407;
// tests/region_take_back_test.cpp). At once only if no view of this node's
// since named a third owner. One that was named may have served the key
// since and hand it here, newer (await_gained awaits it if it is live),
// which the old copy, taken first, would make a conflict (seed 123 under
// the word-wise key hash, entities_third_owner.scenario); so the copy is
// set aside and restored, for the keys no handoff brought, when the
// shard's wait ends (restore_set_aside), or at once if it awaits none.
// Runs on every view read, so every owner this node's views named since
// the handoff is seen (a member that served under a view this node never
// read and that it does not await is seed 731's case: an epoch's end).
void Region::take_back_returned(Context& context) {
  if (kind_.mutations.forget_returned) return;
  bool took = false;
  for (auto& [to_shard, handed] : handed_) {
    const auto& [to, shard] = to_shard;
    if (shard >= owners_.size()) continue;
    const std::optional<NodeAddress>& owner = owners_[shard];
    if (owner && *owner != to && *owner != self_ && !kind_.mutations.return_past_third_owner) {
      handed.returnable = false;
    }
    if (owner != self_ || is_live(context, to) || handed.parts.empty()) continue;
    if (!handed.returnable) {
      set_aside_.try_emplace(shard, std::move(handed));  // forget_handed drops the emptied record
    } else {
      took = take_back(context, shard, handed) || took;
    }
    handed.parts.clear();
  }
  if (took) after_taking_back(context);
}

bool Region::take_back(Context& context, ShardId shard, const Handed& handed) {
  bool took = false;
  for (const std::vector<std::uint8_t>& bytes : handed.parts) {
    const std::optional<HandoffEntity> part = decode_entity(bytes);
    if (part && !hosts(part->key)) took = restore(context, *part) || took;
  }
  inboxes_[shard].merge(handed.numbering);
  return took;
}

void Region::after_taking_back(Context& context) {
  want_votes(context);
  if (!passivation_armed_) arm_passivation(context, context.now() + kind_.passivate_after);
}

void Region::restore_set_aside(Context& context, ShardId shard) {
  const auto it = set_aside_.find(shard);
  if (it == set_aside_.end()) return;
  const Handed handed = std::move(it->second);
  set_aside_.erase(it);
  if (owners_[shard] == self_ && take_back(context, shard, handed)) after_taking_back(context);
}

// After a view's waits are set: a copy set aside for a shard that awaits
// nothing is restored now; one for a shard gone elsewhere is dropped.
void Region::restore_set_aside_unawaited(Context& context) {
  std::vector<ShardId> ready;
  for (const auto& [shard, handed] : set_aside_) {
    const auto inbox = inboxes_.find(shard);
    if (owners_[shard] != self_ || inbox == inboxes_.end() || !inbox->second.awaiting()) ready.push_back(shard);
  }
  for (const ShardId shard : ready) restore_set_aside(context, shard);
}

void Region::hand_over_lost(Context& context, const std::set<NodeAddress>& newly_up) {
  // Every member newly up here hears from this node, if only that it hands
  // it nothing: it may be waiting to learn whether this node served a shard
  // it owns (await_gained).
  forget_handed(context.now());
  std::map<NodeAddress, HandoffDone> dones;
  for (const NodeAddress& member : newly_up) dones[member];
  std::vector<ShardId> released;
  for (ShardId shard = 0; shard < kind_.shards; ++shard) {
    if (responsible_[shard] && owners_[shard] && owners_[shard] != self_) {
      dones[*owners_[shard]].shards[shard];
      (void)handed_to(*owners_[shard], shard, context.now());
      responsible_[shard] = false;
      released.push_back(shard);
    }
  }
  for (auto it = entities_.begin(); it != entities_.end();) {
    const std::optional<NodeAddress>& owner = owners_[shard_of_key(it->first)];
    const bool stays = !owner || owner == self_ || kind_.mutations.keep_moved;
    it = stays ? std::next(it) : stop(context, it, StopReason::moved, owner);
  }
  // Majority mode: the entities stopped, the votes for their shards go.
  release_moved(context, released);
  std::vector<std::pair<NodeAddress, MailboxSlot>> follow;
  for (auto it = inboxes_.begin(); it != inboxes_.end(); ++it) {
    const std::optional<NodeAddress>& owner = owners_[it->first];
    if (!owner || owner == self_) continue;
    std::vector<MailboxSlot> messages;
    Handed& handed = handed_to(*owner, it->first, context.now());
    handed.numbering = dones[*owner].shards[it->first] = it->second.hand_over(messages);
    for (MailboxSlot& m : messages) follow.emplace_back(*owner, std::move(m));
  }
  // Kept for want of a lease, never numbered here: they follow the rest.
  for (auto it = unleased_.begin(); it != unleased_.end();) {
    const std::optional<NodeAddress>& owner = owners_[it->first];
    if (!owner || owner == self_) {
      ++it;
      continue;
    }
    for (MailboxSlot& m : it->second) follow.emplace_back(*owner, std::move(m));
    kept_changed_ = true;
    it = unleased_.erase(it);
  }
  const std::set<ShardId> serving = still_serving();
  for (auto& [owner, done] : dones) {
    done.serving = serving;
    done.to_life = life_floor(owner.host, owner.port);
    (void)context.tell(region_of(owner, kind_.name), kHandoffDoneTag, encode_done(done));
  }
  for (auto& [owner, slot] : follow) {
    const Delivery kept = slot.view();
    if (context.forward(region_of(owner, kind_.name), kept, kEntityTag, kept.body) == SendResult::sent) {
      ++counters_.forwarded;
    } else {
      refuse(context, kept, Refusal::forward_failed);
    }
  }
}

// A shard this node owns waits for a handoff from every live member that
// may have served it: the owner the last view named, if another (the shard
// moved here), and every member newly up or newly live here (it may have
// served the shard while this node was not up in its view: a restart, a
// partition, a node that came up alone and owned every shard in a view of
// itself, or one that is up in its own view and only joining in this one;
// seed 153 of the sweep lost a count when only the member that would own
// the shard without this node was awaited, seed 3930 when a joining one was
// not). A member sends a HandoffDone to every member newly up in its view
// (hand_over_lost), and answers a query from any live one, so a wait on a
// member with nothing to hand over lasts a round trip.
void Region::await_gained(Context& context, const std::vector<std::optional<NodeAddress>>& before,
                          const std::set<NodeAddress>& newly_seen) {
  gained_at_.resize(kind_.shards, 0);
  named_before_.resize(kind_.shards);
  for (ShardId shard = 0; shard < kind_.shards; ++shard) {
    if (owners_[shard] != self_ || before[shard] == self_) continue;
    gained_at_[shard] = views_read_;
    named_before_[shard] = before[shard];
  }
  for (const NodeAddress& member : newly_seen) seen_at_[member] = views_read_;
  if (kind_.mutations.no_handoff_wait) return;
  const Instant until = context.now() + kind_.handoff_timeout;
  std::vector<NodeAddress> live_newly_seen;
  for (const NodeAddress& member : newly_seen) {
    if (is_live(context, member)) live_newly_seen.push_back(member);
  }
  for (ShardId shard = 0; shard < kind_.shards; ++shard) {
    if (owners_[shard] != self_) continue;
    ShardInbox& inbox = inboxes_[shard];
    const auto await = [&](const NodeAddress& from) {
      if (!inbox.awaits(from)) inbox.await_handoff(from, until);
    };
    if (before[shard] && *before[shard] != self_ &&
        (is_live(context, *before[shard]) || kind_.mutations.endless_wait)) {
      await(*before[shard]);
    }
    for (const NodeAddress& member : live_newly_seen) await(member);
  }
}

// A wait on a node that is no longer live ends at once: it will send
// nothing (a crashed owner's entities start fresh here).
void Region::end_waits_on_gone(Context& context) {
  if (kind_.mutations.endless_wait) return;
  for (auto& [shard, inbox] : inboxes_) {
    const std::set<NodeAddress> awaited = inbox.awaited();
    for (const NodeAddress& member : awaited) {
      if (!live_or_left(context, member) && inbox.handed_by(member, {})) end_wait(context, shard, inbox, {});
    }
  }
}

// Whether `from` may hand this node `shard`: this node owns it, `from` is
// live, and it is the node this node awaits, or the owner a view without
// this node would give (with `from` counted as up: a leaver is no longer).
bool Region::may_hand(Context& context, const NodeAddress& from, ShardId shard) const {
  if (owners_[shard] != self_ || from == self_ || !live_or_left(context, from)) return false;
  const auto inbox = inboxes_.find(shard);
  if (inbox != inboxes_.end() && inbox->second.awaits(from)) return true;
  return owner_without_self(shard, from) == from;
}

// An owner is always one of the hosts the view it came from named.
const ActorRef& Region::region_of_host(const NodeAddress& host) const {
  const auto it = std::lower_bound(hosts_.begin(), hosts_.end(), host);
  WEFT_ASSERT(it != hosts_.end() && *it == host);
  return host_regions_[static_cast<std::size_t>(it - hosts_.begin())];
}

// The owner of `shard` among the hosts this region last read (and `also`,
// if given), this node left out.
std::optional<NodeAddress> Region::owner_without_self(ShardId shard, const std::optional<NodeAddress>& also) const {
  std::vector<NodeAddress> candidates;
  candidates.reserve(hosts_.size() + 1);
  for (const NodeAddress& host : hosts_) {
    if (host != self_) candidates.push_back(host);
  }
  if (also && *also != self_ && !std::binary_search(candidates.begin(), candidates.end(), *also)) {
    candidates.insert(std::lower_bound(candidates.begin(), candidates.end(), *also), *also);
  }
  return rendezvous_owner(kind_.name, shard, candidates);
}

void Region::on_handoff_entity(Context& context, const Delivery& message) {
  const std::optional<HandoffEntity> part = decode_entity(message.body);
  if (!part || part->shard >= kind_.shards || shard_of_key(part->key) != part->shard) {
    return refuse(context, message, Refusal::malformed);
  }
  const NodeAddress from{std::string(message.sender.host), message.sender.port};
  if (part->again && !awaits(from, part->shard)) {
    ++counters_.handoff_duplicates;  // the first copy ended the wait
    return;
  }
  if (!may_hand(context, from, part->shard)) {
    ++counters_.handoff_refused;
    note_missed(part->shard);
    return;
  }
  if (hosts(part->key)) {
    ++counters_.handoff_conflicts;
    note_missed(part->shard);
    return;
  }
  if (!restore(context, *part)) return refuse(context, message, Refusal::no_entity);
  after_taking_back(context);
}

// An entity started from handed state (restored); false if the kind makes
// none for the key.
bool Region::restore(Context& context, const HandoffEntity& part) {
  std::unique_ptr<Entity> entity = kind_.make(part.key);
  if (entity == nullptr) return false;
  entity->take_over(part.state);
  entities_.emplace(part.key, Active{std::move(entity), context.now(), false, true});
  ++counters_.handed_in;
  if (exported_.handed_in != nullptr) exported_.handed_in->add();
  return true;
}

// The shards this region holds until a view names another owner for them
// (handoff_wire.hpp: a wait on this node for one of them goes on).
std::set<ShardId> Region::still_serving() const {
  std::set<ShardId> serving;
  for (ShardId shard = 0; shard < kind_.shards; ++shard) {
    if (responsible_[shard]) serving.insert(serving.end(), shard);
  }
  return serving;
}

// A member waiting on this node asks for its handoff of the shards it
// names (the first may have been lost: sent before the receiver's node
// knew this one, whose messages it then drops). What this node handed it
// of those lately goes again, marked so (the state, then the HandoffDone
// with the numbering); not the messages that followed the first copy: a
// second copy of one could be applied twice (one kept for want of a lease
// carries no number the receiver checks), and one lost is a tell lost with
// its link, or an ask its sender sees time out;
// everything else this node's view gives it went at the view change,
// before this answer on the same link, so the HandoffDone names no other
// shard, and names those this node still serves (its view may not have
// moved them yet). Any live member is answered: one only joining in this
// view (up in its own) is owed nothing yet, and the serving list keeps it
// waiting for what this node holds until this view takes it up.
void Region::on_handoff_query(Context& context, const Delivery& message) {
  const NodeAddress from{std::string(message.sender.host), message.sender.port};
  if (from == self_ || !std::binary_search(live_.begin(), live_.end(), from)) return;
  const std::optional<HandoffQuery> query = decode_query(message.body);
  if (!query) return refuse(context, message, Refusal::malformed);
  forget_handed(context.now());
  send_again(context, from, kind_.mutations.no_resend ? std::set<ShardId>{} : query->awaited);
}

// What this node handed `to` of `shards` lately goes again, marked so, then
// a HandoffDone (marked too) naming those shards and the ones this node
// still serves: the answer to a query.
void Region::send_again(Context& context, const NodeAddress& to, const std::set<ShardId>& shards) {
  const ActorRef asker = region_of(to, kind_.name);
  HandoffDone done;
  done.again = true;
  for (const ShardId shard : shards) {
    const auto it = handed_.find({to, shard});
    // Handed to an earlier life of the asker: that life took it, or it died
    // with it; the asker's state for the shard is not this.
    if (it == handed_.end() || it->second.life != life_floor(to.host, to.port)) continue;
    for (const std::vector<std::uint8_t>& part : it->second.parts) {
      std::optional<HandoffEntity> again = decode_entity(part);
      WEFT_ASSERT(again.has_value());  // encoded here
      again->again = true;
      (void)context.tell(asker, kHandoffEntityTag, encode_entity(*again));
    }
    it->second.sender_life = self_life_;
    done.shards[shard] = it->second.numbering;
    ++counters_.handoffs_resent;
  }
  done.serving = still_serving();
  for (const auto& [shard, numbering] : done.shards) done.serving.erase(shard);
  done.to_life = life_floor(to.host, to.port);
  (void)context.tell(asker, kHandoffDoneTag, encode_done(done));
}

// This node took a new life (downed while alive, it rejoined): the kernel
// closed the old life's links with what they held, and a handoff sent
// behind a cut link went with them (seed 4540: its receiver, hearing from
// the new life that it was handed nothing, started the key fresh). What
// the old life handed lately goes again to each receiver still live in the
// life it was handed to, as a query's answer; one that took the first copy
// awaits this node no more and drops the second.
void Region::resend_old_life(Context& context) {
  if (kind_.mutations.rejoin_forgets_handoffs) return;
  forget_handed(context.now());
  std::map<NodeAddress, std::set<ShardId>> owed;
  for (const auto& [to_shard, handed] : handed_) {
    const auto& [to, shard] = to_shard;
    if (handed.sender_life != self_life_ && std::binary_search(live_.begin(), live_.end(), to)) {
      owed[to].insert(shard);
    }
  }
  for (const auto& [to, shards] : owed) send_again(context, to, shards);
}

// What hand_over_lost hands `owner` of `shard` at `now`, kept for a query:
// a record from an earlier handoff is replaced.
Region::Handed& Region::handed_to(const NodeAddress& owner, ShardId shard, Instant now) {
  const Instant until = keep_handed_until(now);
  const std::uint64_t life = life_floor(owner.host, owner.port);  // an owner is up: its live life
  Handed& handed = handed_[{owner, shard}];
  if (handed.until != until || handed.life != life) handed = Handed{until, life, self_life_, {}, {}};
  return handed;
}

// Forgets what was handed out longer ago than it is kept, and what was
// handed of a shard this node owns again (its state is here, or started
// here, since).
void Region::forget_handed(Instant now) {
  std::erase_if(handed_, [&](const auto& entry) {
    const ShardId shard = entry.first.second;
    return entry.second.until <= now || (shard < owners_.size() && owners_[shard] == self_);
  });
}

bool Region::had_cause_to_await(ShardId shard, const NodeAddress& member) const {
  if (shard >= gained_at_.size() || owners_[shard] != self_) return false;
  if (named_before_[shard] == member) return true;
  const auto seen = seen_at_.find(member);
  return seen != seen_at_.end() && seen->second >= gained_at_[shard];
}

bool Region::awaits(const NodeAddress& from, ShardId shard) const {
  const auto inbox = inboxes_.find(shard);
  return inbox != inboxes_.end() && inbox->second.awaits(from);
}

void Region::on_handoff_done(Context& context, const Delivery& message) {
  const std::optional<HandoffDone> done = decode_done(message.body);
  if (!done) return refuse(context, message, Refusal::malformed);
  const NodeAddress from{std::string(message.sender.host), message.sender.port};
  // Sent to an earlier life of this node: queued behind a cut link, it
  // outlived that life. What it says (handed nothing, serves these) was
  // that life's; taken as this one's it ends a wait on a sender that holds
  // the key, whose state then meets a fresh entity as a conflict. So too
  // when this region lived that life itself (downed while alive, it
  // rejoined): the Done may predate waits begun since, and nothing tells
  // which. Its sender, once it sees the new life, sends this one a
  // HandoffDone of its own (a member newly up gets one), which ends the
  // wait; until then queries ask. `<`, not `!=`: a life after this
  // region's (one it has yet to read) is its own.
  if (done->to_life != 0 && done->to_life < self_life_ && !kind_.mutations.done_for_any_life) {
    ++counters_.handoff_stale;
    return;
  }
  bool handed_in = false;
  for (const auto& [shard, numbering] : done->shards) {
    if (done->again && !awaits(from, shard)) {
      ++counters_.handoff_duplicates;  // the first copy ended the wait
      continue;
    }
    if (shard >= kind_.shards || !may_hand(context, from, shard)) {
      ++counters_.handoff_refused;
      note_missed(shard);
      continue;
    }
    ShardInbox& inbox = inboxes_[shard];
    if (inbox.awaiting()) {
      // The wait ends when the last member it awaits has handed over.
      if (inbox.handed_by(from, numbering)) {
        end_wait(context, shard, inbox, {});
        handed_in = true;
      }
    } else {
      inbox.merge(numbering);
      if (may_serve(shard, context.now())) release_ready(context, inbox);
    }
  }
  // A HandoffDone is all `from` hands this node for now: a wait on it for a
  // shard it neither named nor still serves ends too (it served none of
  // that shard). One it still serves waits on: its view has not moved it
  // yet, and the handoff follows when it does (or handoff_timeout ends it).
  for (auto& [shard, inbox] : inboxes_) {
    const bool served = done->serving.contains(shard) && !kind_.mutations.done_ends_every_wait;
    if (inbox.awaits(from) && !served && inbox.handed_by(from, {})) {
      end_wait(context, shard, inbox, {});
    }
  }
  // Majority mode: the old owner released its votes for these shards
  // before it sent this (on the voters' control queues), so a round asked
  // now finds them free; the round already running was likely refused
  // them, and the next would come lease / 8 later (a join's new owner
  // waited about 0.9 s for its lease).
  if (handed_in && leases_) ask_votes(context);
  arm_order_timer(context);
}

}  // namespace weft::shard
