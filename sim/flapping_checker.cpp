// M7: see flapping_checker.hpp.
#include "sim/flapping_checker.hpp"

#include <algorithm>

#include "kernel/membership/reachability.hpp"
#include "sim/text.hpp"

namespace weft::sim {

NoFlapping::NoFlapping(const Config& config, std::int64_t worst_ppm, Judged* judged)
    : probe_timeout_(Duration::nanoseconds(config.probe_timeout.ns() / 1'000'000 * (1'000'000 - worst_ppm))),
      judged_(judged) {}

MemberStatus NoFlapping::self_status(std::size_t node, const Kernel& kernel) {
  const std::span<const Member> members = kernel.members().members();
  std::size_t& hint = hints_[node].member;
  if (hint < members.size() && members[hint].address() == kernel.self().address) return members[hint].status;
  const Member* me = kernel.members().find(kernel.self().address);
  if (me == nullptr) return kernel.self_status();  // which asserts, as it always did here
  hint = static_cast<std::size_t>(me - members.data());
  return me->status;
}

const ReachabilityRow* NoFlapping::own_row(std::size_t node, const Kernel& kernel) {
  const std::span<const ReachabilityRow> rows = kernel.reachability().rows();
  std::size_t& hint = hints_[node].row;
  if (hint < rows.size() && rows[hint].observer == kernel.self()) return &rows[hint];
  const ReachabilityRow* row = kernel.reachability().row(kernel.self());
  if (row != nullptr) hint = static_cast<std::size_t>(row - rows.data());
  return row;
}

void NoFlapping::after_input(std::size_t node, const Kernel& kernel, Instant now) {
  if (rows_.size() <= node) {
    rows_.resize(node + 1);
    hints_.resize(node + 1);
  }
  // A node that holds its own life down or removed is M3's failure; its own
  // row is pruned with it, which is no flap.
  if (!found_.empty() || kernel.is_shut_down() || !is_live_status(self_status(node, kernel))) return;
  const MemberId& self = kernel.self();
  count(judged_, Check::m7_inputs);
  if (kernel.is_unreachable(self)) {
    found_.push_back(cat("M7: n", std::to_string(node), " (", self.to_string(), ") lists itself unreachable at ",
                         std::to_string(now.ns_since_epoch() / 1'000'000), " ms"));
    return;
  }
  Row& seen = rows_[node];
  if (seen.owner != self) seen = Row{self, 0, {}, {}};  // a new life owns a new row
  const ReachabilityRow* row = own_row(node, kernel);
  const std::uint64_t version = row == nullptr ? 0 : row->version;
  if (version < seen.version) {
    found_.push_back(cat("M7: n", std::to_string(node), " took back its own reachability row (version ",
                         std::to_string(seen.version), " -> ", std::to_string(version), ")"));
    return;
  }
  if (version == seen.version) return;
  const std::vector<MemberId> marked = row == nullptr ? std::vector<MemberId>{} : row->unreachable;
  for (const MemberId& subject : seen.marked) {
    if (!std::binary_search(marked.begin(), marked.end(), subject)) seen.withdrawn_at[subject] = now;
  }
  for (const MemberId& subject : marked) {
    if (std::binary_search(seen.marked.begin(), seen.marked.end(), subject)) continue;
    const auto withdrawn = seen.withdrawn_at.find(subject);
    if (withdrawn == seen.withdrawn_at.end()) continue;
    count(judged_, Check::m7_remarks);
    if (now - withdrawn->second < probe_timeout_) {
      found_.push_back(cat("M7: n", std::to_string(node), " re-marked ", subject.to_string(), " unreachable ",
                           std::to_string((now - withdrawn->second).ms()), " ms after withdrawing it (< probe_timeout ",
                           std::to_string(probe_timeout_.ms()), " ms: no new probe could have failed)"));
      return;
    }
  }
  seen.version = version;
  seen.marked = marked;
}

void NoFlapping::check(std::vector<std::string>& failures) {
  if (found_.empty()) return;
  failures.insert(failures.end(), found_.begin(), found_.end());
  found_.clear();
}

}  // namespace weft::sim
