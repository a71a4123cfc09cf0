// Membership: joining through seeds, push-pull gossip with convergence
// tracking (membership/seen_set.hpp), applying the leader's moves (up,
// exiting, removed, down; membership/leader_actions.hpp), tombstones, and
// rejoining after being downed while alive.
#include <algorithm>
#include <array>
#include <limits>

#include "kernel/kernel.hpp"
#include "kernel/kernel_internal.hpp"
#include "kernel/membership/in_step.hpp"

namespace weft {
namespace {

// A join attempt contacts at most this many seeds, a random few when the
// list is longer. Every seed contacted answers with its whole state, so with
// every node listed as a seed (discovery that lists every pod; the
// simulator) contacting them all would make a join storm of N nodes cost N²
// links and N² states. Usual seed lists (3 to 5) are contacted whole.
constexpr std::size_t kJoinContacts = 5;


// The element at `pick` of `pool` (sorted, unique) once the elements in
// `chosen` are taken out of it, as if they had been erased.
std::uint32_t nth_not_chosen(const std::vector<std::uint32_t>& pool, std::size_t pick,
                             std::span<const std::uint32_t> chosen) {
  std::array<std::size_t, 16> gone{};
  std::size_t gone_count = 0;
  for (const std::uint32_t c : chosen) {
    const auto at = std::lower_bound(pool.begin(), pool.end(), c);
    if (at != pool.end() && *at == c) gone[gone_count++] = static_cast<std::size_t>(at - pool.begin());
  }
  std::sort(gone.begin(), gone.begin() + static_cast<std::ptrdiff_t>(gone_count));
  std::size_t position = pick;
  for (std::size_t i = 0; i < gone_count; ++i) {
    if (gone[i] <= position) ++position;
  }
  WEFT_ASSERT(position < pool.size());
  return pool[position];
}

// The element at `pick` of `pool` (sorted, unique) once `taken` (sorted, a
// subset of pool) is taken out of it.
std::uint32_t nth_not_taken(const std::vector<std::uint32_t>& pool, std::size_t pick,
                            const std::vector<std::uint32_t>& taken) {
  std::size_t position = pick;
  for (const std::uint32_t t : taken) {
    const auto at = std::lower_bound(pool.begin(), pool.end(), t);
    WEFT_ASSERT(at != pool.end() && *at == t);
    if (static_cast<std::size_t>(at - pool.begin()) <= position) ++position;
  }
  WEFT_ASSERT(position < pool.size());
  return pool[position];
}

// Gossip's uniform picks (those not aimed at peers that have not seen this
// state) come from a small random view, not from every peer: drawn from
// every peer, a converged node of a thousand would in time hold a link to
// each of them, and opening those links was most of a steady run's cost
// (docs/performance.md). Twice log2 of the peers plus the fanout keeps the
// views a well-knit random graph, so a change still spreads in O(log N)
// rounds; one member is swapped every kGossipViewSwapRounds rounds so that
// no fixed neighbourhood stays cut off.
constexpr std::uint32_t kGossipViewSwapRounds = 25;

std::size_t gossip_view_size(std::size_t peers, std::uint32_t fanout) {
  std::size_t log2 = 0;
  while ((std::size_t{1} << log2) <= peers) ++log2;
  return std::min(peers, 2 * log2 + fanout);
}

std::uint64_t combined_digest(const MemberTable& members, const ReachabilityTable& reachability) {
  return fingerprint_u64(members.digest(), reachability.digest());
}

}  // namespace

MemberStatus Kernel::self_status() const {
  const Member* me = members_.find(self_.address);
  WEFT_ASSERT(me != nullptr);
  return me->status;
}

bool Kernel::is_live(const NodeAddress& address) const {
  const Member* m = members_.find(address);
  return m != nullptr && is_live_status(m->status);
}

bool Kernel::is_gone(const MemberId& id) const {
  // A superseded incarnation, or a member removed or pruned.
  const Member* m = members_.find(id.address);
  return m == nullptr || m->id != id || m->status == MemberStatus::removed;
}

bool Kernel::counts_as_observer(const MemberId& observer) const {
  const Member* m = members_.find(observer.address);
  if (m == nullptr || m->id != observer || !is_live_status(m->status)) return false;
  // An observer others cannot reach is as likely the broken one.
  return observer == self_ || !reachability_.is_unreachable(observer);
}

bool Kernel::is_unreachable(const MemberId& subject) const {
  return std::binary_search(unreachable_view_.begin(), unreachable_view_.end(), subject);
}

std::optional<NodeAddress> Kernel::leader() const {
  return elect_leader(members_.members(), excused_view_, config_.mutations.leader_ignores_reachability);
}

bool Kernel::converged() const {
  WEFT_ASSERT(seen_.over(members_));  // every change of the table resets the set over it
  return seen_.covers(members_.members(), excused_view_);
}

bool Kernel::add_seen(const MemberId& holder) {
  WEFT_ASSERT(seen_.over(members_));
  const Member* record = members_.find(holder.address);
  if (record == nullptr || record->id != holder) return false;  // no bit: it cannot count
  return seen_.add(static_cast<std::size_t>(record - members_.members().data()));
}

std::vector<MemberId> Kernel::seen_by() const {
  WEFT_ASSERT(seen_.over(members_));
  std::vector<MemberId> holders;
  const std::span<const Member> members = members_.members();
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (seen_.contains(i)) holders.push_back(members[i].id);
  }
  return holders;
}

void Kernel::start_membership() {
  WEFT_ASSERT(started_);  // the first input starts membership, once
  sorted_seeds_ = config_.seeds;
  std::sort(sorted_seeds_.begin(), sorted_seeds_.end());
  sorted_seeds_.erase(std::unique(sorted_seeds_.begin(), sorted_seeds_.end()), sorted_seeds_.end());
  members_.merge(Member{self_, MemberStatus::joining});
  // The first round, join and heal probe at once, not a round late.
  timers_.arm(Timer::gossip, now_);
  timers_.arm(Timer::join, now_);
  if (!config_.mutations.heal_probe_off) timers_.arm(Timer::heal_probe, now_);
  // Heartbeats start at a phase of this node's own, so that nodes started
  // together do not heartbeat in step: a leader's two silence clocks, its
  // own round and the subject's, then meet a failure at independent
  // phases (docs/failure-detection.md).
  timers_.arm(Timer::heartbeat, now_ + prng_.uniform(Duration::milliseconds(1), config_.heartbeat_interval));
  events_.push_back(MemberEvent{Member{self_, MemberStatus::joining}, false, MemberStatus::joining});
  on_state_changed();
  WEFT_ASSERT(self_status() == MemberStatus::joining);
}

