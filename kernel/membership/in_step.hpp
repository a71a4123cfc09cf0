// Walking one sorted list beside a walk of another: the membership walks
// (merges, change lists, convergence, gossip targets, the monitoring ring)
// go through two lists sorted by the same key at once, and each step asks
// for the entry of the other list with the key in hand.
#pragma once

#include <functional>

namespace weft {

// The entry of the list at `at` (sorted by proj, strictly increasing) whose
// key is `key`, or nullptr; `at` moves past it, or to where it would be.
// Calls must come in increasing key order. The two lists mostly share their
// keys (two versions of one table, a table and the ids that hold it), so
// equality is tested first: one comparison per shared key where `<` then
// `==` took two, and with host strings in every key that is most of a walk.
template <class It, class Key, class Proj = std::identity>
auto find_in_step(It& at, It end, const Key& key, Proj proj = {}) -> decltype(&*at) {
  if (at != end && std::invoke(proj, *at) == key) return &*at++;
  while (at != end && std::invoke(proj, *at) < key) ++at;
  if (at != end && std::invoke(proj, *at) == key) return &*at++;
  return nullptr;
}

}  // namespace weft
