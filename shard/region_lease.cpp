// The majority mode's leases and votes in a region; the model is in
// region.hpp ("Majority mode") and shard/quorum_lease.hpp (the argument).
#include <algorithm>
#include <string>

#include "kernel/assert.hpp"
#include "shard/lease_wire.hpp"
#include "shard/region.hpp"

namespace weft::shard {

namespace {

// One hash of the voter list (placement's stable_hash over "host:port"
// lines), so two nodes with different lists (a deployment whose seeds
// differ) do not count each other's votes: a majority of one list need not
// meet a majority of the other.
std::uint64_t fingerprint(const std::vector<NodeAddress>& voters) {
  std::string lines;
  for (const NodeAddress& v : voters) {
    lines += v.host;
    lines += ':';
    lines += std::to_string(v.port);
    lines += '\n';
  }
  return stable_hash(lines, 0);
}

}  // namespace

bool Region::may_serve(ShardId shard, Instant now) const { return !leases_ || leases_->held(shard, now); }

bool Region::holds_lease(ShardId shard, Instant now) const {
  return leases_ && shard < kind_.shards && leases_->held(shard, now);
}

// At the region's first view: its start, from which a voter stays quiet.
void Region::start_leases(Context& context) {
  if (kind_.consistency != Consistency::majority || promises_) return;
  voters_ = kind_.majority.voters;
  // region_actor gives the node's seeds when the kind names no voters; a
  // node with neither (the first of a cluster, started without seeds)
  // votes alone, and its list's fingerprint keeps others from counting it.
  if (voters_.empty()) voters_.push_back(self_);
  std::sort(voters_.begin(), voters_.end());
  voters_.erase(std::unique(voters_.begin(), voters_.end()), voters_.end());
  voters_fingerprint_ = fingerprint(voters_);
  const LeaseTimes times = lease_times(kind_.majority.lease, kind_.majority.max_drift_ppm);
  promises_.emplace(kind_.shards, context.now(), times);
  promises_->ignore_promises = kind_.mutations.vote_without_promise;
  leases_.emplace(kind_.shards, voters_.size(), times);
  had_lease_.assign(kind_.shards, false);
}

std::optional<std::size_t> Region::voter_index(const NodeAddress& node) const {
  const auto it = std::lower_bound(voters_.begin(), voters_.end(), node);
  if (it == voters_.end() || *it != node) return std::nullopt;
  return static_cast<std::size_t>(it - voters_.begin());
}

// A message for a shard owned here without a lease: kept in arrival order,
// unnumbered (host() admits it when the lease comes), and the voters asked.
void Region::keep_unleased(Context& context, const Delivery& message, const EntityMessage& inner, ShardId shard) {
  if (kept() >= kind_.buffer_capacity) return refuse(context, message, Refusal::buffer_full);
  unleased_[shard].push_back(copy_of(message, inner));
  kept_changed_ = true;
  want_votes(context);
}

// Votes ride with the links' control frames: a lease must come back
// within its own length, and a flood of user messages on the link (the
// simulator's flood-only seeds 1092, 4327, 4521, 9398) held every vote
// back longer than that, so the majority mode served nothing.
SendResult Region::send_lease_message(Context& context, const ActorRef& to, std::uint32_t tag,
                                      std::span<const std::uint8_t> body) {
  if (kind_.mutations.votes_behind_user) return context.tell(to, tag, body);
  return context.tell_urgent(to, tag, body);
}

void Region::want_votes(Context& context) {
  if (leases_ && !asking_) ask_votes(context);
}

// Every voter is asked, this node too if it is one, each lease / 8 while
// the region has something to host; an idle region asks nothing.
void Region::ask_votes(Context& context) {
  bool kept_any = !unleased_.empty();
  for (const auto& [shard, inbox] : inboxes_) kept_any = kept_any || inbox.kept() > 0;
  if (entities_.empty() && !kept_any) {
    asking_ = false;
    context.cancel_timer(kVoteTimer);
    return;
  }
  const std::vector<std::uint8_t> request = encode_vote_request({context.now(), voters_fingerprint_});
  for (const NodeAddress& voter : voters_) {
    (void)send_lease_message(context, region_of(voter, kind_.name), kVoteRequestTag, request);
    ++counters_.votes_asked;
  }
  asking_ = true;
  context.start_timer(kVoteTimer, kind_.majority.lease / 8);
}

void Region::on_vote_request(Context& context, const Delivery& message) {
  if (!promises_) return refuse(context, message, Refusal::malformed);
  const std::optional<VoteRequest> request = decode_vote_request(message.body);
  if (!request) return refuse(context, message, Refusal::malformed);
  if (request->voters != voters_fingerprint_ || !voter_index(self_)) {
    ++counters_.votes_refused;
    return;
  }
  const NodeAddress asker{std::string(message.sender.host), message.sender.port};
  std::vector<ShardId> named;
  for (ShardId shard = 0; shard < kind_.shards; ++shard) {
    if (owners_[shard] == asker) named.push_back(shard);
  }
  const Vote vote{request->asked, promises_->vote(asker, named, context.now())};
  ++counters_.votes_given;
  (void)send_lease_message(context, region_of(asker, kind_.name), kVoteTag, encode_vote(vote));
}

void Region::on_vote(Context& context, const Delivery& message) {
  if (!leases_) return refuse(context, message, Refusal::malformed);
  const std::optional<Vote> vote = decode_vote(message.body);
  if (!vote) return refuse(context, message, Refusal::malformed);
  const std::optional<std::size_t> voter = voter_index({std::string(message.sender.host), message.sender.port});
  if (!voter) {
    ++counters_.votes_refused;
    return;
  }
  leases_->record(*voter, vote->asked, vote->shards);
  const Instant now = context.now();
  for (ShardId shard = 0; shard < kind_.shards; ++shard) {
    if (had_lease_[shard] || !leases_->held(shard, now)) continue;
    had_lease_[shard] = true;
    // Gained: what was kept for want of it goes on, in arrival order (held
    // gaps first: they arrived and were numbered before).
    const auto inbox = inboxes_.find(shard);
    if (inbox != inboxes_.end() && !inbox->second.awaiting()) release_ready(context, inbox->second);
    const auto kept = unleased_.find(shard);
    if (kept == unleased_.end()) continue;
    std::deque<MailboxSlot> messages = std::move(kept->second);
    unleased_.erase(kept);
    kept_changed_ = true;
    for (MailboxSlot& slot : messages) on_entity_message(context, slot.view());
  }
  arm_lapse(context);
  arm_order_timer(context);  // the gained shards' gaps count again
}

void Region::on_release(Context& context, const Delivery& message) {
  if (!promises_) return refuse(context, message, Refusal::malformed);
  const std::optional<std::vector<ShardId>> shards = decode_release(message.body);
  if (!shards) return refuse(context, message, Refusal::malformed);
  promises_->release({std::string(message.sender.host), message.sender.port}, *shards);
}

// Leases that ran out: their shards' entities stop, without a handoff (no
// node is known to take them; the next owner starts them fresh).
void Region::check_lapses(Context& context) {
  const Instant now = context.now();
  for (ShardId shard = 0; shard < kind_.shards; ++shard) {
    if (had_lease_[shard] && !leases_->held(shard, now)) had_lease_[shard] = false;
  }
  for (auto it = entities_.begin(); it != entities_.end();) {
    const bool lapsed = !had_lease_[shard_of_key(it->first)] && it->second.served;
    it = lapsed ? stop(context, it, StopReason::no_lease) : std::next(it);
  }
  arm_lapse(context);
}

void Region::arm_lapse(Context& context) {
  next_lapse_ = Instant::never();
  for (ShardId shard = 0; shard < kind_.shards; ++shard) {
    if (had_lease_[shard]) next_lapse_ = std::min(next_lapse_, leases_->until(shard));
  }
  if (next_lapse_ == Instant::never()) {
    context.cancel_timer(kLapseTimer);
  } else {
    context.start_timer(kLapseTimer, std::max(next_lapse_ - context.now(), Duration::zero()));
  }
}

// Shards handed to another node: their votes here are dropped and the
// voters told, so the next owner need not wait out the promises.
void Region::release_moved(Context& context, const std::vector<ShardId>& shards) {
  if (!leases_ || shards.empty()) return;
  for (const ShardId shard : shards) {
    leases_->drop(shard, context.now());
    had_lease_[shard] = false;
  }
  const std::vector<std::uint8_t> release = encode_release(shards);
  for (const NodeAddress& voter : voters_) (void)send_lease_message(context, region_of(voter, kind_.name), kReleaseTag, release);
  arm_lapse(context);
}

}  // namespace weft::shard
