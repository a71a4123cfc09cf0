// The indirect probes' bookkeeping; the model is in indirect_probes.hpp.
#include "kernel/detection/indirect_probes.hpp"

#include <algorithm>

#include "kernel/assert.hpp"

namespace weft {

std::vector<NodeAddress> IndirectProbes::pick_helpers(std::vector<NodeAddress> candidates, std::uint32_t count,
                                                      Prng& prng) {
  std::vector<NodeAddress> picked;
  for (std::uint32_t i = 0; i < count && !candidates.empty(); ++i) {
    const std::size_t pick = prng.below(candidates.size());
    picked.push_back(std::move(candidates[pick]));
    candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  WEFT_ASSERT(picked.size() <= count);
  return picked;
}

std::uint64_t IndirectProbes::ask(const MemberId& subject, Instant now, Duration wait,
                                  std::vector<NodeAddress> helpers) {
  WEFT_ASSERT(wait > Duration::zero());
  std::sort(helpers.begin(), helpers.end());
  WEFT_ASSERT(!std::binary_search(helpers.begin(), helpers.end(), subject.address));
  const std::uint64_t id = next_id_++;
  const bool fresh = asked_.emplace(id, ProbeAsked{subject, now, now + wait, std::move(helpers), false}).second;
  WEFT_ASSERT(fresh && helping_.count(id) == 0);
  return id;
}

std::uint64_t IndirectProbes::help(const MemberId& asker, std::uint64_t asker_probe, const MemberId& subject,
                                   Instant deadline) {
  const std::uint64_t id = next_id_++;
  const bool fresh = helping_.emplace(id, ProbeHelping{asker, asker_probe, subject, deadline}).second;
  WEFT_ASSERT(fresh && asked_.count(id) == 0);
  return id;
}

std::optional<ProbeHelping> IndirectProbes::on_ack(const NodeAddress& from, std::uint64_t id) {
  // Only the subject's own ack counts: an id echoed by anyone else proves
  // nothing about the subject.
  if (const auto helping = helping_.find(id); helping != helping_.end() && helping->second.subject.address == from) {
    ProbeHelping answered = std::move(helping->second);
    helping_.erase(helping);
    return answered;
  }
  if (const auto asked = asked_.find(id); asked != asked_.end() && asked->second.subject.address == from) {
    asked_.erase(asked);  // the direct path works after all
  }
  return std::nullopt;
}

AliveAnswer IndirectProbes::on_alive(const NodeAddress& from, std::uint64_t id, const MemberId& subject) {
  const auto asked = asked_.find(id);
  if (asked == asked_.end() || asked->second.subject != subject) return AliveAnswer::unknown;
  const std::vector<NodeAddress>& helpers = asked->second.helpers;
  if (!std::binary_search(helpers.begin(), helpers.end(), from)) return AliveAnswer::unknown;
  const bool late = asked->second.condemned;
  asked_.erase(asked);
  return late ? AliveAnswer::late : AliveAnswer::in_time;
}

std::vector<CondemnedProbe> IndirectProbes::expire(Instant now, Duration keep_condemned,
                                                   const std::function<bool(const MemberId&, Instant)>& heard_since) {
  std::vector<CondemnedProbe> condemned;
  for (auto it = asked_.begin(); it != asked_.end();) {
    ProbeAsked& probe = it->second;
    if (probe.deadline > now) {
      ++it;
      continue;
    }
    if (!probe.condemned && !heard_since(probe.subject, probe.started)) {
      condemned.push_back(CondemnedProbe{probe.subject, probe.started});
      // Kept while a late answer can still matter: until the leader would
      // down the subject.
      probe.condemned = true;
      probe.deadline = now + keep_condemned;
      ++it;
      continue;
    }
    it = asked_.erase(it);
  }
  std::erase_if(helping_, [&](const auto& entry) { return entry.second.deadline <= now; });
  WEFT_ASSERT(next_deadline() > now || keep_condemned <= Duration::zero());
  return condemned;
}

void IndirectProbes::postpone(Instant at) {
  // Only this node's own probes: their expiry condemns a subject, so they
  // must not blame it for this node's silence. A helped request that lapses
  // only goes unanswered.
  for (auto& [id, probe] : asked_) probe.deadline = std::max(probe.deadline, at);
}

void IndirectProbes::clear() {
  asked_.clear();
  helping_.clear();
}

Instant IndirectProbes::next_deadline() const {
  Instant earliest = Instant::never();
  for (const auto& [id, probe] : asked_) earliest = std::min(earliest, probe.deadline);
  for (const auto& [id, probe] : helping_) earliest = std::min(earliest, probe.deadline);
  return earliest;
}

}  // namespace weft
