// The seen set's growth and its convergence test; the model is in
// seen_set.hpp.
#include "kernel/membership/seen_set.hpp"

#include <algorithm>
#include <functional>
#include <iterator>

#include "kernel/assert.hpp"
#include "kernel/membership/in_step.hpp"
#include "kernel/membership/member_table.hpp"

namespace weft {
namespace {

bool sorted_unique(std::span<const MemberId> ids) {
  return std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<MemberId>()) == ids.end();
}

}  // namespace

void SeenSet::reset(const MemberId& self) {
  if (ids_.size() == 1 && ids_.front() == self) return;
  ids_.assign(1, self);
  ++version_;
}

bool SeenSet::add(const MemberId& id) {
  // A converged node hears the same holders again and again: the hint
  // answers those without a search.
  const auto found = hints_.lower_bound(std::span<const MemberId>(ids_), id, fingerprint_address(0, id.address),
                                        std::identity{});
  if (found.exact) return false;
  ids_.insert(ids_.begin() + static_cast<std::ptrdiff_t>(found.at), id);
  ++version_;
  WEFT_ASSERT(contains(id));
  return true;
}

bool SeenSet::merge(std::span<const MemberId> theirs, const MemberId& self, const MemberId& from) {
  WEFT_ASSERT(sorted_unique(theirs));  // the decoder refuses any other list
  const std::size_t before = ids_.size();
  scratch_.clear();
  scratch_.reserve(ids_.size() + theirs.size() + 2);
  // A union as std::set_union's, testing a shared id (the common case: the
  // sets of two nodes converging on one state) for equality first.
  auto mine = ids_.cbegin();
  auto other = theirs.begin();
  while (mine != ids_.cend() && other != theirs.end()) {
    if (*mine == *other) {
      scratch_.push_back(*mine++);
      ++other;
    } else if (*mine < *other) {
      scratch_.push_back(*mine++);
    } else {
      scratch_.push_back(*other++);
    }
  }
  scratch_.insert(scratch_.end(), mine, ids_.cend());
  scratch_.insert(scratch_.end(), other, theirs.end());
  ids_.swap(scratch_);
  for (const MemberId& id : {self, from}) {
    const auto at = std::lower_bound(ids_.begin(), ids_.end(), id);
    if (at == ids_.end() || *at != id) ids_.insert(at, id);
  }
  WEFT_ASSERT(sorted_unique(ids_) && ids_.size() >= before);
  if (ids_.size() == before) return false;  // a union that kept every element and added none is the same set
  ++version_;
  return true;
}

bool SeenSet::contains(const MemberId& id) const { return std::binary_search(ids_.begin(), ids_.end(), id); }

bool SeenSet::covers(std::span<const Member> members, std::span<const MemberId> unreachable) const {
  // members are in address order, which is MemberId order (one record per
  // address), as are the two sorted lists: one walk along all three instead
  // of two binary searches per member (a thousand members, several times
  // per state change).
  auto seen = ids_.begin();
  auto excused = unreachable.begin();
  for (const Member& m : members) {
    if (!is_live_status(m.status)) continue;
    if (find_in_step(excused, unreachable.end(), m.id) != nullptr) continue;
    if (find_in_step(seen, ids_.end(), m.id) == nullptr) return false;
  }
  return true;
}

SeenReply reply_to_equal_digest(std::uint64_t ours, std::uint64_t theirs) {
  if (ours > theirs) return SeenReply::send_state;
  if (ours < theirs) return SeenReply::send_digest;
  return SeenReply::nothing;
}

}  // namespace weft
