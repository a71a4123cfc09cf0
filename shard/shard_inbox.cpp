// A shard's inbox; the model is in shard_inbox.hpp.
#include "shard/shard_inbox.hpp"

#include <algorithm>
#include <limits>

#include "kernel/assert.hpp"

namespace weft::shard {

void ShardInbox::await_handoff(const NodeAddress& from, Instant until) {
  until_ = awaiting() ? std::max(until_, until) : until;
  awaited_.insert(from);
}

bool ShardInbox::handed_by(const NodeAddress& from, const Numbering& handed) {
  merge(handed);
  return awaited_.erase(from) == 1 && awaited_.empty();
}

void ShardInbox::keep_waiting(MailboxSlot& message) {
  WEFT_ASSERT(awaiting());
  waiting_.emplace_back().take_from(message);
}

std::deque<MailboxSlot> ShardInbox::end_wait(const Numbering& handed) {
  awaited_.clear();
  merge(handed);
  return std::exchange(waiting_, {});
}

void ShardInbox::merge(const Numbering& handed) {
  for (const auto& [source, next] : handed) {
    auto [it, fresh] = next_.emplace(source, next);
    if (!fresh) it->second = std::max(it->second, next);
  }
  // Held messages the handed numbering has passed are late: take_ready
  // returns them as such.
}

ShardInbox::Admit ShardInbox::admit(const Source& source, std::uint64_t number) {
  WEFT_ASSERT(!awaiting());
  auto [it, fresh] = next_.emplace(source, number);
  if (number < it->second) return Admit::late;
  if (number > it->second) return Admit::hold;
  it->second = number + 1;
  return Admit::now;
}

ShardInbox::Admit ShardInbox::admit(const SourceView& source, std::uint64_t number) {
  WEFT_ASSERT(!awaiting());
  Numbering::value_type* entry = last_.entry;
  if (entry == nullptr || entry->first.life != source.life || entry->first.port != source.port ||
      entry->first.host != source.host) {
    auto it = next_.find(source);
    if (it == next_.end()) it = next_.emplace(Source{std::string(source.host), source.port, source.life}, number).first;
    entry = last_.entry = &*it;
  }
  std::uint64_t& next = entry->second;
  if (number < next) return Admit::late;
  if (number > next) return Admit::hold;
  next = number + 1;
  return Admit::now;
}

bool ShardInbox::hold(const Source& source, std::uint64_t number, MailboxSlot& message, Instant now) {
  auto [it, fresh] = held_.try_emplace({source, number});
  if (!fresh) return false;
  it->second.message.take_from(message);
  it->second.since = now;
  return true;
}

void ShardInbox::take_ready(std::vector<MailboxSlot>& out, std::vector<MailboxSlot>& late) {
  for (auto it = held_.begin(); it != held_.end();) {
    const auto& [source, number] = it->first;
    std::uint64_t& next = next_[source];
    if (number < next) {
      // Passed by a handed-over numbering: the old owner went on past it.
      late.emplace_back().take_from(it->second.message);
      it = held_.erase(it);
    } else if (number == next) {
      out.emplace_back().take_from(it->second.message);
      next = number + 1;
      it = held_.erase(it);
    } else {
      // A gap: skip the rest of this source.
      it = held_.lower_bound({source, std::numeric_limits<std::uint64_t>::max()});
    }
  }
}

void ShardInbox::skip_gaps(Instant now, Duration wait) {
  for (auto it = held_.begin(); it != held_.end();) {
    const auto& [source, number] = it->first;
    std::uint64_t& next = next_[source];
    if (number > next && it->second.since + wait <= now) next = number;
    it = held_.lower_bound({source, std::numeric_limits<std::uint64_t>::max()});
  }
}

Instant ShardInbox::next_gap_deadline(Duration wait) const {
  Instant earliest = Instant::never();
  for (auto it = held_.begin(); it != held_.end();) {
    earliest = std::min(earliest, it->second.since + wait);
    it = held_.lower_bound({it->first.first, std::numeric_limits<std::uint64_t>::max()});
  }
  return earliest;
}

ShardInbox::Numbering ShardInbox::hand_over(std::vector<MailboxSlot>& messages) {
  for (MailboxSlot& kept : waiting_) messages.emplace_back().take_from(kept);
  for (auto& [key, held] : held_) messages.emplace_back().take_from(held.message);
  waiting_.clear();
  held_.clear();
  awaited_.clear();
  last_.entry = nullptr;
  return std::exchange(next_, {});
}

}  // namespace weft::shard
