// PositionHints: where in a sorted vector a key was last found, remembered
// in a few slots picked by the key's fingerprint, so a lookup of a key seen
// lately costs one comparison instead of a binary search. At a thousand
// members a binary search is ten probes of a 50 KB array of records with
// host strings, most of them cache misses, and the same few dozen peers
// (the gossip view, the monitors) are looked up over and over.
//
// A hint is only a guess: lower_bound() confirms the entry at the hinted
// position is the key before trusting it, and positions move as the vector
// changes, so a stale hint costs the binary search it would have saved and
// nothing else. No result depends on a hint (the caller's answer is the
// same with every hint wrong), so they reach no output.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>

namespace weft {

class PositionHints {
 public:
  static constexpr std::size_t kSlots = 64;
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  struct Found {
    std::size_t at = 0;  // where `key` is, or would be inserted
    bool exact = false;  // sorted[at] has `key`
  };
  // std::lower_bound over `sorted` (strictly increasing by proj) for `key`,
  // whose fingerprint is `print`: the hinted position first, confirmed by
  // one comparison; a search otherwise, whose hit is remembered.
  template <class T, class Key, class Proj>
  Found lower_bound(std::span<const T> sorted, const Key& key, std::uint64_t print, Proj proj) const {
    std::uint32_t& slot = slots_[print % kSlots];
    if (slot < sorted.size() && std::invoke(proj, sorted[slot]) == key) return {slot, true};
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), key,
                                     [&](const T& entry, const Key& k) { return std::invoke(proj, entry) < k; });
    const Found found{static_cast<std::size_t>(it - sorted.begin()), it != sorted.end() && std::invoke(proj, *it) == key};
    if (found.exact) slot = static_cast<std::uint32_t>(found.at);
    return found;
  }

 private:
  mutable std::array<std::uint32_t, kSlots> slots_ = filled();
  static constexpr std::array<std::uint32_t, kSlots> filled() {
    std::array<std::uint32_t, kSlots> slots{};
    slots.fill(kNone);
    return slots;
  }
};

}  // namespace weft
