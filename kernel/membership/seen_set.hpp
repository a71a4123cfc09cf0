// The seen set: how a node knows the cluster has converged on its state.
//
// Model (Akka's gossip "seen" table, carried with the state). A node's seen
// set names the members known to hold exactly its current state (member
// table and reachability rows). It starts as {self} whenever the state
// changes, and grows on evidence that another member holds the same state:
//   add    a peer's digest equals ours: the peer holds it;
//   merge  a peer's whole state equals ours: everyone in the peer's seen
//          set holds it too, and so do the peer and this node.
// The node is converged when the set covers every live member it counts as
// reachable. The leader moves joiners up and leavers out only then
// (leader_actions.hpp), so every reachable member agrees on the table such a
// move is made in.
//
// Seen sets spread like the state itself. A digest carries the size of the
// sender's seen set; when the digests are equal, whoever knows of more
// members holding the state sends its state (which carries the set), and
// the one that knows of fewer asks for it by sending its digest back
// (reply_to_equal_digest). So a seen set fills in O(log N) rounds, not the
// O(N) it takes when each node learns only from the digests it receives;
// and equal sizes send nothing, so a converged cluster exchanges digests
// only.
//
// Properties served: M4 and M6 (the live nodes reach one view: joiners go
// up once the cluster has converged), M5 (a healed partition converges the
// same way). Invariant: the ids are sorted and unique; version() moves on
// whenever they change, so a reader may cache what it derives from them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernel/ids.hpp"
#include "kernel/membership/member.hpp"
#include "kernel/membership/position_hints.hpp"

namespace weft {

class SeenSet {
 public:
  // The state changed: only `self` holds it.
  void reset(const MemberId& self);
  // `id` holds this node's state; true if that is news.
  bool add(const MemberId& id);
  // A peer's state equal to this node's arrived with the peer's seen set
  // `theirs` (sorted, unique): its members, `self` and `from` hold it.
  // True if the set grew.
  bool merge(std::span<const MemberId> theirs, const MemberId& self, const MemberId& from);

  bool contains(const MemberId& id) const;
  // True if every live member of `members` that `unreachable` (sorted)
  // does not name is in the set: the cluster this node can reach has
  // converged on its state.
  bool covers(std::span<const Member> members, std::span<const MemberId> unreachable) const;

  std::span<const MemberId> ids() const { return ids_; }
  std::size_t size() const { return ids_.size(); }
  std::uint64_t version() const { return version_; }

 private:
  std::vector<MemberId> ids_;  // sorted, unique
  std::vector<MemberId> scratch_;
  PositionHints hints_;        // where add() last found an id
  std::uint64_t version_ = 0;
};

// What a node answers a digest equal to its own, from the sizes of the two
// seen sets.
enum class SeenReply : std::uint8_t {
  nothing,      // the same size: nothing to teach either way
  send_state,   // ours is larger: our state carries our seen set
  send_digest,  // theirs is larger: our digest asks for their state
};
SeenReply reply_to_equal_digest(std::uint64_t ours, std::uint64_t theirs);

}  // namespace weft