void Kernel::on_state_changed() {
  (void)vouched_.refresh(members_, self_, now_);
  settle_monitors();
  digest_ = combined_digest(members_, reachability_);
  seen_.reset(members_, self_);
  hasten_gossip(converged());
  // A node that finds itself alone (every other member gone) joins again
  // through the seeds, at once unless an attempt is already due. The gossip
  // targets are rebuilt by the round that uses them, not here: a joining
  // thousand changes state dozens of times between rounds.
  const bool alone = !has_live_peer();
  if (started_ && alone && !timers_.armed(Timer::join)) timers_.arm(Timer::join, now_);
  WEFT_ASSERT(!started_ || !alone || timers_.armed(Timer::join));  // never alone and idle
}

bool Kernel::has_live_peer() const {
  const std::span<const Member> members = members_.members();
  return std::any_of(members.begin(), members.end(),
                     [&](const Member& m) { return is_live_status(m.status) && m.address() != self_.address; });
}

// A change (or news of who has seen it) waits for no round: the next round
// comes at once, but never sooner than a quarter interval after the last,
// so churn costs at most four times the steady gossip, and a cluster where
// everyone has seen this node's state gossips at its steady pace.
void Kernel::hasten_gossip(bool is_converged) {
  if (!started_ || is_converged) return;
  const Instant soonest = std::max(now_, last_gossip_ + config_.gossip_interval / 4);
  timers_.arm_no_later(Timer::gossip, soonest);
  WEFT_ASSERT(timers_.deadline(Timer::gossip) <= soonest);
}

void Kernel::update_reachability_view() {
  std::vector<MemberId> view;
  for (const Member& m : members_.members()) {
    if (!is_live_status(m.status)) continue;
    // This node reads the rows, so it is alive to read them: others' marks
    // of it are stale news, withdrawn once they hear it (M7).
    if (m.id == self_ && !config_.mutations.flap_guard_off) continue;
    const bool unreachable = reachability_.is_unreachable(
        m.id, [&](const MemberId& observer) { return counts_as_observer(observer); });
    if (unreachable) view.push_back(m.id);
  }
  // view is in address order, which for distinct addresses is MemberId order.
  for (const MemberId& id : view) {
    if (!std::binary_search(unreachable_view_.begin(), unreachable_view_.end(), id)) {
      unreachable_since_[id.address] = now_;
      events_.push_back(ReachabilityEvent{id, true});
    }
  }
  for (const MemberId& id : unreachable_view_) {
    if (!std::binary_search(view.begin(), view.end(), id)) {
      // The downing clock is the address's: a new life of it that entered
      // the view just now keeps the time the first loop gave it.
      const auto same_address = std::lower_bound(
          view.begin(), view.end(), id.address, [](const MemberId& v, const NodeAddress& a) { return v.address < a; });
      if (same_address == view.end() || same_address->address != id.address) unreachable_since_.erase(id.address);
      if (is_live(id.address)) events_.push_back(ReachabilityEvent{id, false});
    }
  }
  if (!view.empty() || !unreachable_view_.empty()) last_disturbed_ = now_;
  unreachable_view_ = std::move(view);
  // Strictly increasing: is_unreachable() and the walks above binary-search it.
  WEFT_ASSERT(std::adjacent_find(unreachable_view_.begin(), unreachable_view_.end(),
                                 [](const MemberId& a, const MemberId& b) { return !(a < b); }) ==
              unreachable_view_.end());
  // Every member in the view has its downing clock running (the leader
  // judges by it; a missing one would never be downed).
  WEFT_ASSERT(std::all_of(unreachable_view_.begin(), unreachable_view_.end(),
                          [&](const MemberId& id) { return unreachable_since_.count(id.address) != 0; }));
  update_excused_view();
}

void Kernel::update_excused_view() {
  const std::span<const MemberId> unvouched = vouched_.view();
  excused_view_.clear();
  std::set_union(unreachable_view_.begin(), unreachable_view_.end(), unvouched.begin(), unvouched.end(),
                 std::back_inserter(excused_view_));
}

// Evidence came that is not a change of state (a handshake, seen bits): if
// it vouched for a member, that member now counts. The ring may move with
// it, and a monitor dropped withdraws its mark, which is a change of state.
void Kernel::on_vouching_changed() {
  if (!started_ || !vouched_.refresh(members_, self_, now_)) return;
  gossip_targets_.valid = false;
  const ReachabilityTable rows_before = reachability_;
  settle_monitors();
  if (!(reachability_ == rows_before)) on_state_changed();
}

// The walk passes unreachable members, so a new view can move this node's
// monitors. It settles in one more pass: a subject dropped from the walk
// lies past the k-th reachable member, so withdrawing this node's mark on
// it (which may change the view again) leaves the walk as it is.
void Kernel::settle_monitors() {
  refresh_monitors();
  update_reachability_view();
  for (int pass = 0; ring_view_ != unreachable_view_; ++pass) {
    WEFT_ASSERT(pass < 2);
    refresh_monitors();
    update_reachability_view();
  }
}

void Kernel::emit_member_changes(const std::vector<Member>& before) {
  auto old = before.begin();
  bool changed = members_.members().size() != before.size();
  for (const Member& now_member : members_.members()) {
    const Member* was = find_in_step(old, before.end(), now_member.address(), &Member::address);
    if (was != nullptr && *was == now_member) continue;
    changed = true;
    const bool known = was != nullptr;
    events_.push_back(MemberEvent{now_member, known, known ? was->status : MemberStatus::joining});
    const NodeAddress& address = now_member.address();
    tombstones_.changed(address);
    if (now_member.status == MemberStatus::down) {
      down_since_.emplace(address, now_);
      if (address != self_.address) last_disturbed_ = now_;
    }
    if (now_member.status == MemberStatus::removed) tombstones_.removed(address, now_);
    if (!is_live_status(now_member.status) && address != self_.address) {
      // S3: nothing waits on a member that is gone.
      fail_asks_to(address);
      close_outbound(address, CloseReason::peer_gone);
    }
  }
  if (changed) notify_member_watchers();
}

void Kernel::apply_status(const NodeAddress& address, MemberStatus status) {
  const Member* m = members_.find(address);
  WEFT_ASSERT(m != nullptr);
  WEFT_ASSERT(status >= m->status);  // M2: forward only
  if (status == m->status) return;
  const std::vector<Member> before(members_.members().begin(), members_.members().end());
  members_.merge(Member{m->id, status});
  WEFT_ASSERT(members_.find(address)->status == status);  // m may dangle after the merge
  emit_member_changes(before);
  on_state_changed();
}

bool Kernel::accept_record(const Member& incoming) const {
  return accept_record(incoming, members_.find(incoming.address()), newest_incarnation());
}

Incarnation Kernel::newest_incarnation() const {
  Incarnation newest = self_.incarnation;
  for (const Member& m : members_.members()) newest = std::max(newest, m.incarnation());
  return newest;
}

