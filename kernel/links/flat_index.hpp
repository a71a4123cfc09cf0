// FlatIndex: the link table's lookup indexes (link id -> record, peer address
// -> record) as open-addressing hash tables of map iterators, so a lookup
// reads one slot array instead of a bucket array and a chain of heap nodes.
// At a thousand simulated nodes the node-based maps' cache misses were a
// tenth of a run (every frame read, every write done and every frame queued
// looks one up).
//
// Model. Slots hold a 64-bit tag (0: empty) and an iterator. Keys map to
// tags through Traits: a link id is its own tag (ids start at 1), an address
// is its fingerprint with the low bit set, and an address's slot holds only
// the tag, so a tag match is confirmed against the key its record holds
// (Traits::matches). Linear probing from the tag's home slot; erasing shifts
// the run behind the hole back (no tombstones), so a lookup ends at the
// first empty slot. The table grows by doubling at half full. Since a probe
// may read any indexed record's key, a record is unindexed before it is
// erased, never after (LinkTable erases both together, index first).
//
// Never iterated: it has no iteration, so its layout (which depends on the
// keys' hashes) reaches no output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernel/assert.hpp"

namespace weft {

template <class Key, class Iterator, class Traits>
class FlatIndex {
 public:
  std::size_t size() const { return size_; }

  // The iterator under `key`, or nullptr.
  const Iterator* find(const Key& key) const {
    if (slots_.empty()) return nullptr;
    const std::uint64_t tag = Traits::tag(key);
    for (std::size_t i = home(tag);; i = next(i)) {
      const Slot& slot = slots_[i];
      if (slot.tag == 0) return nullptr;
      if (slot.tag == tag && Traits::matches(slot.it, key)) return &slot.it;
    }
  }
  bool contains(const Key& key) const { return find(key) != nullptr; }

  // Indexes `it` under `key`; false (and nothing changes) if `key` is indexed.
  bool insert(const Key& key, Iterator it) {
    if (find(key) != nullptr) return false;
    if (2 * (size_ + 1) > slots_.size()) grow();
    place(Traits::tag(key), it);
    ++size_;
    return true;
  }

  // Unindexes `key`; false if it was not indexed.
  bool erase(const Key& key) {
    if (slots_.empty()) return false;
    const std::uint64_t tag = Traits::tag(key);
    std::size_t hole = home(tag);
    for (;; hole = next(hole)) {
      const Slot& slot = slots_[hole];
      if (slot.tag == 0) return false;
      if (slot.tag == tag && Traits::matches(slot.it, key)) break;
    }
    // Backward shift: an entry further along the run moves into the hole
    // unless its home lies cyclically in (hole, here], where a lookup for it
    // starts past the hole and so never meets it.
    for (std::size_t here = next(hole);; here = next(here)) {
      Slot& slot = slots_[here];
      if (slot.tag == 0) break;
      const std::size_t want = home(slot.tag);
      const bool stays = hole <= here ? (hole < want && want <= here) : (hole < want || want <= here);
      if (stays) continue;
      slots_[hole] = slot;
      hole = here;
    }
    slots_[hole] = Slot{};
    --size_;
    return true;
  }

 private:
  struct Slot {
    std::uint64_t tag = 0;
    Iterator it{};
  };

  std::size_t mask() const { return slots_.size() - 1; }
  std::size_t home(std::uint64_t tag) const { return static_cast<std::size_t>(Traits::spread(tag)) & mask(); }
  std::size_t next(std::size_t i) const { return (i + 1) & mask(); }

  void place(std::uint64_t tag, Iterator it) {
    WEFT_ASSERT(tag != 0);
    std::size_t i = home(tag);
    while (slots_[i].tag != 0) i = next(i);
    slots_[i] = Slot{tag, it};
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : 2 * old.size(), Slot{});
    for (const Slot& slot : old) {
      if (slot.tag != 0) place(slot.tag, slot.it);
    }
  }

  std::vector<Slot> slots_;  // a power of two in size, or empty
  std::size_t size_ = 0;
};

}  // namespace weft
