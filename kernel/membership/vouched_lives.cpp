// Vouched lives; the model is in vouched_lives.hpp.
#include "kernel/membership/vouched_lives.hpp"

#include <algorithm>

#include "kernel/assert.hpp"
#include "kernel/membership/in_step.hpp"

namespace weft {

bool VouchedLives::note(const MemberId& life) {
  if (off_) return false;
  const auto [it, added] = lives_.try_emplace(life.address, life.incarnation);
  if (!added && it->second >= life.incarnation) return false;
  it->second = life.incarnation;
  stale_ = true;
  ++evidence_version_;
  return true;
}

bool VouchedLives::holds(const MemberId& life) const {
  if (off_) return true;
  const auto it = lives_.find(life.address);
  return it != lives_.end() && it->second >= life.incarnation;
}

bool VouchedLives::note_seen(const MemberTable& table, std::span<const std::uint8_t> seen) {
  if (view_.empty()) return false;
  const std::span<const Member> members = table.members();
  WEFT_ASSERT(seen.size() * 8 >= members.size());
  bool noted = false;
  // The view and the table are both in address order: one walk.
  auto excused = view_.begin();
  for (std::size_t i = 0; i < members.size() && excused != view_.end(); ++i) {
    if (find_in_step(excused, view_.end(), members[i].id) == nullptr) continue;
    const bool bit = ((static_cast<unsigned>(seen[i / 8]) >> (i % 8)) & 1U) != 0;
    if (bit) noted = note(members[i].id) || noted;
  }
  return noted;
}

bool VouchedLives::refresh(const MemberTable& table, const MemberId& self, Instant now) {
  if (off_) return false;
  // Most state changes come with no new evidence and leave no record
  // unvouched: a thousand lookups per change is what this saves.
  if (!stale_ && table_version_ == table.version()) return false;
  stale_ = false;
  table_version_ = table.version();
  std::vector<MemberId> view;
  // The table and lives_ are both in address order: holds() in one walk.
  auto life = lives_.begin();
  for (const Member& m : table.members()) {
    if (!is_live_status(m.status) || m.id == self) continue;
    while (life != lives_.end() && life->first < m.id.address) ++life;
    const bool vouched = life != lives_.end() && life->first == m.id.address && life->second >= m.id.incarnation;
    if (!vouched) view.push_back(m.id);
  }
  if (view == view_) return false;
  // Both views are sorted: one walk carries each kept life's instant over
  // (a map rebuilt per change cost a lookup and a node per record, most of
  // a weftd's time while a flood of inventions was being downed).
  std::vector<Instant> since;
  since.reserve(view.size());
  std::size_t old = 0;
  for (const MemberId& id : view) {
    while (old < view_.size() && view_[old] < id) ++old;
    since.push_back(old < view_.size() && view_[old] == id ? since_[old] : now);
  }
  view_ = std::move(view);
  since_ = std::move(since);
  ++version_;
  WEFT_ASSERT(since_.size() == view_.size());
  return true;
}

bool VouchedLives::excuses(const MemberId& id) const {
  return std::binary_search(view_.begin(), view_.end(), id);
}

std::optional<Instant> VouchedLives::since(const MemberId& id) const {
  const auto it = std::lower_bound(view_.begin(), view_.end(), id);
  if (it == view_.end() || *it != id) return std::nullopt;
  return since_[static_cast<std::size_t>(it - view_.begin())];
}

void VouchedLives::prune(const MemberTable& table) {
  if (lives_.size() <= table.size()) return;
  stale_ = true;
  if (std::erase_if(lives_, [&](const auto& entry) { return table.find(entry.first) == nullptr; }) > 0) {
    ++evidence_version_;
  }
}

}  // namespace weft