bool Kernel::accept_record(const Member& incoming, const Member* known, Incarnation newest,
                           std::span<const ReachabilityRow> rows) const {
  if (incoming.incarnation().value == 0) return false;
  // A newer life above the clock, at any address (membership/life_ceiling.hpp).
  if ((known == nullptr || incoming.incarnation() > known->incarnation()) && above_clock(incoming.incarnation().value)) {
    return false;
  }
  if (incoming.address() == self_.address) {
    // Only this process takes this address's incarnations, and only it
    // asks to leave: a newer life or a leave it never asked for is another
    // process's word (refuted: note_claim_about_self). The leader's moves
    // (exiting of a leave, down, removed) stay taken.
    if (incoming.incarnation() > self_.incarnation) return false;
    const bool unasked_leave = incoming.incarnation() == self_.incarnation && !leaving_ &&
                               (incoming.status == MemberStatus::leaving || incoming.status == MemberStatus::exiting);
    if (unasked_leave && !config_.mutations.claim_refutation_off) return false;
    // A down of this life while nothing cut it off: nobody could have
    // decided it on rows, so it is refuted, not obeyed
    // (membership/down_claims.hpp).
    const bool refutable_down = incoming.incarnation() == self_.incarnation && !is_live_status(incoming.status) &&
                                !leaving_ && !config_.mutations.down_hold_off && !was_cut_off(rows);
    return !refutable_down;
  }
  // A life whose tombstone was dropped here is over, at any status
  // (membership/tombstones.hpp); a newer one is a new life.
  if (known == nullptr && tombstones_.forgotten(incoming)) return false;
  if (config_.mutations.ingest_guard_off) return true;
  // A jump is judged against the life known for the address; an address
  // held nothing of, against the newest life this node knows (incarnations
  // share one scale, weftd's start times in ms), so a forged record cannot
  // squat an address at a life its real node could never pass (issue 43,
  // case 3: one at 2^62 kept the real node out for good).
  const Incarnation base = known != nullptr ? known->incarnation() : newest;
  return incoming.incarnation() <= base || incoming.incarnation().value - base.value <= config_.max_incarnation_jump;
}

MemberTable Kernel::accept_records(const NodeAddress& from, std::vector<Member>&& records,
                                   std::span<const ReachabilityRow> rows, std::vector<NodeAddress>& refused,
                                   std::vector<Member>& to_subjects) {
  // The records come sorted by address (the decoder requires it), so one
  // walk alongside our own table finds each one's known record.
  std::vector<Member> accepted;
  accepted.reserve(records.size());
  const std::span<const Member> mine = members_.members();
  const Incarnation newest = newest_incarnation();
  const std::uint32_t may_add = config_.mutations.ingest_uncapped ? std::numeric_limits<std::uint32_t>::max()
                                                                  : new_members_.left(from, now_);
  std::uint32_t added = 0;
  auto known = mine.begin();
  for (Member& m : records) {
    const Member* held = find_in_step(known, mine.end(), m.address(), &Member::address);
    const bool is_new = held == nullptr && m.address() != self_.address;
    const bool plausible = accept_record(m, held, newest, rows);
    if (plausible && is_new && added == may_add) {
      // Plausible, but past what `from` may add this interval: left for
      // its next gossip (membership/new_member_budget.hpp).
      ++counters_.new_members_deferred;
      refused.push_back(m.address());
      continue;
    }
    if (plausible && held != nullptr && held->id == m.id &&
        (held->status == MemberStatus::joining || held->status == MemberStatus::up) && !is_live_status(m.status) &&
        m.address() != self_.address && !config_.mutations.down_hold_off) {
      // A down of a life held joining or up: taken on evidence here, else
      // held for its subject to refute (membership/down_claims.hpp). One on
      // its way out by its own leave is removed on no rows.
      const Duration wait = bounds_now().refute;
      switch (down_claims_.judge(m.id, down_has_evidence(m.id, rows), now_, wait)) {
        case DownVerdict::take: break;
        case DownVerdict::hold_first:
          ++counters_.downs_held;
          to_subjects.push_back(m);
          [[fallthrough]];
        case DownVerdict::hold: refused.push_back(m.address()); continue;
      }
    }
    if (plausible) {
      if (is_new) ++added;
      accepted.push_back(std::move(m));
      continue;
    }
    ++counters_.ingest_rejected;
    if (held == nullptr && tombstones_.forgotten(m)) ++counters_.forgotten_lives_refused;
    if ((held == nullptr || m.incarnation() > held->incarnation()) && above_clock(m.incarnation().value)) {
      ++counters_.lives_above_clock;
    }
    mark(Mark::ingest_guard);
    if (m.address() == self_.address) {
      if (!is_live_status(m.status)) ++counters_.downs_refuted;
      note_claim_about_self(m);
    }
    refused.push_back(m.address());
  }
  if (!config_.mutations.ingest_uncapped) new_members_.spend(from, now_, added);
  return MemberTable::from_sorted(std::move(accepted));
}

namespace {

// A row in `rows` (the same frame as a down) marks `life` unreachable: the
// leader gossips the rows it decided on with the down. One under `self`'s
// life is not its word (row_claims.hpp).
bool frame_marks(std::span<const ReachabilityRow> rows, const MemberId& life, const MemberId& self) {
  return std::any_of(rows.begin(), rows.end(), [&](const ReachabilityRow& row) {
    return row.observer.address != self.address &&
           std::find(row.unreachable.begin(), row.unreachable.end(), life) != row.unreachable.end();
  });
}

}  // namespace

bool Kernel::down_has_evidence(const MemberId& life, std::span<const ReachabilityRow> rows) const {
  if (!vouched_.holds(life)) return true;  // the leader downs what nothing vouches for, on no rows
  return reachability_.is_unreachable(life) || frame_marks(rows, life, self_);
}

const Bounds& Kernel::bounds_now() const {
  if (!bounds_cache_ || bounds_cache_->first != members_.size()) {
    bounds_cache_.emplace(members_.size(), compute_bounds(config_, members_.size()));
  }
  return bounds_cache_->second;
}

bool Kernel::above_clock(std::uint64_t incarnation) const {
  return !config_.mutations.incarnation_clock_off && !life_ceiling_.allows(incarnation, now_);
}

bool Kernel::was_cut_off(std::span<const ReachabilityRow> rows) const {
  CutOffEvidence evidence;
  evidence.marked_unreachable = reachability_.is_unreachable(self_) || frame_marks(rows, self_, self_);
  evidence.last_disturbed = unreachable_view_.empty() ? last_disturbed_ : std::optional<Instant>(now_);
  return weft::was_cut_off(evidence, now_, bounds_now().heal);
}

void Kernel::note_claim_about_self(const Member& claim) {
  WEFT_ASSERT(claim.address() == self_.address);
  const std::uint64_t mine = self_.incarnation.value;
  const std::uint64_t claimed = claim.incarnation().value;
  // A claim past the jump bound is refused everywhere it is judged
  // against a known life, so it cannot spread: nothing to refute, and
  // refuting it would let a forger walk this node to the top of the range.
  if (claimed > mine && claimed - mine > config_.max_incarnation_jump) return;
  if (claimed == std::numeric_limits<std::uint64_t>::max()) return;  // no life above it
  if (above_clock(claimed)) return;  // refused everywhere as well: nothing to refute (life_ceiling.hpp)
  if (config_.mutations.claim_refutation_off) return;
  refute_above_ = Incarnation{std::max(claimed, refute_above_ ? refute_above_->value : 0)};
}

