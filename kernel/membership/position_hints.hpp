// PositionHints: where in a sorted vector a key was last found, remembered
// in a few slots picked by the key's fingerprint, so a lookup of a key seen
// lately costs one comparison instead of a binary search. At a thousand
// members a binary search is ten probes of a 50 KB array of records with
// host strings, most of them cache misses, and the same few dozen peers
// (the gossip view, the monitors) are looked up over and over.
//
// A hint is only a guess: the caller confirms the entry at the hinted
// position is the key before trusting it, and positions move as the vector
// changes, so a stale hint costs the binary search it would have saved and
// nothing else. No result depends on a hint (the caller's answer is the
// same with every hint wrong), so they reach no output.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace weft {

class PositionHints {
 public:
  static constexpr std::size_t kSlots = 64;
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  std::uint32_t guess(std::uint64_t fingerprint) const { return slots_[fingerprint % kSlots]; }
  void remember(std::uint64_t fingerprint, std::size_t position) const {
    slots_[fingerprint % kSlots] = static_cast<std::uint32_t>(position);
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
