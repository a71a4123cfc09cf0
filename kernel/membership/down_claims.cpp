// Downs a node did not decide; the model is in down_claims.hpp.
#include "kernel/membership/down_claims.hpp"

#include "kernel/assert.hpp"

namespace weft {

DownVerdict DownClaims::judge(const MemberId& subject, bool evidence, Instant now, Duration wait) {
  WEFT_ASSERT(wait >= Duration::zero());
  const auto it = held_.find(subject.address);
  if (evidence) {
    if (it != held_.end()) held_.erase(it);
    return DownVerdict::take;
  }
  if (it == held_.end() || it->second.life != subject.incarnation) {
    // First heard of this life (an older life's claim is moot: its life ended).
    held_.insert_or_assign(subject.address, Held{subject.incarnation, now});
    return DownVerdict::hold_first;
  }
  if (now - it->second.first_heard >= wait) {
    held_.erase(it);
    return DownVerdict::take;
  }
  return DownVerdict::hold;
}

bool was_cut_off(const CutOffEvidence& evidence, Instant now, Duration window) {
  if (evidence.marked_unreachable) return true;
  return evidence.last_disturbed && now - *evidence.last_disturbed <= window;
}

}  // namespace weft