void Kernel::send_gossip_state(const NodeAddress& peer) {
  WEFT_ASSERT(seen_.over(members_));  // the bits are over the members sent
  send_control(peer, wire::GossipStateView{members_.members(), reachability_.rows(), seen_.bits()});
  ++counters_.gossip_states_sent;
}

namespace {

// The entries of `mine` that `theirs` lacks or holds otherwise; both lists
// sorted by `key`, so one walk finds them.
template <class T, class Key>
std::vector<T> differing(std::span<const T> mine, std::span<const T> theirs, Key key) {
  std::vector<T> out;
  auto other = theirs.begin();
  for (const T& entry : mine) {
    const T* same_key = find_in_step(other, theirs.end(), key(entry), key);
    if (same_key == nullptr || *same_key != entry) out.push_back(entry);
  }
  return out;
}

}  // namespace

// `peer` sent us `theirs` (the records and rows we took from it): what goes
// back is only what differs in ours, with our digest and seen set, so a whole
// state is answered by the few records the sender lacks. Nothing goes back
// when all that differs is records we refused (`refused`, in address order):
// the sender keeps them and would send them again.
void Kernel::send_gossip_delta(const NodeAddress& peer, const MemberTable& theirs,
                               const ReachabilityTable& their_rows, const std::vector<NodeAddress>& refused) {
  const std::vector<Member> members =
      differing(members_.members(), theirs.members(), [](const Member& m) -> const NodeAddress& { return m.address(); });
  const std::vector<ReachabilityRow> rows = differing(
      reachability_.rows(), their_rows.rows(), [](const ReachabilityRow& r) -> const MemberId& { return r.observer; });
  const bool only_refused = !refused.empty() && rows.empty() &&
                            std::all_of(members.begin(), members.end(), [&](const Member& m) {
                              return std::binary_search(refused.begin(), refused.end(), m.address());
                            });
  if (only_refused) {
    ++counters_.gossip_replies_withheld;
    return;
  }
  send_delta(peer, members, rows);
}

// Records and rows (none: the seen set alone) under our digest and seen set.
void Kernel::send_delta(const NodeAddress& peer, std::span<const Member> members,
                        std::span<const ReachabilityRow> rows) {
  WEFT_ASSERT(seen_.over(members_));
  send_control(peer, wire::GossipDeltaView{digest_, members, rows, seen_.bits()});
  ++counters_.gossip_deltas_sent;
}

bool Kernel::ignores_gossip_from(const MemberId& from) const {
  if (!config_.mutations.downed_gossip_ignored) return false;
  const Member* sender = members_.find(from.address);
  return sender != nullptr && sender->id == from && !is_live_status(sender->status);
}

std::vector<NodeAddress> Kernel::take_in(const NodeAddress& from, std::vector<Member>&& records,
                                         std::span<const ReachabilityRow> rows, MemberTable& incoming,
                                         ReachabilityTable& incoming_rows) {
  std::vector<NodeAddress> refused;
  std::vector<Member> to_subjects;
  incoming = accept_records(from, std::move(records), rows, refused, to_subjects);
  std::vector<Member> before;  // filled only when the members change
  bool members_changed = false;
  if (config_.mutations.merge_order_dependent) {
    before.assign(members_.members().begin(), members_.members().end());
    members_changed = overwrite_members(incoming);
  } else {
    members_changed = members_.merge(incoming, &before);
  }
  // Rows of observers whose life is over here are not taken back: pruned
  // rows would otherwise circulate between nodes that prune at different
  // moments, and every return would reset convergence.
  // Only an observer writes its row (membership/row_claims.hpp): one under
  // this node's life that it did not write is refuted, not taken.
  std::optional<std::uint64_t> claimed_row;
  for (const ReachabilityRow& row : rows) {
    if (is_gone(row.observer)) continue;
    switch (judge_row(row, reachability_.row(row.observer), self_, config_.max_incarnation_jump)) {
      case RowVerdict::take: incoming_rows.merge(row); break;
      case RowVerdict::refute:
        if (config_.mutations.row_refutation_off) break;  // dropped here, left standing everywhere else
        claimed_row = std::max(claimed_row.value_or(0), row.version);
        ++counters_.rows_refuted;
        break;
      case RowVerdict::refuse: ++counters_.ingest_rejected; break;
    }
  }
  if (claimed_row) reachability_.rewrite_above(self_, *claimed_row);
  const bool rows_changed = reachability_.merge(incoming_rows) || claimed_row.has_value();
  if (members_changed) emit_member_changes(before);
  if (members_changed || rows_changed) on_state_changed();
  // Each held down goes to its subject once, which refutes it if alive.
  for (const Member& down : to_subjects) send_delta(down.address(), std::span<const Member>(&down, 1), {});
  return refused;
}

void Kernel::merge_gossip(const MemberId& from, wire::GossipState&& state) {
  if (ignores_gossip_from(from)) return;
  MemberTable incoming;
  ReachabilityTable incoming_rows;
  const std::size_t sent = state.members.size();
  std::vector<NodeAddress> leaders_addresses;  // a whole state from our leader: the tombstones it holds
  if (!tombstones_.none_held() && !config_.mutations.tombstone_echo && leader() == from.address &&
      from.address != self_.address) {
    leaders_addresses.reserve(state.members.size());
    for (const Member& m : state.members) leaders_addresses.push_back(m.address());
  }
  const std::vector<NodeAddress> refused =
      take_in(from.address, std::move(state.members), state.rows, incoming, incoming_rows);
  if (!leaders_addresses.empty()) follow_leader_tombstones(leaders_addresses);
  // The sender's state, as we took it in, is ours: compared exactly, which
  // is what comparing the two digests stands for, without hashing theirs.
  if (incoming == members_ && incoming_rows == reachability_) {
    // Same state as the sender's: whoever saw it has now seen ours. Its
    // bits are over the records it sent, so over our table only if we took
    // every one. The sender itself counts either way, as it did when seen
    // sets were lists: it holds all of our state, and what it holds beyond
    // it is what this node refused to take.
    if (sent == members_.size()) seen_.merge(state.seen);
    add_seen(from);
    on_seen_grew();
  } else {
    send_gossip_delta(from.address, incoming, incoming_rows, refused);  // we hold something the sender lacks
  }
  check_self_status();
}

