// M2 and M3: see membership_checker.hpp.
#include "sim/membership_checker.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "sim/text.hpp"

namespace weft::sim {

void MembershipSafety::check(const Simulator& sim, std::vector<std::string>& failures) {
  if (lives_.size() < sim.size() + 1) lives_.resize(sim.size() + 1);
  for (std::size_t i = 1; i <= sim.size(); ++i) {
    const Kernel* k = sim.kernel(i);
    if (k == nullptr || k->is_shut_down()) continue;
    count(judged_, Check::m3_self);
    count(judged_, Check::m2_records, k->members().size());
    const Member* me = k->members().find(k->self().address);
    if (me != nullptr && me->id == k->self() &&
        (me->status == MemberStatus::down || me->status == MemberStatus::removed)) {
      failures.push_back(cat("M3: ", node_name(i), " holds itself ", to_string(me->status)));
    }
    // A table whose digest (a function of its records, cached by the table
    // and recomputed once per change) is the one last compared holds the
    // records last compared, each equal to what is held for it: nothing can
    // have moved backwards. In a settled cluster most tables do not change
    // between two steps, and looking every record of every table up each
    // step was 43 % of a 1000-node run.
    Life& life = lives_[i][k->self().incarnation.value];
    const std::uint64_t digest = k->members().digest();
    if (life.compared && life.digest == digest) continue;
    compare(i, *k, life, failures);
    life.compared = true;
    life.digest = digest;
  }
}

void MembershipSafety::compare(std::size_t node, const Kernel& k, Life& life, std::vector<std::string>& failures) {
  std::vector<Held>& held = life.held;
  std::vector<Held> fresh;  // addresses this life never listed before
  std::vector<bool> listed(held.size(), false);  // held[i] is in the table now
  std::size_t next = 0;     // the table is sorted by address too: the next record is usually held[next]
  for (const Member& m : k.members().members()) {
    Held* last = nullptr;
    if (next < held.size() && held[next].address == m.address()) {
      last = &held[next];
    } else {
      const auto it = std::lower_bound(held.begin(), held.end(), m.address(),
                                       [](const Held& h, const NodeAddress& a) { return h.address < a; });
      if (it != held.end() && it->address == m.address()) last = &*it;
    }
    const std::pair<std::uint64_t, int> now{m.incarnation().value, static_cast<int>(m.status)};
    if (last == nullptr) {
      // Never listed: compared with nothing held, {0, 0}, which nothing is below.
      fresh.push_back(Held{m.address(), now.first, now.second});
      continue;
    }
    next = static_cast<std::size_t>(last - held.data()) + 1;
    listed[next - 1] = true;
    if (last->dropped && now.first <= last->incarnation) {
      failures.push_back(cat("M8: ", node_name(node), " took back ", m.id.to_string(), " ", to_string(m.status),
                             " after dropping ", MemberId{m.address(), Incarnation{last->incarnation}}.to_string(),
                             " from its table"));
    }
    last->dropped = false;
    if (now < std::pair<std::uint64_t, int>{last->incarnation, last->status}) {
      failures.push_back(cat("M2: ", node_name(node), " moved ", m.address().to_string(), " backwards, from ",
                             MemberId{m.address(), Incarnation{last->incarnation}}.to_string(), " ",
                             to_string(static_cast<MemberStatus>(last->status)), " to ", m.id.to_string(), " ",
                             to_string(m.status)));
    }
    last->incarnation = now.first;
    last->status = now.second;
  }
  for (std::size_t i = 0; i < held.size(); ++i) {
    if (listed[i] || held[i].dropped) continue;
    held[i].dropped = true;
    count(judged_, Check::m8_dropped);
  }
  if (fresh.empty()) return;
  const auto by_address = [](const Held& a, const Held& b) { return a.address < b.address; };
  std::sort(fresh.begin(), fresh.end(), by_address);
  const auto middle = static_cast<std::ptrdiff_t>(held.size());
  held.insert(held.end(), std::make_move_iterator(fresh.begin()), std::make_move_iterator(fresh.end()));
  std::inplace_merge(held.begin(), held.begin() + middle, held.end(), by_address);
}

}  // namespace weft::sim
