// Downs a node did not decide: which it takes at once, which it holds for
// their subject to refute.
//
// Model. Down is the leader's decision on reachability evidence
// (leader_actions.hpp), but gossip relays records, so a receiver cannot
// tell who first made one, and a shared key cannot tell it either: any
// key holder can gossip "down" of a live member. Taken at once, one forged
// record had the victim down everywhere within a gossip round; asks to it
// failed until it rejoined in its next life, and with on_downed = shut_down
// it stopped (issue 43, case 2).
//
// Receivers. A down or removal of a life this node holds joining or up (a
// member leaving or exiting asked to go, and is removed on no rows) is
// taken at once when this node has evidence of its own that the leader could have
// decided it: a row (held here, or in the same frame) that marks the life
// unreachable, or no evidence that the life exists at all (vouched_lives:
// the leader downs those within T_vouch, on no rows). An honest down comes
// with its rows: the leader decides on rows it gossips in the same state,
// and rows of a life stand until the life is removed. A down without that
// evidence is held: not merged (refused like a deferred record, so the
// sender, which keeps it, sends it again), and on first hearing it is sent
// to its subject, which refutes it if alive, as it refutes a newer life
// claimed of it: it takes the next life, which supersedes the claim in
// every table. A held down is taken when it is heard again `wait` (T_refute)
// or more after it was first heard and its life still stands here: its
// subject had the time to refute and did not (a crashed member, removed
// while this node was cut off and its rows already pruned).
//
// Cost. An honest down arrives with its rows and is taken as before; only
// one whose rows were pruned first (a removal heard after a long cut) waits
// up to T_refute. What this does not cover: a down forged together with a
// row marking the same life (the row is refuted by its observer, but the
// down was taken with it), so a key holder can still down a member with two
// records; docs/deploy.md's security model says so.
//
// Subjects. A member that hears its own life down takes a new life
// (on_downed = rejoin) or stops (shut_down). Stopping is what an operator
// asks for after a real cut; a forged down must not stop a member nobody
// could have found unreachable. So a member takes a down of its own life
// only on evidence that it was cut off: a row (held, or in the same frame)
// marks it unreachable, or within T_heal it held another member
// unreachable, took another member's down, or noticed a pause of its own.
// Otherwise, in either mode, it refuses the down and refutes it as it
// refutes a newer life claimed of it (its next life, at most one a
// gossip_interval), counted.
// A side of a partition that had been quiet for longer than T_heal when the
// partition healed hears the other side's downs without such evidence and
// rejoins instead of stopping.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "kernel/ids.hpp"
#include "kernel/time.hpp"

namespace weft {

enum class DownVerdict : std::uint8_t {
  take,        // merge it
  hold_first,  // not merged; first heard now: send it to its subject
  hold,        // not merged; held since earlier
};

class DownClaims {
 public:
  // `subject`: the life a down names, which this node holds joining or up.
  // `evidence`: a row marks it unreachable, or nothing vouches for it.
  DownVerdict judge(const MemberId& subject, bool evidence, Instant now, Duration wait);
  // Claims whose life this node no longer holds live are forgotten:
  // `still_held(id)` says whether it does.
  template <class StillHeld>
  void prune(StillHeld still_held) {
    std::erase_if(held_, [&](const auto& entry) { return !still_held(MemberId{entry.first, entry.second.life}); });
  }
  std::size_t size() const { return held_.size(); }

 private:
  struct Held {
    Incarnation life;
    Instant first_heard;
  };
  std::map<NodeAddress, Held> held_;  // at most one per address this node holds live
};

// Whether a member that hears its own life down was cut off (shut_down
// stops it) or not (it refutes the down): see the model above.
struct CutOffEvidence {
  bool marked_unreachable = false;          // a row marks this life unreachable
  std::optional<Instant> last_disturbed;    // another member unreachable or downed here, or a pause of its own
};
bool was_cut_off(const CutOffEvidence& evidence, Instant now, Duration window);

}  // namespace weft