// A delta holds the sender's state as far as it differs from one we sent:
// with its records merged, equal digests mean we hold the sender's whole
// state, so its seen set is ours to merge. A digest still different means
// we hold more (or moved on since), so our whole state goes back.
void Kernel::merge_gossip_delta(const MemberId& from, wire::GossipDelta&& delta) {
  if (ignores_gossip_from(from)) return;
  MemberTable incoming;
  ReachabilityTable incoming_rows;
  const std::vector<NodeAddress> refused =
      take_in(from.address, std::move(delta.members), delta.rows, incoming, incoming_rows);
  if (delta.digest == digest_) {
    // Equal digests: the sender's table is ours, so its bits are over ours.
    // Bits that do not fit it come from a peer that is not (a collision of
    // digests, or a faulty peer), and teach nothing.
    if (seen_bits_fit(delta.seen, members_.size())) seen_.merge(delta.seen);
    add_seen(from);
    on_seen_grew();
  } else if (!refused.empty()) {
    // Our state would bring back the record we refused (the sender keeps
    // it), and the sender's answer would carry it again, at the speed of
    // the link. What else differs goes at the next digest.
    ++counters_.gossip_replies_withheld;
  } else {
    send_gossip_state(from.address);
  }
  check_self_status();
}

// A digest from `from`: a different one means the states differ, so ours
// goes back (and theirs returns if ours lacks something); an equal one means
// `from` holds our state, and the seen sets' sizes say which way the sets
// should flow (seen_set.hpp).
void Kernel::on_gossip_digest(const MemberId& from, const wire::GossipDigest& digest) {
  if (digest.digest != digest_) {
    send_gossip_state(from.address);
    return;
  }
  if (add_seen(from)) on_seen_grew();
  // on_seen_grew may have changed the state (the leader acted): what is
  // answered is the state as it is now.
  switch (reply_to_equal_digest(seen_.size(), digest.seen)) {
    case SeenReply::nothing: break;
    case SeenReply::send_state: send_delta(from.address, {}, {}); break;  // our seen set is what they lack
    case SeenReply::send_digest: send_control(from.address, wire::GossipDigest{digest_, seen_.size()}); break;
  }
}

// The leader acts the moment it sees convergence, not at its next gossip
// round: a joiner is moved up (or a leaver out) a round sooner per change.
void Kernel::on_seen_grew() {
  if (vouched_.note_seen(members_, seen_.bits())) on_vouching_changed();
  if (shut_down_ || config_.mutations.convergence_off) return;
  const bool is_converged = converged();
  if (is_converged && leader() == self_.address) leader_actions();
  hasten_gossip(is_converged);
}

bool Kernel::overwrite_members(const MemberTable& incoming) {
  // Mutations::merge_order_dependent: the sender's record replaces ours even
  // when ours is newer, so the result depends on who gossiped last.
  MemberTable result;
  for (const Member& m : members_.members()) {
    if (incoming.find(m.address()) == nullptr) result.merge(m);
  }
  for (const Member& m : incoming.members()) result.merge(m);
  if (result == members_) return false;
  members_ = std::move(result);
  ++member_table_epoch_;
  gossip_targets_.valid = false;  // the assigned table's version may repeat one cached
  vouched_.table_replaced();
  heal_candidates_.valid = false;
  ring_members_version_.reset();
  return true;
}

void Kernel::check_self_status() {
  const Member* me = members_.find(self_.address);
  WEFT_ASSERT(me != nullptr);
  if (me->id != self_) return;  // a newer record of ours is pending; nothing to do
  if (me->status == MemberStatus::removed && leaving_) {
    shut_down(false);
    return;
  }
  if (me->status == MemberStatus::down || me->status == MemberStatus::removed) {
    // Downed while alive (M3: a live node never keeps itself down).
    if (config_.mutations.self_down_kept) return;
    // Taken only with evidence that this node was cut off (accept_record
    // refutes the rest).
    if (config_.on_downed == OnDowned::shut_down) {
      shut_down(true);
      return;
    }
    rejoin();
    return;
  }
  if (refute_above_ && now_ >= next_refutation_) refute();
}
void Kernel::shut_down(bool downed) {
  shut_down_ = true;
  for (const auto& [address, out] : links_.outbound()) {
    if (!out.retired()) close_outbound(address, CloseReason::shutting_down);
  }
  for (const auto& [link, in] : links_.inbound()) close_inbound(link, CloseReason::shutting_down);
  events_.push_back(ShutdownEvent{downed});
  for (const auto& [address, out] : links_.outbound()) WEFT_ASSERT(out.retired());
  for (const auto& [link, in] : links_.inbound()) WEFT_ASSERT(in.closed());
}

void Kernel::rejoin() {
  mark(Mark::rejoined_after_down);
  WEFT_ASSERT(self_status() == MemberStatus::down || self_status() == MemberStatus::removed);
  take_new_life(self_.incarnation);
}

void Kernel::take_joiner(const MemberId& joiner) {
  if (!accept_record(Member{joiner, MemberStatus::joining})) return;
  const std::vector<Member> before(members_.members().begin(), members_.members().end());
  if (members_.merge(Member{joiner, MemberStatus::joining})) {
    emit_member_changes(before);
    on_state_changed();
  }
  WEFT_ASSERT(members_.find(joiner.address) != nullptr);  // the joiner, or a newer life of it
  send_gossip_state(joiner.address);
}

// Another process said of this node what only it may say (a newer life, a
// leave it never asked for): a forger, or a stale copy of its address. A
// life above the claim supersedes it in every honest table, as SWIM's
// refutation does with a higher incarnation. In weft a life is an
// incarnation (links, monitors and reachability rows are keyed by it), so
// refuting is joining again, above the claim; a leave under way is asked
// again in the new life.
void Kernel::refute() {
  WEFT_ASSERT(refute_above_ && now_ >= next_refutation_);
  mark(Mark::refuted_claim);
  ++counters_.refutations;
  next_refutation_ = now_ + config_.gossip_interval;
  const bool was_leaving = leaving_;
  take_new_life(*refute_above_);
  if (was_leaving) {
    leaving_ = true;
    apply_status(self_.address, MemberStatus::leaving);
  }
  WEFT_ASSERT(!refute_above_ && next_refutation_ > now_);
}

// This node's next life, above `above`, its own record and any claim still
// to refute; it joins afresh: links, monitors and probes belonged to the
// old life.
void Kernel::take_new_life(Incarnation above) {
  const Member* me = members_.find(self_.address);
  WEFT_ASSERT(me != nullptr && me->incarnation() <= self_.incarnation);  // accept_record refuses newer ones
  const std::uint64_t pending = refute_above_ ? refute_above_->value : 0;
  self_.incarnation = Incarnation{std::max({above.value, self_.incarnation.value, pending}) + 1};
  refute_above_.reset();
  for (const auto& [address, out] : links_.outbound()) {
    if (!out.retired()) close_outbound(address, CloseReason::rejoining);
  }
  for (const auto& [link, in] : links_.inbound()) close_inbound(link, CloseReason::rejoining);
  monitors_.clear();
  ++liveness_generation_;
  probes_.clear();
  leaving_ = false;
  const std::vector<Member> before(members_.members().begin(), members_.members().end());
  members_.merge(Member{self_, MemberStatus::joining});
  emit_member_changes(before);
  timers_.arm(Timer::join, now_);
  on_state_changed();
  const Member* reborn = members_.find(self_.address);
  WEFT_ASSERT(reborn != nullptr && reborn->id == self_ && reborn->status == MemberStatus::joining);
}

