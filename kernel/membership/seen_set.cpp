// The seen set's growth and its convergence test; the model is in
// seen_set.hpp.
#include "kernel/membership/seen_set.hpp"

#include <bit>

#include "kernel/assert.hpp"
#include "kernel/membership/in_step.hpp"

namespace weft {

bool seen_bits_fit(std::span<const std::uint8_t> bits, std::size_t members) {
  if (bits.size() != seen_bytes_for(members)) return false;
  const std::size_t spare = bits.size() * 8 - members;
  return spare == 0 || (bits.back() >> (8 - spare)) == 0;
}

void SeenSet::reset(const MemberTable& table, const MemberId& self) {
  const std::span<const Member> members = table.members();
  const Member* mine = table.find(self.address);
  const bool is_self = mine != nullptr && mine->id == self;
  if (over(table) && count_ == (is_self ? 1 : 0) &&
      (!is_self || contains(static_cast<std::size_t>(mine - members.data())))) {
    return;  // already exactly {self} over this table
  }
  table_version_ = table.version();
  table_size_ = members.size();
  bits_.assign(seen_bytes_for(table_size_), 0);
  count_ = 0;
  if (is_self) add(static_cast<std::size_t>(mine - members.data()));
  ++version_;
  WEFT_ASSERT(over(table) && count_ <= 1);
}

bool SeenSet::add(std::size_t position) {
  WEFT_ASSERT(position < table_size_);
  std::uint8_t& byte = bits_[position / 8];
  const auto bit = static_cast<std::uint8_t>(1U << (position % 8));
  if ((byte & bit) != 0) return false;
  byte |= bit;
  ++count_;
  ++version_;
  return true;
}

bool SeenSet::merge(std::span<const std::uint8_t> theirs) {
  WEFT_ASSERT(seen_bits_fit(theirs, table_size_));  // the caller checks a peer's bits
  std::size_t count = 0;
  for (std::size_t i = 0; i < bits_.size(); ++i) {
    bits_[i] |= theirs[i];
    count += static_cast<std::size_t>(std::popcount(bits_[i]));
  }
  WEFT_ASSERT(count >= count_);
  if (count == count_) return false;  // an OR that kept every bit and added none is the same set
  count_ = count;
  ++version_;
  return true;
}

bool SeenSet::contains(std::size_t position) const {
  WEFT_ASSERT(position < table_size_);
  return ((static_cast<unsigned>(bits_[position / 8]) >> (position % 8)) & 1U) != 0;
}

bool SeenSet::covers(std::span<const Member> members, std::span<const MemberId> unreachable) const {
  WEFT_ASSERT(members.size() == table_size_);
  // members are in address order, which is MemberId order (one record per
  // address), as is the unreachable list: one walk along both.
  auto excused = unreachable.begin();
  for (std::size_t i = 0; i < members.size(); ++i) {
    const Member& m = members[i];
    if (!is_live_status(m.status)) continue;
    if (find_in_step(excused, unreachable.end(), m.id) != nullptr) continue;
    if (!contains(i)) return false;
  }
  return true;
}

SeenReply reply_to_equal_digest(std::uint64_t ours, std::uint64_t theirs) {
  if (ours > theirs) return SeenReply::send_state;
  if (ours < theirs) return SeenReply::send_digest;
  return SeenReply::nothing;
}

}  // namespace weft
