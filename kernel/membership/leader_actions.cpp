// The leader's election and its judgement of each member; the model is in
// leader_actions.hpp.
#include "kernel/membership/leader_actions.hpp"

#include <algorithm>

#include "kernel/assert.hpp"

namespace weft {

std::optional<NodeAddress> elect_leader(std::span<const Member> members, std::span<const MemberId> unreachable,
                                        bool ignore_reachability) {
  for (const MemberStatus wanted :
       {MemberStatus::up, MemberStatus::joining, MemberStatus::leaving, MemberStatus::exiting}) {
    for (const Member& m : members) {
      if (m.status != wanted) continue;
      if (ignore_reachability || !std::binary_search(unreachable.begin(), unreachable.end(), m.id)) {
        return m.address();
      }
    }
  }
  return std::nullopt;
}

bool waits_for_seed(std::span<const Member> members, const NodeAddress& self, std::span<const NodeAddress> seeds) {
  if (members.size() != 1) return false;
  WEFT_ASSERT(members.front().address() == self);  // a node's table always holds itself
  return members.front().status == MemberStatus::joining && !seeds.empty() && seeds.front() != self;
}

LeaderActions::LeaderActions(const Config& config, Round round)
    : round_(round),
      longest_(config.down_after_unreachable),
      shortest_(config.mutations.pause_floor_off ? Duration::zero() : config.down_after_confirmed),
      silence_allowed_(forgiven_pause(config) + config.silence_slack),
      remove_after_down_(config.remove_after_down),
      downing_(!config.mutations.downing_off),
      confirmation_(!config.mutations.confirmation_off),
      pause_floor_(!config.mutations.pause_floor_off) {
  WEFT_ASSERT(shortest_ <= longest_);
  WEFT_ASSERT(remove_after_down_ >= Duration::zero());
}

LeaderMove LeaderActions::judge(const Member& member, const MemberStanding& standing) const {
  LeaderMove move;
  if (is_live_status(member.status) && !standing.is_self && downing_) {
    // Unreachable by the rows, down after the wait the evidence earns;
    // vouched for by nothing, after the longest wait, as one observer's word.
    if (standing.evidence) move.down_due = standing.evidence->unreachable_since + down_wait(*standing.evidence);
    if (standing.unvouched_since) move.down_due = std::min(move.down_due, *standing.unvouched_since + longest_);
    if (move.down_due != Instant::never() && round_.now >= move.down_due) {
      move.status = MemberStatus::down;
      move.down_due = Instant::never();
      return move;
    }
  }
  if (member.status == MemberStatus::down) {
    if (standing.down_since && round_.now - *standing.down_since >= remove_after_down_) {
      move.status = MemberStatus::removed;
    }
    return move;
  }
  if (!round_.converged || standing.unreachable) return move;
  switch (member.status) {
    case MemberStatus::joining:
      if (round_.joiners_go_up) move.status = MemberStatus::up;
      break;
    case MemberStatus::leaving: move.status = MemberStatus::exiting; break;
    case MemberStatus::exiting: move.status = MemberStatus::removed; break;
    case MemberStatus::up:
    case MemberStatus::down:
    case MemberStatus::removed: break;
  }
  WEFT_ASSERT(!move.status || *move.status > member.status);  // M2: forward only
  return move;
}

Duration LeaderActions::down_wait(const DownEvidence& evidence) const {
  if (!confirmation_) return longest_;
  if (evidence.last_heard && *evidence.last_heard > evidence.unreachable_since) return longest_;
  // A leader that watches the subject itself knows how long it has been
  // silent: not before the forgiven pause is over (the observers' marks can
  // come early, from detectors fed by frequent gossip). Silent since the
  // first heartbeat it left unanswered, or since its own next heartbeat was
  // due: a pause began before either, and a subject resumed from one
  // answers within a round trip, which silence_slack covers. (Counting
  // from the last frame heard instead needed a whole heartbeat interval of
  // allowance, for the lag between that frame and the pause: a lag of
  // 0.7 s downed a 4.96 s pause when the allowance was probe_timeout, seeds
  // 1344 and 6880 of 10,000.) Not yet silent: the clock starts at the next
  // heartbeat, so no sooner than the whole allowance from now. (Nothing
  // heard at all, or nothing since a refused redial or a closed inbound
  // link, which forget the last frame: a paused process keeps its sockets
  // open, so no floor is needed for a crash that closed them.)
  if (evidence.watched && evidence.last_heard && pause_floor_) {
    const Instant since = evidence.silent_since.value_or(round_.now);
    const Duration silent_enough = silence_allowed_ - (round_.now - since);
    if (silent_enough > Duration::zero()) {
      return std::max(round_.now - evidence.unreachable_since + silent_enough, shortest_);
    }
  }
  if (evidence.confirmed == 0) return longest_;  // unreachable by rows no longer counted: not this round
  if (evidence.confirmed >= evidence.expected) return shortest_;
  const std::size_t halvings = std::min<std::size_t>(evidence.confirmed - 1, 62);
  const Duration wait = shortest_ + Duration::nanoseconds((longest_ - shortest_).ns() >> halvings);
  WEFT_ASSERT(wait >= shortest_ && wait <= longest_);
  return wait;
}

}  // namespace weft