void Kernel::leave(Instant now) {
  advance(now);
  if (shut_down_ || leaving_) return;
  leaving_ = true;
  if (self_status() < MemberStatus::leaving) apply_status(self_.address, MemberStatus::leaving);
  WEFT_ASSERT(self_status() >= MemberStatus::leaving);
  links_.sweep();
}

void Kernel::drop_tombstones(const std::vector<NodeAddress>& addresses) {
  for (const NodeAddress& address : addresses) {
    tombstones_.dropped(address, members_.find(address), !config_.mutations.tombstone_echo);
    down_since_.erase(address);
    proven_lives_.erase(address);
    members_.prune([&](const Member& r) { return r.address() == address && r.status == MemberStatus::removed; });
  }
}

// A whole state from this node's leader: the tombstones it no longer holds
// go here too (membership/tombstones.hpp).
void Kernel::follow_leader_tombstones(const std::vector<NodeAddress>& leaders_addresses) {
  const std::vector<NodeAddress> gone = tombstones_.unheld_by_leader(now_, leaders_addresses, members_);
  if (gone.empty()) return;
  drop_tombstones(gone);
  on_state_changed();
}

// Tombstones that are due by this node's clock (membership/tombstones.hpp:
// the leader's after tombstone_ttl, the others' after twice that), and
// proofs and rows of lives that are over.
void Kernel::prune_gone() {
  // The leader is only asked when something waits to be dropped.
  const bool leads =
      !tombstones_.none_held() && (config_.mutations.tombstone_echo || leader() == self_.address);
  // Past the cap, a tombstone goes early once its removal had the time to
  // reach every node (membership/tombstones.hpp).
  const Duration settle =
      tombstones_.crowded() ? (config_.gossip_interval + bounds_now().spread) * 2 : Duration::zero();
  const std::vector<NodeAddress> expired = tombstones_.due(now_, leads, settle);
  drop_tombstones(expired);
  dial_backs_.expire(now_);
  new_members_.expire(now_);
  // Proofs of addresses that left the table (strangers' hellos among
  // them), so that dialers naming ever new addresses cannot grow it.
  if (proven_lives_.size() > members_.size()) {
    std::erase_if(proven_lives_, [&](const auto& entry) { return members_.find(entry.first) == nullptr; });
  }
  std::erase_if(stale_answers_, [&](const auto& entry) { return members_.find(entry.first) == nullptr; });
  vouched_.prune(members_);
  down_claims_.prune([&](const MemberId& life) {
    const Member* m = members_.find(life.address);
    return m != nullptr && m->id == life && is_live_status(m->status);
  });
  // Rows and entries about lives that are over.
  const bool rows_changed =
      reachability_.prune([&](const MemberId& id) { return is_gone(id); }, self_) > 0;
  if (!expired.empty() || rows_changed) on_state_changed();
}

void Kernel::leader_actions() {
  // Downs fall due between gossip rounds: the next is kept as a deadline,
  // so a member is downed when its wait ends, not up to a round later.
  // Cleared first, so a node that is not (or no longer) the leader holds
  // no deadline.
  timers_.disarm(Timer::down_check);
  if (leader() != self_.address) return;
  if (waits_for_seed(members_.members(), self_.address, config_.seeds)) return;
  const LeaderActions actions(
      config_, LeaderActions::Round{now_, converged() && !config_.mutations.convergence_off,
                                    !config_.mutations.joiners_up_late || timers_.due(Timer::heal_probe, now_)});
  const std::vector<Member> snapshot(members_.members().begin(), members_.members().end());
  for (const Member& m : snapshot) {
    // Each member is judged by the tables as they are now, after the moves
    // before it (leader_actions.hpp).
    const LeaderMove move = actions.judge(m, standing(m));
    if (move.down_due != Instant::never()) timers_.arm_no_later(Timer::down_check, move.down_due);
    if (move.status) apply_status(m.address(), *move.status);
  }
}

MemberStanding Kernel::standing(const Member& member) const {
  MemberStanding standing;
  standing.is_self = member.address() == self_.address;
  standing.unreachable = is_unreachable(member.id) || vouched_.excuses(member.id);
  standing.unvouched_since = vouched_.since(member.id);
  if (const auto since = unreachable_since_.find(member.address()); since != unreachable_since_.end()) {
    standing.evidence = down_evidence(member.id, since->second);
  }
  if (const auto since = down_since_.find(member.address()); since != down_since_.end()) {
    standing.down_since = since->second;
  }
  return standing;
}

// The observers that count are live and not unreachable themselves
// (counts_as_observer), both for the marks and for the monitors expected
// to make them: a partition silences the monitors on the far side.
DownEvidence Kernel::down_evidence(const MemberId& subject, Instant unreachable_since) const {
  DownEvidence evidence;
  evidence.unreachable_since = unreachable_since;
  evidence.last_heard = last_heard(subject.address);
  if (const auto monitor = monitors_.find(subject); monitor != monitors_.end()) {
    evidence.watched = true;
    evidence.silent_since = monitor->second.silence.silent_since(evidence.last_heard, config_.heartbeat_interval);
  }
  for (const MemberId& observer : reachability_.observers_of(subject)) {
    if (counts_as_observer(observer)) ++evidence.confirmed;
  }
  for (const MemberId& monitor : ring_.predecessors(subject, config_.monitored_by, ring_view_)) {
    if (counts_as_observer(monitor)) ++evidence.expected;
  }
  // The walk counts k members outside the view; this node always counts as
  // an observer, and the view holds it only with the flap guard planted off.
  const bool self_in_view = std::binary_search(ring_view_.begin(), ring_view_.end(), self_);
  WEFT_ASSERT(evidence.expected <= config_.monitored_by + (self_in_view ? 1 : 0));
  return evidence;
}

void Kernel::heal_probe() {
  // After a partition long enough for each side to down the other, no live
  // member links the two sides. So every join_retry_interval this node sends
  // its digest to one seed or downed/removed member it does not count as
  // live: whoever answers with a different state starts the merge, and the
  // side that learns it was downed rejoins (M5).
  WEFT_ASSERT(!config_.mutations.heal_probe_off && timers_.due(Timer::heal_probe, now_));
  if (config_.mutations.joiners_up_late) leader_actions();  // its only chance to move joiners up
  timers_.arm(Timer::heal_probe, now_ + config_.join_retry_interval);
  const std::vector<NodeAddress>& candidates = heal_candidates();
  if (candidates.empty()) return;
  send_control(candidates[prng_.below(candidates.size())], wire::GossipDigest{digest_, seen_.size()});
}

