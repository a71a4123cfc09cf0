// Judging rows a node did not write; the model is in row_claims.hpp.
#include "kernel/membership/row_claims.hpp"

#include <limits>

namespace weft {

RowVerdict judge_row(const ReachabilityRow& incoming, const ReachabilityRow* held, const MemberId& self,
                     std::uint64_t max_jump) {
  const std::uint64_t known = held != nullptr ? held->version : 0;
  if (incoming.version > known && incoming.version - known > max_jump) return RowVerdict::refuse;
  // No version above it: its observer could never refute it.
  if (incoming.version == std::numeric_limits<std::uint64_t>::max()) return RowVerdict::refuse;
  if (incoming.observer != self) return RowVerdict::take;
  // Our own row: only what we hold is ours. An equal copy coming back is
  // gossip doing its work; anything else, older or newer, is a claim (an
  // older one loses every merge anyway, but it was not ours either).
  if (held != nullptr && incoming == *held) return RowVerdict::take;
  if (held == nullptr && incoming.version == 0 && incoming.unreachable.empty()) return RowVerdict::take;
  return incoming.version < known ? RowVerdict::take : RowVerdict::refute;
}

}  // namespace weft
