// A member of the cluster: one life (incarnation) of the process at an
// address, and where that life stands.
//
// Status order, per incarnation, moves forward only:
//
//     joining < up < leaving < exiting < down < removed
//
// The usual paths are joining -> up -> leaving -> exiting -> removed for a
// graceful leave, and any -> down -> removed for a failure. The order is total
// on purpose: it makes "the later of two statuses" well defined, which is what
// lets member tables merge as a semilattice (see member_table.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "kernel/assert.hpp"
#include "kernel/ids.hpp"

namespace weft {

enum class MemberStatus : std::uint8_t {
  joining = 0,
  up = 1,
  leaving = 2,
  exiting = 3,
  down = 4,
  removed = 5,
};

inline constexpr std::array kAllMemberStatuses = {MemberStatus::joining, MemberStatus::up,
                                                  MemberStatus::leaving, MemberStatus::exiting,
                                                  MemberStatus::down,    MemberStatus::removed};
// Every status once, in the order above (the order merges rely on); a status
// added after removed must move the second line, and parse_member_status's
// bound with it.
static_assert(lists_values_in_order(kAllMemberStatuses));
static_assert(kAllMemberStatuses.back() == MemberStatus::removed);

std::string_view to_string(MemberStatus status);
// nullopt-free parse for the wire: false if `raw` names no status.
bool parse_member_status(std::uint64_t raw, MemberStatus& status);

// Statuses a member in which still takes part in the cluster's work.
constexpr bool is_live_status(MemberStatus s) {
  return s == MemberStatus::joining || s == MemberStatus::up || s == MemberStatus::leaving ||
         s == MemberStatus::exiting;
}

struct Member {
  MemberId id;
  MemberStatus status = MemberStatus::joining;

  const NodeAddress& address() const { return id.address; }
  Incarnation incarnation() const { return id.incarnation; }

  friend bool operator==(const Member&, const Member&) = default;
};

// True if `a` is the later (or the same) state of its address: a newer
// incarnation, or the same incarnation with a status at least as far along.
inline bool supersedes_or_equals(const Member& a, const Member& b) {
  if (a.id.incarnation != b.id.incarnation) return a.id.incarnation > b.id.incarnation;
  return a.status >= b.status;
}

}  // namespace weft
