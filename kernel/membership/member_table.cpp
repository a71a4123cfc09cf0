// The member table (merge laws in member_table.hpp): lookup, merging one
// record or a whole table in one walk, pruning, the cached digest, and the
// fingerprint functions the reachability table shares.
#include "kernel/membership/member_table.hpp"

#include <algorithm>

#include "kernel/assert.hpp"
#include "kernel/prng.hpp"

namespace weft {
namespace {

bool address_less(const Member& m, const NodeAddress& address) { return m.address() < address; }

// One record's share of the table's digest: a function of the record
// alone, so that the digest, their sum, follows a merge by the records it
// changes.
std::uint64_t record_print(const Member& m) {
  return mix64(fingerprint_member_id(0, m.id) ^ static_cast<std::uint64_t>(m.status));
}

}  // namespace

std::uint64_t fingerprint_bytes(std::uint64_t state, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::uint64_t h = state ^ 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= bytes[i];
    h *= 0x100000001b3ULL;
  }
  return mix64(h ^ size);
}

std::uint64_t fingerprint_u64(std::uint64_t state, std::uint64_t value) {
  return mix64(state ^ mix64(value));
}

std::uint64_t fingerprint_address(std::uint64_t state, const NodeAddress& address) {
  const std::string& host = address.host;
  const char* p = host.data();
  std::size_t left = host.size();
  for (; left >= 8; left -= 8, p += 8) state = mix64(state ^ detail::load_be64(p));
  std::uint64_t tail = 0;  // big-endian, as load_be64 reads: the same on every platform
  for (std::size_t i = 0; i < left; ++i) tail = (tail << 8) | static_cast<unsigned char>(p[i]);
  state = mix64(state ^ tail);
  return mix64(state ^ (static_cast<std::uint64_t>(address.port) << 48) ^ static_cast<std::uint64_t>(host.size()));
}

std::uint64_t fingerprint_member_id(std::uint64_t state, const MemberId& id) {
  return mix64(fingerprint_address(state, id.address) ^ id.incarnation.value);
}

const Member* MemberTable::find(const NodeAddress& address) const {
  const auto found = hints_.lower_bound(std::span<const Member>(members_), address, fingerprint_address(0, address),
                                        &Member::address);
  return found.exact ? &members_[found.at] : nullptr;
}

MemberTable MemberTable::from_sorted(std::vector<Member> members) {
  for (std::size_t i = 1; i < members.size(); ++i) {
    WEFT_ASSERT(members[i - 1].address() < members[i].address());
  }
  MemberTable table;
  table.members_ = std::move(members);
  table.sum_valid_ = table.members_.empty();
  return table;
}

bool MemberTable::merge(const Member& member) {
  const auto it = std::lower_bound(members_.begin(), members_.end(), member.address(), address_less);
  if (it == members_.end() || it->address() != member.address()) {
    const auto at = members_.insert(it, member);
    if (sum_valid_) sum_ += record_print(member);
    // Still sorted by address and unique around the new record.
    WEFT_ASSERT(at == members_.begin() || std::prev(at)->address() < at->address());
    WEFT_ASSERT(std::next(at) == members_.end() || at->address() < std::next(at)->address());
    changed();
    return true;
  }
  if (supersedes_or_equals(*it, member)) return false;
  // The order is total, so what does not lose wins: a record only ever moves
  // up (M2).
  WEFT_ASSERT(supersedes_or_equals(member, *it));
  if (sum_valid_) sum_ += record_print(member) - record_print(*it);
  *it = member;
  changed();
  return true;
}

bool MemberTable::merge(const MemberTable& other, std::vector<Member>* previous) {
  if (other.members_.empty()) return false;
  // Fast path: nothing in `other` is news (the common case in steady state).
  bool news = other.members_.size() > members_.size();
  if (!news) {
    auto mine = members_.begin();
    for (const Member& theirs : other.members_) {
      if (mine != members_.end() && *mine == theirs) {  // the common case: the same record
        ++mine;
        continue;
      }
      while (mine != members_.end() && mine->address() < theirs.address()) ++mine;
      if (mine == members_.end() || mine->address() != theirs.address() ||
          !supersedes_or_equals(*mine, theirs)) {
        news = true;
        break;
      }
    }
  }
  if (!news) return false;

  scratch_.clear();
  scratch_.reserve(members_.size() + other.members_.size());
  // The result differs from this table exactly where it takes a record of
  // `other`'s: one this table lacks, or one that supersedes ours.
  bool differs = false;
  auto a = members_.begin();
  auto b = other.members_.begin();
  while (a != members_.end() || b != other.members_.end()) {
    // Shared addresses first: the common case, one comparison.
    if (a != members_.end() && b != other.members_.end() && a->address() == b->address()) {
      if (supersedes_or_equals(*a, *b)) {
        scratch_.push_back(*a);
      } else {
        scratch_.push_back(*b);
        if (sum_valid_) sum_ += record_print(*b) - record_print(*a);
        differs = true;
      }
      ++a;
      ++b;
    } else if (b == other.members_.end() || (a != members_.end() && a->address() < b->address())) {
      scratch_.push_back(*a++);
    } else {
      if (sum_valid_) sum_ += record_print(*b);
      scratch_.push_back(*b++);
      differs = true;
    }
  }
  // A merge keeps every address of both tables, once.
  WEFT_ASSERT(scratch_.size() >= members_.size());
  WEFT_ASSERT(scratch_.size() >= other.members_.size());
  WEFT_ASSERT(scratch_.size() <= members_.size() + other.members_.size());
  // The fast path above saw news only where the merge makes some.
  WEFT_ASSERT(differs);
  members_.swap(scratch_);
  if (differs) {
    changed();
    if (previous != nullptr) previous->swap(scratch_);
  }
  return differs;
}

std::size_t MemberTable::prune(const std::function<bool(const Member&)>& drop) {
  const auto before = members_.size();
  std::erase_if(members_, drop);
  if (members_.size() != before) {
    sum_valid_ = false;  // rare (tombstones past their grace): summed again when asked
    changed();
  }
  return before - members_.size();
}

std::uint64_t MemberTable::compute_digest() const {
  if (!sum_valid_) {
    sum_ = 0;
    for (const Member& m : members_) sum_ += record_print(m);
    sum_valid_ = true;
  }
  const std::uint64_t h = fingerprint_u64(sum_, members_.size());
  digest_ = h;
  digest_version_ = version_;
  return h;
}

}  // namespace weft