// heal_probe's candidates: seeds not live and members not live that this
// node had evidence of (vouched_lives.hpp), but self, in address order. A
// flood of invented members leaves thousands of tombstones no process is
// behind: drawn among them, a probe found the other side of a partition
// about once in a thousand tries. Rebuilt only when the member table or the
// evidence changed: with every node a seed, the walk compared a thousand
// host strings per probe.
const std::vector<NodeAddress>& Kernel::heal_candidates() {
  HealCandidates& cache = heal_candidates_;
  if (cache.valid && cache.members_version == members_.version() &&
      cache.evidence_version == vouched_.evidence_version()) {
    return cache.addresses;
  }
  cache.valid = true;
  cache.members_version = members_.version();
  cache.evidence_version = vouched_.evidence_version();
  cache.addresses.clear();
  // Both lists are sorted and unique, so their union is a merge, not a sort.
  const std::span<const Member> members = members_.members();
  std::vector<const NodeAddress*> seeds;
  auto member = members.begin();
  for (const NodeAddress& seed : sorted_seeds_) {
    while (member != members.end() && member->address() < seed) ++member;
    const bool live = member != members.end() && member->address() == seed && is_live_status(member->status);
    if (seed != self_.address && !live) seeds.push_back(&seed);
  }
  std::vector<const NodeAddress*> gone;
  for (const Member& m : members) {
    if (m.address() != self_.address && !is_live_status(m.status) && vouched_.holds(m.id)) {
      gone.push_back(&m.address());
    }
  }
  std::vector<const NodeAddress*> candidates;
  std::set_union(seeds.begin(), seeds.end(), gone.begin(), gone.end(), std::back_inserter(candidates),
                 [](const NodeAddress* a, const NodeAddress* b) { return *a < *b; });
  for (const NodeAddress* address : candidates) cache.addresses.push_back(*address);
  return cache.addresses;
}

// Link tables up to this size are checked whole against unlive_links_ every
// round (check_unlive_links): every 5- and 32-node run asserts the invariant.
constexpr std::size_t kLinksCheckedWhole = 64;

void Kernel::close_idle_links(bool joining) {
  // Links to addresses that are neither live members nor seeds being tried
  // are closed once drained: nothing more will be sent there. Only the
  // links outbound() noted in unlive_links_ can be such links, so only they
  // are looked at, in address order: a node linked to a thousand members
  // no longer walks its link table every round.
  if (links_.outbound().size() <= kLinksCheckedWhole) check_unlive_links();
  for (auto it = unlive_links_.begin(); it != unlive_links_.end();) {
    const auto link = links_.find_outbound(*it);
    if (!links_.found(link) || link->second.retired() || is_live(*it)) {
      it = unlive_links_.erase(it);  // gone, or a member now: emit_member_changes closes it if it leaves
      continue;
    }
    const Outbound& out = link->second;
    const bool draining = out.writing || !out.control.empty() || out.user_queued() > 0;
    const bool joining_seed = joining && std::binary_search(sorted_seeds_.begin(), sorted_seeds_.end(), *it);
    if (draining || joining_seed || dial_backs_.awaits(*it)) {
      ++it;
      continue;
    }
    close_outbound(*it, CloseReason::peer_gone);
    it = unlive_links_.erase(it);
  }
}

// Links to live members close once nothing was queued for them for
// link_idle_timeout, unless the peer is in the gossip view: every first
// contact (gossip aimed at peers lacking a state, a view swap, an indirect
// probe, a reply) opens a link, and without this a node would in time hold
// one to every member. A view member can go a while without a pick (most
// picks go to peers lacking the state while it spreads), so it is spared
// by name; links to this node's subjects carry a heartbeat, and those to
// its monitors an ack, every heartbeat_interval, which the timeout is at
// least twice (Config::validate), so they never idle. The walk of every
// link runs a few times per timeout, not every round.
void Kernel::close_idle_member_links() {
  if (now_ < next_idle_check_) return;
  next_idle_check_ = now_ + config_.link_idle_timeout / 4;
  const std::span<const NodeAddress> view = gossip_view_.addresses;
  std::vector<NodeAddress> idle;
  for (const auto& [address, out] : links_.outbound()) {
    if (out.retired() || now_ - out.last_queued < config_.link_idle_timeout) continue;
    if (out.writing || !out.control.empty() || out.user_queued() > 0) continue;
    if (std::binary_search(view.begin(), view.end(), address)) continue;
    const Member* m = members_.find(address);
    if (m == nullptr || !is_live_status(m->status)) continue;  // unlive: close_idle_links
    idle.push_back(address);
  }
  for (const NodeAddress& address : idle) close_outbound(address, CloseReason::idle);
  close_idle_inbound();
  WEFT_ASSERT(next_idle_check_ > now_);
}

// Inbound links are the dialer's to close, and a member closes its own
// after link_idle_timeout (above), so one silent for twice that is held
// open by a peer that does not use it. A stranger's (a dialer that is no
// live member here: a heal probe, a rogue) needs no link once its frames
// are read: silent for a quarter timeout, it is closed, so that without a
// key anyone who can reach the port cannot hold descriptors for good.
void Kernel::close_idle_inbound() {
  std::vector<LinkId> idle;
  for (const auto& [link, in] : links_.inbound()) {
    if (in.closed() || in.state() != InboundState::established) continue;  // handshakes have their own deadline
    const Duration silent = now_ - in.last_read;
    const bool stranger = !is_live(in.peer->address);
    if (silent >= config_.link_idle_timeout * 2 || (stranger && silent >= config_.link_idle_timeout / 4)) {
      idle.push_back(link);
    }
  }
  for (const LinkId link : idle) close_inbound(link, CloseReason::idle);
}

// Every open outbound link to an address that is not a live member is in
// unlive_links_ (checked whole on small tables, where it is cheap, and so
// in every seed of the standard sweep).
void Kernel::check_unlive_links() const {
  for (const auto& [address, out] : links_.outbound()) {
    if (out.retired() || is_live(address)) continue;
    WEFT_ASSERT(unlive_links_.count(address) == 1);
  }
}

// Live members but self, in address order, and those among them that have
// not seen this node's state, as indices into members_.members(). Rebuilt
// only when the table or the seen set changed: at a thousand members the
// walk, with its string compares, was a fifth of a steady run.
void Kernel::refresh_gossip_targets() {
  GossipTargets& targets = gossip_targets_;
  if (targets.valid && targets.members_version == members_.version() && targets.seen_version == seen_.version() &&
      targets.vouched_version == vouched_.version()) {
    return;
  }
  targets.valid = true;
  targets.members_version = members_.version();
  targets.seen_version = seen_.version();
  targets.vouched_version = vouched_.version();
  ++targets.rebuilds;
  targets.peers.clear();
  targets.unseen.clear();
  WEFT_ASSERT(seen_.over(members_));  // its bits are positions in members
  const std::span<const Member> members = members_.members();
  for (std::uint32_t i = 0; i < members.size(); ++i) {
    const Member& m = members[i];
    // A member no one vouches for here is no peer: gossip spent on
    // invented members reaches no one (vouched_lives.hpp).
    if (m.address() == self_.address || !is_live_status(m.status) || vouched_.excuses(m.id)) continue;
    targets.peers.push_back(i);
    if (!seen_.contains(i)) targets.unseen.push_back(i);
  }
  WEFT_ASSERT(targets.unseen.size() <= targets.peers.size() && targets.peers.size() < members.size());
}

