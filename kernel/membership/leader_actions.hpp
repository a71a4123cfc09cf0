// Leader actions: who leads a node's view of the cluster, and what the
// leader does to each member.
//
// Model. There is no election: every node computes the leader from its own
// view (elect_leader) as the lowest address among reachable members that
// are up; failing that, joining (a seed forming the cluster); members on
// their way out lead only when nobody else can, so a leaving leader does not
// remove itself unseen. Two views may name two leaders for a while (one per
// side of a partition); their moves are monotone and merge.
//
// The leader judges the members in address order, one at a time, and moves
// each forward (never back: M2):
//   live and unreachable, not the leader itself
//            -> down, once down_wait() has passed since it became
//               unreachable; until then that instant is when to look again
//   down     -> removed, remove_after_down after it went down
//   reachable, and the leader's seen set covers the cluster (converged):
//            joining -> up, leaving -> exiting, exiting -> removed
// One member at a time because each move is applied before the next member
// is judged: a down changes which observers count, and so the next
// member's wait. judge() is therefore a pure function of one member's
// standing, which the Kernel gathers from its tables as they are at that
// moment, and returns the move; the Kernel applies it.
//
// down_wait() is confirmation-scaled (Lifeguard's dynamic suspicion timeout,
// in whole halvings). One observer's word waits down_after_unreachable, since
// a lone observer may hold the broken link (F4); each further observer that
// agrees halves what is left above down_after_confirmed, and when every
// observer expected to judge the subject agrees the wait is
// down_after_confirmed. The expected observers are the subject's monitors
// that count (live, not unreachable themselves), so a partition, which
// silences the monitors on the far side, still reaches full confirmation
// (F1). A subject the leader itself has heard from since it became
// unreachable is not dead, whatever the rows say: it waits the full time,
// for the rows to be withdrawn (a paused node that resumed). The floor keeps
// a forgiven pause from being downed (F3): the observers mark only after phi
// trips and probes go unanswered, and down_after_confirmed later the silence
// is past the pause that is forgiven; a leader that watches the subject
// itself also waits until the subject has provably been silent for the
// forgiven pause plus silence_slack (docs/failure-detection.md gives the
// arithmetic).
//
// Properties served: F1 (a crashed member is downed within T_down, and
// within T_down_closed when every observer confirms), F3 (a forgiven pause
// is never downed), F4 (one broken link downs nobody), M2 (moves only go
// forward), M4 and M6 (joiners go up once the cluster has converged).
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "kernel/config.hpp"
#include "kernel/ids.hpp"
#include "kernel/membership/member.hpp"
#include "kernel/time.hpp"

namespace weft {

// The leader of the view `members` (in address order), given the members it
// holds unreachable (sorted). `ignore_reachability` is
// Mutations::leader_ignores_reachability.
std::optional<NodeAddress> elect_leader(std::span<const Member> members, std::span<const MemberId> unreachable,
                                        bool ignore_reachability = false);

// A leader alone in its table and still joining forms a cluster by itself
// only if it is the first seed (as in Akka); any other node waits for a
// seed's answer, or a restart during a partition would found an island of
// one that the rest must merge later.
bool waits_for_seed(std::span<const Member> members, const NodeAddress& self, std::span<const NodeAddress> seeds);

// What the leader knows when it judges how long to wait before downing an
// unreachable subject.
struct DownEvidence {
  Instant unreachable_since;
  std::optional<Instant> last_heard;  // the leader's own last frame from the subject
  bool watched = false;               // the leader monitors the subject itself
  // Watched: since when the subject has provably been silent (the leader's
  // first heartbeat it left unanswered, or when its own next heartbeat was
  // due); none while it has been heard since.
  std::optional<Instant> silent_since;
  std::size_t confirmed = 0;          // observers that mark the subject and count
  std::size_t expected = 0;           // the subject's monitors that count
};

// One member as the leader finds it at the moment it judges it.
struct MemberStanding {
  bool is_self = false;
  bool unreachable = false;               // in the leader's reachability view
  std::optional<DownEvidence> evidence;   // while the leader has it unreachable since some instant
  std::optional<Instant> down_since;      // when the leader learnt it was down
  // Since when the leader has held this live record with no evidence of
  // the member (vouched_lives.hpp); such a member is also `unreachable`.
  std::optional<Instant> unvouched_since;
};

// What the leader does to one member now.
struct LeaderMove {
  std::optional<MemberStatus> status;   // the member's next status, if it moves now
  Instant down_due = Instant::never();  // not down yet: look again then
};

class LeaderActions {
 public:
  // What holds for a whole round of judging.
  struct Round {
    Instant now;
    bool converged = false;       // the leader's seen set covers the cluster
    bool joiners_go_up = true;    // false only under Mutations::joiners_up_late, off its tick
  };

  LeaderActions(const Config& config, Round round);

  LeaderMove judge(const Member& member, const MemberStanding& standing) const;
  // How long after becoming unreachable a subject is downed.
  Duration down_wait(const DownEvidence& evidence) const;

 private:
  Round round_;
  Duration longest_;          // down_after_unreachable: one observer's word
  Duration shortest_;         // down_after_confirmed: every expected observer agrees
  Duration silence_allowed_;  // forgiven pause + silence_slack, for a leader that watches
  Duration remove_after_down_;
  bool downing_;              // off: Mutations::downing_off
  bool confirmation_;         // off: Mutations::confirmation_off
  bool pause_floor_;          // off: Mutations::pause_floor_off
};

}  // namespace weft
