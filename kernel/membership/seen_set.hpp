// The seen set: how a node knows the cluster has converged on its state.
//
// Model (Akka's gossip "seen" table, carried with the state). A node's seen
// set names the members known to hold exactly its current state (member
// table and reachability rows). It starts as {self} whenever the state
// changes (empty if self is no record of the table: another life of its
// address), and grows on evidence that another member holds the same state:
//   add    a peer's digest equals ours: the peer holds it;
//   merge  a peer's whole state equals ours: everyone in the peer's seen
//          set holds it too (an OR of the bits; the kernel adds the peer
//          itself, Kernel::add_seen).
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
// Representation. A seen set is only ever about one state, so it is kept
// as one bit per record of that state's member table, in the table's
// (address) order: bit i set when the member at position i holds the
// state. That is also how it travels (wire/control.hpp): at a thousand
// members 125 bytes instead of a thousand member ids, and a merge is an OR
// of them. A node whose digest equals ours holds our table, so its bits are
// over the same positions; an id that is not a record of the table (another
// life of a member, a stranger) could never count towards convergence, and
// has no bit.
//
// Properties served: M4 and M6 (the live nodes reach one view: joiners go
// up once the cluster has converged), M5 (a healed partition converges the
// same way). Invariant: the set is over exactly one version of one table
// (over() says which); every state change resets it, and version() moves on
// whenever its bits change, so a reader may cache what it derives from them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernel/ids.hpp"
#include "kernel/membership/member.hpp"
#include "kernel/membership/member_table.hpp"

namespace weft {

// The bytes of a seen set over a table of `members` records.
constexpr std::size_t seen_bytes_for(std::size_t members) { return (members + 7) / 8; }
// True if `bits` can be a seen set over `members` records: one bit each, and
// none set past the last. What the decoder requires of a whole state's bits
// and the kernel of a delta's before either reaches SeenSet::merge.
bool seen_bits_fit(std::span<const std::uint8_t> bits, std::size_t members);

class SeenSet {
 public:
  // The state changed: of `table`'s members, only the record whose id is
  // `self` holds it.
  void reset(const MemberTable& table, const MemberId& self);
  // The member at `position` of the table holds this node's state; true if
  // that is news.
  bool add(std::size_t position);
  // A peer holding this state sent its seen bits over the same table
  // (seen_bits_fit(theirs, table_size()), required): the members they name
  // hold it too. True if the set grew.
  bool merge(std::span<const std::uint8_t> theirs);

  bool contains(std::size_t position) const;
  // True if every live member of `members` (the table the set is over) that
  // `unreachable` (sorted) does not name is in the set: the cluster this
  // node can reach has converged on its state.
  bool covers(std::span<const Member> members, std::span<const MemberId> unreachable) const;

  // True while `table` is the version the set was reset over.
  bool over(const MemberTable& table) const {
    return table_version_ == table.version() && table_size_ == table.size();
  }
  std::span<const std::uint8_t> bits() const { return bits_; }
  std::size_t table_size() const { return table_size_; }
  // How many members hold the state.
  std::size_t size() const { return count_; }
  std::uint64_t version() const { return version_; }

 private:
  std::vector<std::uint8_t> bits_;  // seen_bytes_for(table_size_), unused bits clear
  // A new set is over a new (empty, version 0) table: the empty set, as a
  // kernel's before its first input.
  std::size_t table_size_ = 0;
  std::uint64_t table_version_ = 0;
  std::size_t count_ = 0;
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