// Keeps gossip_view_ a random subset of the live peers of its size: drops
// members no longer live, tops up from the other peers, and swaps one out
// every kGossipViewSwapRounds calls (one per gossip round).
void Kernel::refresh_gossip_view() {
  refresh_gossip_targets();
  GossipView& view = gossip_view_;
  const std::vector<std::uint32_t>& peers = gossip_targets_.peers;
  if (view.targets_rebuild != gossip_targets_.rebuilds) {
    view.targets_rebuild = gossip_targets_.rebuilds;
    const std::span<const Member> members = members_.members();
    std::vector<NodeAddress> kept;
    view.indices.clear();
    for (NodeAddress& address : view.addresses) {
      const Member* m = members_.find(address);
      if (m == nullptr || !is_live_status(m->status) || vouched_.excuses(m->id)) continue;  // no peer now
      view.indices.push_back(static_cast<std::uint32_t>(m - members.data()));
      kept.push_back(std::move(address));
    }
    view.addresses = std::move(kept);
  }
  const std::size_t size = gossip_view_size(peers.size(), config_.gossip_fanout);
  while (view.indices.size() < size) add_to_gossip_view();
  while (view.indices.size() > size) drop_from_gossip_view();  // the cluster shrank
  if (++view.rounds_since_swap >= kGossipViewSwapRounds && peers.size() > view.indices.size()) {
    view.rounds_since_swap = 0;
    drop_from_gossip_view(add_to_gossip_view());
  }
  WEFT_ASSERT(view.indices.size() == size && view.addresses.size() == size);
}

// A random live peer not in gossip_view_ joins it; returns its index.
std::uint32_t Kernel::add_to_gossip_view() {
  GossipView& view = gossip_view_;
  const std::vector<std::uint32_t>& peers = gossip_targets_.peers;
  WEFT_ASSERT(view.indices.size() < peers.size());
  const std::size_t pick = static_cast<std::size_t>(prng_.below(peers.size() - view.indices.size()));
  const std::uint32_t added = nth_not_taken(peers, pick, view.indices);
  const auto at = std::lower_bound(view.indices.begin(), view.indices.end(), added);
  view.addresses.insert(view.addresses.begin() + (at - view.indices.begin()), members_.members()[added].address());
  view.indices.insert(at, added);
  return added;
}

// A random member of gossip_view_ but `kept` leaves it.
void Kernel::drop_from_gossip_view(std::optional<std::uint32_t> kept) {
  GossipView& view = gossip_view_;
  WEFT_ASSERT(view.indices.size() > (kept ? 1U : 0U));
  std::size_t out = static_cast<std::size_t>(prng_.below(view.indices.size() - (kept ? 1 : 0)));
  if (kept && view.indices[out] >= *kept) ++out;  // skip over the one kept
  view.addresses.erase(view.addresses.begin() + static_cast<std::ptrdiff_t>(out));
  view.indices.erase(view.indices.begin() + static_cast<std::ptrdiff_t>(out));
}

// Timer::join: due at start, on rejoining and whenever this node finds
// itself alone; repeats every join_retry_interval until another live member
// is known.
void Kernel::join_attempt() {
  refresh_gossip_targets();
  if (!gossip_targets_.peers.empty()) {
    timers_.disarm(Timer::join);
    return;
  }
  timers_.arm(Timer::join, now_ + config_.join_retry_interval);
  std::vector<const NodeAddress*> contacts;
  for (const NodeAddress& seed : config_.seeds) {
    if (seed != self_.address) contacts.push_back(&seed);
  }
  if (contacts.size() > kJoinContacts) {
    // A random few (partial Fisher-Yates), different on every attempt.
    for (std::size_t i = 0; i < kJoinContacts; ++i) {
      const std::size_t pick = i + static_cast<std::size_t>(prng_.below(contacts.size() - i));
      std::swap(contacts[i], contacts[pick]);
    }
    contacts.resize(kJoinContacts);
  }
  for (const NodeAddress* seed : contacts) send_control(*seed, wire::Join{});
  WEFT_ASSERT(contacts.size() <= kJoinContacts && timers_.armed(Timer::join));
}

void Kernel::gossip_round() {
  timers_.arm(Timer::gossip, now_ + config_.gossip_interval);
  last_gossip_ = now_;
  prune_gone();
  leader_actions();
  check_self_status();
  if (shut_down_) return;

  refresh_gossip_view();
  const std::vector<std::uint32_t>& view = gossip_view_.indices;      // a subset of the peers
  const std::vector<std::uint32_t>& unseen = gossip_targets_.unseen;  // another
  const std::span<const Member> members = members_.members();
  close_idle_links(gossip_targets_.peers.empty());
  close_idle_member_links();

  // Push-pull: a digest to `fanout` peers, preferring ones that have not
  // seen this state (Akka's biased gossip), the others from the view; the
  // state follows only where the digests differ. Each pick leaves both
  // pools: the pools stay as cached and the picks are skipped over (at most
  // 16), rather than copying a thousand peers and erasing from the copies
  // every round.
  std::array<std::uint32_t, 16> chosen{};
  std::size_t chosen_count = 0;
  std::size_t view_left = view.size();
  std::size_t unseen_left = unseen.size();
  WEFT_ASSERT(config_.gossip_fanout <= chosen.size());
  // The view is every peer when it is smaller than its size, so the picks
  // never exhaust it while peers lacking the state remain.
  WEFT_ASSERT(view.size() > config_.gossip_fanout || view.size() == gossip_targets_.peers.size());
  for (std::uint32_t i = 0; i < config_.gossip_fanout && view_left > 0; ++i) {
    const bool from_unseen = unseen_left > 0 && prng_.chance(Ratio{4, 5});
    const std::vector<std::uint32_t>& pool = from_unseen ? unseen : view;
    const std::size_t pick = prng_.below(from_unseen ? unseen_left : view_left);
    const std::uint32_t picked = nth_not_chosen(pool, pick, std::span(chosen.data(), chosen_count));
    send_control(members[picked].address(), wire::GossipDigest{digest_, seen_.size()});
    if (std::binary_search(view.begin(), view.end(), picked)) --view_left;
    if (std::binary_search(unseen.begin(), unseen.end(), picked)) --unseen_left;
    chosen[chosen_count++] = picked;
  }
}

}  // namespace weft
