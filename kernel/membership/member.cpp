// Member statuses by name, and parsed from their wire numbers.
#include "kernel/membership/member.hpp"

namespace weft {

std::string_view to_string(MemberStatus status) {
  switch (status) {
    case MemberStatus::joining: return "joining";
    case MemberStatus::up: return "up";
    case MemberStatus::leaving: return "leaving";
    case MemberStatus::exiting: return "exiting";
    case MemberStatus::down: return "down";
    case MemberStatus::removed: return "removed";
  }
  return "invalid";
}

bool parse_member_status(std::uint64_t raw, MemberStatus& status) {
  if (raw > static_cast<std::uint64_t>(MemberStatus::removed)) return false;
  status = static_cast<MemberStatus>(raw);
  return true;
}

}  // namespace weft
